"""The pages' JSON Patch applier (web/static/patch.js) run under node, for the tests.

`apply_all([(doc, patch), ...])` sends them all to one node process
(tests/web/jsonpatch/apply.mjs) and returns, for each, {"doc": the result} or
{"error": what applyPatch threw}. Node is installed by tests/check.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent / "jsonpatch"
PATCH_JS = Path(__file__).parents[2] / "host" / "buzzerbox" / "web" / "static" / "patch.js"
SUITE = HERE / "node_modules" / "json-patch-test-suite"


def apply_all(cases: list[tuple[Any, Any]]) -> list[dict[str, Any]]:
    node = shutil.which("node")
    assert node, "node is not installed: tests/check installs it"
    done = subprocess.run(
        [node, str(HERE / "apply.mjs"), str(PATCH_JS)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    for answer in answers:
        assert answer.pop("same"), "applyPatch changed the document it was given"
    return answers


def suite(name: str) -> list[dict[str, Any]]:
    """The public JSON Patch test suite's `name` (tests.json, spec_tests.json)."""
    path = SUITE / name
    assert path.exists(), f"{path} is missing: tests/check runs npm ci in {HERE}"
    cases: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return cases
