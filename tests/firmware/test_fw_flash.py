"""`buzzerbox firmware install`: the mpremote commands that put the firmware on a Pico."""

from __future__ import annotations

import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from buzzerbox import flash
from buzzerbox.cli import main
from buzzerbox.errors import MpremoteError

from .fwbench import FIRMWARE

MODULES = sorted(str(p) for p in (FIRMWARE / "padboard").glob("*.py"))


def fake_mpremote(tmp_path: Path, fail_at: int = 0) -> tuple[str, Path]:
    """A stand-in mpremote that logs its arguments (and fails on call `fail_at`)."""
    log = tmp_path / "calls.log"
    script = tmp_path / "mpremote"
    script.write_text(
        f"""#!{sys.executable}
import sys
with open({str(log)!r}, "a") as f:
    f.write(repr(sys.argv[1:]) + "\\n")
calls = sum(1 for _ in open({str(log)!r}))
sys.exit(3 if calls == {fail_at} else 0)
"""
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script), log


def calls(log: Path) -> list[list[str]]:
    return [eval(line) for line in log.read_text().splitlines()]


def test_dry_run_prints_the_mpremote_commands(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_run(*args: object, **kw: object) -> None:
        raise AssertionError("a dry run runs nothing")

    monkeypatch.setattr(subprocess, "run", no_run)
    assert main(["firmware", "install", "/dev/ttyACM0", "--dry-run", "--mpremote", "mpremote"]) == 0
    printed = [shlex.split(line) for line in capsys.readouterr().out.splitlines()]
    connect = ["mpremote", "connect", "/dev/ttyACM0"]
    assert printed == [
        [*connect, "exec", 'import os; "padboard" in os.listdir() or os.mkdir("padboard")'],
        [*connect, "fs", "cp", *MODULES, ":padboard/"],
        [*connect, "fs", "cp", str(FIRMWARE / "main.py"), ":main.py"],
        [*connect, "reset"],
    ]
    assert len(MODULES) >= 8  # the package, the pure modules, the glue, the PIO program


def test_without_a_port_mpremote_finds_the_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["firmware", "install", "--dry-run"]) == 0
    for line in capsys.readouterr().out.splitlines():
        assert " connect auto " in line


def test_install_runs_the_commands_in_order(tmp_path: Path) -> None:
    script, log = fake_mpremote(tmp_path)
    assert main(["firmware", "install", "/dev/ttyACM1", "--mpremote", script]) == 0
    got = calls(log)
    assert [c[:2] for c in got] == [["connect", "/dev/ttyACM1"]] * 4
    assert [c[2] for c in got] == ["exec", "fs", "fs", "reset"]
    assert got[1][-1] == ":padboard/" and got[2][-2:] == [str(FIRMWARE / "main.py"), ":main.py"]


def test_a_failing_copy_stops_the_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script, log = fake_mpremote(tmp_path, fail_at=2)
    assert main(["firmware", "install", "--mpremote", script]) == 1
    assert len(calls(log)) == 2  # main.py is not copied, the board is not reset
    assert "mpremote failed with exit code 3" in capsys.readouterr().err


def test_a_folder_without_firmware_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["firmware", "install", "--dry-run", "--source", str(tmp_path)]) == 2
    assert f"no firmware in {tmp_path}" in capsys.readouterr().err
    with pytest.raises(FileNotFoundError):
        flash.firmware_files(tmp_path)


def test_a_missing_mpremote_is_named(tmp_path: Path) -> None:
    with pytest.raises(MpremoteError, match="could not be started"):
        flash.install(FIRMWARE, None, [str(tmp_path / "no-such-mpremote")])


def test_a_layout_is_copied_in_a_config_with_that_one_line_changed(tmp_path: Path) -> None:
    script, log = fake_mpremote(tmp_path)
    keep = tmp_path / "copied-config.py"
    # a second stand-in: records the config.py it is given (the staged one is gone later)
    recorder = tmp_path / "record"
    recorder.write_text(
        f"""#!{sys.executable}
import os, shutil, sys
for arg in sys.argv[1:]:
    if arg.endswith("config.py"):
        shutil.copy(arg, {str(keep)!r})
os.execv({script!r}, [{script!r}, *sys.argv[1:]])
"""
    )
    recorder.chmod(recorder.stat().st_mode | stat.S_IEXEC)
    assert main(["firmware", "install", "--layout", "pads12", "--mpremote", str(recorder)]) == 0
    shipped = (FIRMWARE / "padboard" / "config.py").read_text()
    assert 'LAYOUT = "pads24"' in shipped  # the shipped file stays as it is
    assert keep.read_text() == shipped.replace('LAYOUT = "pads24"', 'LAYOUT = "pads12"')
    copied = calls(log)[1][4:-1]
    assert [Path(c).name for c in copied] == [Path(m).name for m in MODULES]
    assert [c for c in copied if c not in MODULES] == [c for c in copied if "config" in c]


def test_an_unknown_layout_is_refused_with_the_ones_there_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["firmware", "install", "--dry-run", "--layout", "pads99"]) == 2
    err = capsys.readouterr().err
    assert "layout 'pads99' does not exist: this firmware has pads24, pads12" in err
    with pytest.raises(ValueError, match="pads99"):
        flash.with_layout((FIRMWARE / "padboard" / "config.py").read_text(), "pads99")


def test_the_firmware_is_found_in_the_package() -> None:
    assert flash.FIRMWARE_DIR == FIRMWARE.resolve()  # a checkout: the symlink's target
    modules, main_py = flash.firmware_files(flash.FIRMWARE_DIR)
    assert [str(m) for m in modules] == MODULES and main_py == FIRMWARE / "main.py"
