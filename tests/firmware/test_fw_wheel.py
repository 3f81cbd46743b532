"""The firmware ships in the wheel: `buzzerbox firmware install` from an installed box.

Builds the wheel from a copy of the repository (so the checkout gets no build/ or
egg-info), installs it into a fresh venv (its dependencies from this Python's site
packages) and runs the installed `buzzerbox firmware install --dry-run --layout pads12`.
Needs only PyPI (for setuptools, when pip builds in isolation).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from .fwbench import FIRMWARE, ROOT

PACKAGE_FILES = sorted(p.name for p in (FIRMWARE / "padboard").glob("*.py"))


def run(*command: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{shlex.join(map(str, command))}:\n{done.stdout}{done.stderr}"
    return done


def test_an_installed_wheel_flashes_a_board_with_its_layout(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    junk = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist")
    for top in ("host", "firmware"):
        shutil.copytree(ROOT / top, source / top, symlinks=True, ignore=junk)
    for top in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / top, source / top)
    assert (source / "host" / "buzzerbox" / "firmware").is_symlink()

    wheels = tmp_path / "wheels"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, source)
    (wheel,) = wheels.glob("buzzerbox-*.whl")

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    # the dependencies from this Python's site packages, a venv's too (a venv made
    # --system-site-packages from a venv would see its base Python's, not the venv's)
    inner = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    outer = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    Path(inner.stdout.strip(), "outer-site.pth").write_text("\n".join(sorted(outer)) + "\n")
    run(python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", wheel)
    where = run(python, "-c", "import buzzerbox; print(buzzerbox.__file__)").stdout.strip()
    installed = Path(where).parent
    assert installed.is_relative_to(venv) and not (installed / "firmware").is_symlink()

    done = run(venv / "bin" / "buzzerbox", "firmware", "install", "--dry-run", "--layout", "pads12")
    lines = [shlex.split(line) for line in done.stdout.splitlines()]
    # mpremote's script where it is on PATH, else the venv's Python runs its module
    launchers = {tuple(c[: c.index("connect")]) for c in lines}
    assert launchers in ({("mpremote",)}, {(str(python), "-m", "mpremote")}), launchers
    commands = [["mpremote", *c[c.index("connect") :]] for c in lines]
    assert [c[:3] for c in commands] == [["mpremote", "connect", "auto"]] * 4
    assert [c[3] for c in commands] == ["exec", "fs", "fs", "reset"]
    copied = [Path(f) for f in commands[1][5:-1]]
    assert commands[1][-1] == ":padboard/" and commands[2][-2:] == [
        str(installed / "firmware" / "main.py"),
        ":main.py",
    ]
    assert [f.name for f in copied] == PACKAGE_FILES
    for f in copied:
        if f.name == "config.py":  # staged with the layout; gone after the dry run
            assert not f.is_relative_to(installed)
        else:
            assert f == installed / "firmware" / "padboard" / f.name
            assert f.read_bytes() == (FIRMWARE / "padboard" / f.name).read_bytes()
    assert "layout pads12" in done.stderr
