"""The stylesheets are whole: every block closed (a brace lost in a merge makes the
browser drop every rule after it, silently)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HOST = Path(__file__).resolve().parents[2] / "host" / "buzzerbox"
SHEETS = sorted(HOST.glob("*/static/*.css"))


def depths(css: str) -> list[int]:
    """The nesting depth after each line, comments and strings left out."""
    css = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), css, flags=re.S)
    css = re.sub(r'"[^"\n]*"|\'[^\'\n]*\'', '""', css)
    out, depth = [], 0
    for line in css.split("\n"):
        depth += line.count("{") - line.count("}")
        out.append(depth)
    return out


def test_the_check_finds_a_lost_brace() -> None:
    assert depths("a {\n  color: red;\nb { color: blue; }\n")[-1] == 1


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda p: p.name)
def test_every_block_is_closed(sheet: Path) -> None:
    found = depths(sheet.read_text())
    assert min(found) >= 0, (
        f"{sheet.name}: a '}}' closes nothing, line {found.index(min(found)) + 1}"
    )
    assert found[-1] == 0, f"{sheet.name}: {found[-1]} block(s) left open"
