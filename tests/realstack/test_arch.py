"""The Pi's architecture (issue 36, item 3): every dependency of the box installs on a
Pi's aarch64 Python, 3.13 (Raspberry Pi OS Trixie) and 3.11 (Bookworm), from a wheel on
PyPI or from Raspberry Pi OS's own packages (lgpio: install.sh's python3-lgpio), so that
nothing is compiled on a Zero 2 W but the box's own C loop; and that loop,
live/_sendall.c, compiles with Debian's aarch64 cross compiler, warnings as errors,
against each release's own aarch64 Python headers.

pip is asked for the wheels as a Pi's pip would take them (`pip download --platform
manylinux_2_N_aarch64 ... --only-binary :all:`, N from the release's glibc); the test
names every requirement that has none. Nothing here runs on aarch64: these are the
packages' tags and a cross compiler's verdict, not a run on a Pi.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from .aarch64 import python_headers

pytestmark = [pytest.mark.realstack, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
SENDALL = REPO / "host" / "buzzerbox" / "live" / "_sendall.c"
INSTALL_SH = REPO / "host" / "buzzerbox" / "appliance" / "install.sh"
#: Raspberry Pi OS: its Python, its release, its glibc (the manylinux tags it takes)
PI_OS = {"3.13": ("trixie", 41), "3.11": ("bookworm", 36)}
#: what install.sh takes from Raspberry Pi OS's archive, not from pip
FROM_PI_OS = {"lgpio": "python3-lgpio"}
EM_AARCH64 = 183  # an ELF file's e_machine for aarch64


def name_of(requirement: str) -> str:
    found = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert found, requirement
    return found.group(0).lower().replace("_", "-")


def requirements() -> list[str]:
    """What pip installs into the box's venv: the package's dependencies and the `pi`
    extra's (install.sh installs mpremote by pip; lgpio comes from Pi OS)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["pi"]]
    return [r for r in wanted if name_of(r) not in FROM_PI_OS]


def pip_download(python: str, reqs: list[str], into: Path) -> subprocess.CompletedProcess[str]:
    _, glibc = PI_OS[python]
    tag = python.replace(".", "")
    platforms = [f"manylinux_2_{n}_aarch64" for n in range(glibc, 16, -1)]
    args = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check"]
    args += ["--only-binary", ":all:", "--implementation", "cp", "--python-version", python]
    args += ["--abi", f"cp{tag}", "--abi", "abi3", "--abi", "none"]
    for platform in [*platforms, "manylinux2014_aarch64"]:
        args += ["--platform", platform]
    return subprocess.run(
        [*args, "--dest", str(into), *reqs], capture_output=True, text=True, timeout=600
    )


def test_install_sh_takes_lgpio_from_pi_os() -> None:
    """What this test leaves to Raspberry Pi OS is what install.sh asks apt for."""
    apt_line = re.search(r"apt-get install[^\n]*\n[^\n]*", INSTALL_SH.read_text())
    assert apt_line, "install.sh has no apt-get install"
    for package in FROM_PI_OS.values():
        assert package in apt_line.group(0)


@pytest.mark.parametrize("python", sorted(PI_OS))
def test_every_dependency_has_an_aarch64_wheel(python: str, tmp_path: Path) -> None:
    reqs = requirements()
    done = pip_download(python, reqs, tmp_path / "all")
    if done.returncode != 0:  # name every requirement without one, not just pip's first
        missing = [r for r in reqs if pip_download(python, [r], tmp_path / "one").returncode]
        pytest.fail(
            f"no aarch64 wheel for Python {python} (Raspberry Pi OS {PI_OS[python][0]}): "
            f"{missing or 'see pip'}; pip said:\n{done.stderr[-3000:]}"
        )
    wheels = sorted(p.name for p in (tmp_path / "all").iterdir())
    assert all(w.endswith(".whl") for w in wheels), wheels
    built = [w for w in wheels if not w.endswith("-none-any.whl")]
    assert all("aarch64" in w for w in built), built
    # the box's own dependencies are all there, by name
    names = {name_of(w.split("-")[0]) for w in wheels}
    assert {name_of(r) for r in reqs} <= names


@pytest.mark.parametrize("python", sorted(PI_OS))
def test_the_c_loop_cross_compiles_for_aarch64(python: str, tmp_path: Path) -> None:
    release, _ = PI_OS[python]
    include = python_headers(release, python)
    out = tmp_path / "_sendall.so"
    sysroot = include.parents[2]  # the release's arm64 libc and Python, as on the Pi
    command = ["aarch64-linux-gnu-gcc", f"--sysroot={sysroot}", "-Wall", "-Werror", "-O2",
               "-fPIC", "-shared", "-I", str(include), str(SENDALL), "-o", str(out)]  # fmt: skip
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    head = out.read_bytes()[:20]
    assert head[:4] == b"\x7fELF" and int.from_bytes(head[18:20], "little") == EM_AARCH64
