"""Modules are cut by concept before they grow long, never mid-idea to fit a number: a
module of the box (host/) or the firmware past 400 lines is named (look for two ideas
in it) and fails past 600; a test file fails past 500 (the house style); the README,
for the people who use the box, at most 150 (its figures are in tests/bench/README.md)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: a module past this many lines is named by the test, for a look (two ideas in it?)
MODULE_LOOK = 400
MODULE_MAX = 600
TEST_MAX = 500
README_MAX = 150


def tracked_python() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [ROOT / line for line in out.stdout.splitlines() if (ROOT / line).is_file()]


def too_long(paths: list[Path], root: Path, *, look: bool = False) -> list[str]:
    """Each file over its limit, as "path: N lines (at most M)" (`look`: each module
    over MODULE_LOOK)."""
    found = []
    for path in paths:
        rel = path.relative_to(root)
        if rel.parts[0] == "tests":
            if look:
                continue
            limit = TEST_MAX
        else:
            limit = MODULE_LOOK if look else MODULE_MAX
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found.append(f"{rel}: {lines} lines (at most {limit})")
    return found


def test_no_module_is_over_its_limit(capsys: pytest.CaptureFixture[str]) -> None:
    paths = tracked_python()
    tops = {p.relative_to(ROOT).parts[0] for p in paths}
    assert {"host", "firmware", "tests"} <= tops  # the listing found them
    assert too_long(paths, ROOT) == []
    with capsys.disabled():  # said, not failed: a long module may be one idea
        for found in too_long(paths, ROOT, look=True):
            print(f"\nlook for two ideas in {found}", end="")


def test_the_readme_is_short() -> None:
    lines = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert 20 < lines <= README_MAX, f"README.md: {lines} lines (at most {README_MAX})"


def test_the_check_catches_a_long_module_and_a_long_test(tmp_path: Path) -> None:
    for name, lines in [
        ("host/buzzerbox/ok.py", MODULE_LOOK),
        ("host/buzzerbox/look.py", MODULE_LOOK + 1),
        ("host/buzzerbox/long.py", MODULE_MAX + 1),
        ("firmware/padboard/long.py", MODULE_MAX + 1),
        ("tests/test_ok.py", TEST_MAX),
        ("tests/test_long.py", TEST_MAX + 1),
    ]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n" * lines, encoding="utf-8")
    paths = sorted(tmp_path.rglob("*.py"))
    assert too_long(paths, tmp_path) == [
        "firmware/padboard/long.py: 601 lines (at most 600)",
        "host/buzzerbox/long.py: 601 lines (at most 600)",
        "tests/test_long.py: 501 lines (at most 500)",
    ]
    assert too_long(paths, tmp_path, look=True) == [
        "firmware/padboard/long.py: 601 lines (at most 400)",
        "host/buzzerbox/long.py: 601 lines (at most 400)",
        "host/buzzerbox/look.py: 401 lines (at most 400)",
    ]
