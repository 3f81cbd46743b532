"""Each command imports only what it uses: `buzzerbox --help` and `buzzerbox replay`
load no web server, no MQTT client, no GPIO library (a fresh interpreter each, as the
command runs; its sys.modules is the record)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import buzzerbox
import pytest

HEAVY = ("flask", "werkzeug", "jinja2", "waitress", "paho", "gpiozero", "zeroconf", "segno")
EXAMPLE = Path(buzzerbox.__file__).parent / "examples" / "kids.jsonl"

RUN = """
import contextlib, io, json, sys
from buzzerbox.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded(*args: str) -> tuple[int, list[str]]:
    """(exit code, the modules loaded) of `buzzerbox ARGS` in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", RUN, *args], capture_output=True, text=True, timeout=60, check=True
    )
    result = json.loads(out.stdout.splitlines()[-1])
    return int(result["code"] or 0), list(result["modules"])


@pytest.mark.parametrize(
    "args", [("--help",), ("serve", "--help"), ("replay", str(EXAMPLE))], ids=str
)
def test_a_command_loads_none_of_the_heavy_modules_it_does_not_use(args: tuple[str, ...]) -> None:
    code, modules = loaded(*args)
    assert code == 0
    heavy = sorted({m.split(".")[0] for m in modules} & set(HEAVY))
    assert heavy == [], f"buzzerbox {' '.join(args)} loaded {heavy}"


def test_the_check_sees_a_heavy_module_when_one_is_loaded() -> None:
    code, modules = loaded("hub", "--help")
    assert code == 0
    assert "flask" not in modules  # --help of hub: its app is loaded when it runs
    probe = "import sys, buzzerbox.hub.app; print('flask' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "True"
