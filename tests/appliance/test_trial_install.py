"""The documented install path, for real as far as a machine without systemd as PID 1
allows: install.sh --root DIR makes a fresh venv, builds the box from a clone into
it, links `buzzerbox` into DIR/usr/local/bin, and writes the settings and the unit.
The clone is left as it was (no build/, no egg-info owned by whoever ran pip).

It needs PyPI for the build backend (setuptools) and about 30 s."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from buzzerbox.appliance import installer

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = installer.packaged("install.sh")


def clone(into: Path) -> Path:
    """A clone of the repository as a user has it (only what pip needs)."""
    into.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, into / name)
    shutil.copytree(
        ROOT / "host" / "buzzerbox",
        into / "host" / "buzzerbox",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    return into


def run(
    cmd: list[str], env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, check=False, env=env
    )


def test_a_trial_install_puts_buzzerbox_on_path_and_leaves_the_clone_clean(
    tmp_path: Path,
) -> None:
    src = clone(tmp_path / "clone")
    before = sorted(p.relative_to(src) for p in src.rglob("*"))
    root = tmp_path / "root"
    pads = ROOT / "hardware" / "builds" / "twist-picos" / "pads.toml"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    script = ["bash", str(SCRIPT), "--root", str(root), "--source", str(src), "--pads", str(pads)]
    script += ["--name", "table-07"]
    result = run(script, env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "a trial install in" in result.stdout

    # the clone: exactly as it was
    assert sorted(p.relative_to(src) for p in src.rglob("*")) == before

    # the layout
    venv = root / "opt" / "buzzerbox" / "venv"
    link = root / "usr" / "local" / "bin" / "buzzerbox"
    assert link.is_symlink() and link.resolve() == (venv / "bin" / "buzzerbox").resolve()
    box = root / "etc" / "buzzerbox" / "box.toml"
    assert stat.S_IMODE(box.stat().st_mode) == 0o640
    settings = box.read_text(encoding="utf-8")
    assert 'pads = "/etc/buzzerbox/pads.toml"' in settings
    assert re.search(r'^pin = "[0-9]{8}"$', settings, re.M), settings
    assert re.search(r'^name = "table-07"$', settings, re.M), settings
    assert (root / "etc" / "hostname").read_text() == "table-07\n"
    assert "127.0.1.1\ttable-07\n" in (root / "etc" / "hosts").read_text()
    assert (root / "etc" / "buzzerbox" / "pads.toml").read_bytes() == pads.read_bytes()
    unit = (root / "etc" / "systemd" / "system" / "buzzerbox.service").read_text("utf-8")
    assert "ExecStart=/opt/buzzerbox/venv/bin/buzzerbox box $BUZZERBOX_ARGS" in unit
    assert "--config /etc/buzzerbox/box.toml" in (root / "etc/default/buzzerbox").read_text()
    assert (root / "var" / "lib" / "buzzerbox").is_dir()

    # `buzzerbox` on PATH is the venv's, with the box in the venv
    env["PATH"] = f"{link.parent}{os.pathsep}/usr/bin{os.pathsep}/bin"
    found = shutil.which("buzzerbox", path=env["PATH"])
    assert found == str(link)
    where = run(
        [str(venv / "bin/python"), "-c", "import buzzerbox; print(buzzerbox.__file__)"], env
    )
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout + where.stderr
    check = run(["buzzerbox", "hardware", "check", str(root / "etc/buzzerbox/pads.toml")], env)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "fits: every pad and light has a pin of its own" in check.stdout

    # and `sudo buzzerbox install` updates from the same clone (pip only saw a copy)
    assert (root / "opt" / "buzzerbox" / "source").read_text() == f"{src}\n"
    again = run(["buzzerbox", "install", "--dry-run"], env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"+ copy {src} to /tmp/buzzerbox-source.XXXXXX" in again.stdout


def test_a_trial_install_refuses_a_name_that_is_no_host_name(tmp_path: Path) -> None:
    root = tmp_path / "root"
    result = run(["bash", str(SCRIPT), "--root", str(root), "--name", "Table 7"], dict(os.environ))
    assert result.returncode == 2
    assert "the name 'Table 7' is not allowed: a host name is 1-63 of a-z, 0-9" in result.stderr
    assert not (root / "etc").exists()  # refused before anything is written
