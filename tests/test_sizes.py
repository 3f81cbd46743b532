"""Modules are cut by concept before they grow long: a module of the box (host/) or
the firmware at most 400 lines, a test file at most 500 (the house style); the
README, for the people who use the box, at most 150 (its figures are in
tests/bench/README.md)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULE_MAX = 400
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


def too_long(paths: list[Path], root: Path) -> list[str]:
    """Each file over its limit, as "path: N lines (at most M)"."""
    found = []
    for path in paths:
        rel = path.relative_to(root)
        limit = TEST_MAX if rel.parts[0] == "tests" else MODULE_MAX
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found.append(f"{rel}: {lines} lines (at most {limit})")
    return found


def test_no_module_is_over_its_limit() -> None:
    paths = tracked_python()
    tops = {p.relative_to(ROOT).parts[0] for p in paths}
    assert {"host", "firmware", "tests"} <= tops  # the listing found them
    assert too_long(paths, ROOT) == []


def test_the_readme_is_short() -> None:
    lines = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert 20 < lines <= README_MAX, f"README.md: {lines} lines (at most {README_MAX})"


def test_the_check_catches_a_long_module_and_a_long_test(tmp_path: Path) -> None:
    for name, lines in [
        ("host/buzzerbox/ok.py", MODULE_MAX),
        ("host/buzzerbox/long.py", MODULE_MAX + 1),
        ("firmware/padboard/long.py", MODULE_MAX + 1),
        ("tests/test_ok.py", TEST_MAX),
        ("tests/test_long.py", TEST_MAX + 1),
    ]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n" * lines, encoding="utf-8")
    found = too_long(sorted(tmp_path.rglob("*.py")), tmp_path)
    assert found == [
        "firmware/padboard/long.py: 401 lines (at most 400)",
        "host/buzzerbox/long.py: 401 lines (at most 400)",
        "tests/test_long.py: 501 lines (at most 500)",
    ]
