"""Issue 28, item 10 (the box's half): names that are Object's own, the API's and the
exports' headers, a new data folder's modes, and the short PIN's warning in numbers."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path
from typing import Any

from buzzerbox.box import Box
from buzzerbox.server.auth import pin_warning
from buzzerbox.store.eventlog import EventLog
from buzzerbox.web import create_app

from .served import start

STATIC = Path(__file__).parents[2] / "host" / "buzzerbox" / "web" / "static"


def test_a_name_like_constructor_is_shown_as_itself() -> None:
    """The pages' lookups of the box's names (phases, variants, pads) go through
    dom.js's ownName(): "constructor" is no longer Object's function."""
    script = (
        f"import {{ ownName }} from '{STATIC / 'dom.js'}';"
        "const t = { stacks: 'the stacks' };"
        "console.log(JSON.stringify([ownName(t, 'constructor', 'constructor'),"
        "ownName(t, '__proto__', '__proto__'),ownName(t, 'stacks', 'stacks')]));"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True
    )
    assert json.loads(out.stdout) == ["constructor", "__proto__", "the stacks"], out.stderr
    for name in ["pads.js", "table.js", "scoreboard.js", "common.js", "scoring.js", "photo.js"]:
        text = (STATIC / name).read_text()
        assert "}[st.phase]" not in text and "NAMES[v] ||" not in text, name
        assert "STATUS_TEXT[status]" not in text and "WHAT[type]" not in text, name


def test_the_api_and_the_exports_carry_csp_and_nosniff(tmp_path: Path) -> None:
    box = Box(EventLog(tmp_path / "buzzerbox.db"))
    client = create_app(box).test_client()
    for path in ["/api/state", "/api/clock", "/api/openapi.json", "/api/export/card.svg",
                 "/api/export/csv", "/api/nothing"]:  # fmt: skip
        reply = client.get(path)
        assert reply.headers.get("X-Content-Type-Options") == "nosniff", path
        assert "default-src 'self'" in reply.headers.get("Content-Security-Policy", ""), path
    box.close()


def test_a_new_data_folder_is_the_box_s_alone(tmp_path: Path, tidy: list[Any]) -> None:
    folder = tmp_path / "new"
    tidy.append(start(folder, "--pin", "13572468"))
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for name in ["buzzerbox.db", "sessions.db", "admin_pin"]:
        if (folder / name).exists():
            assert stat.S_IMODE((folder / name).stat().st_mode) & 0o077 == 0, name
    assert (folder / "buzzerbox.db").exists() and (folder / "sessions.db").exists()


def test_a_short_pin_s_warning_has_the_limiter_s_numbers() -> None:
    words = pin_warning("1234")
    assert words is not None and "4.9 h" in words and "254 addresses" in words, words
    assert "days" not in words.split(";")[0]
    assert pin_warning("12345678") is None
