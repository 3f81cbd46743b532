"""The real-stack tier's disks, built once and kept in ~/.cache/buzzerbox-trixie.

`trixie_root()`: root.sh's Trixie root (folder `root-KEY`, KEY from root.sh and
guest/): the kernel, its initrd, the ext4 disk, the login key.

`installed_box()`: that root after `install.sh` ran in it for real, booted under qemu
(`installed-KEY.qcow2` over the root's disk, KEY from the root's and from everything
install.sh installs: the package's files, install.sh, the pad map): its output is kept
beside it (`installed-KEY.log`). After the install the box was stopped, its data folder
removed and the VM shut down cleanly: a card made ready for the venue, on which the box
has never started (every VM booted from it is the box's first start).

A build runs under a lock (two test runs at once build it once); older builds are
removed when a new one is made. `python -m tests.realstack.images` builds both and
prints where (tests/check runs it before pytest, as it installs Home Assistant).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from .rootcache import as_root, locked
from .vm import Image, Vm, overlay

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CACHE = Path(os.environ.get("BUZZERBOX_TRIXIE_CACHE", Path.home() / ".cache" / "buzzerbox-trixie"))
PADS = "hardware/builds/twinit-gpio/pads.toml"
NAME = "table-07"
CLONE = "/home/pi/buzzerbox"
INSTALL = f"cd {CLONE} && bash host/buzzerbox/appliance/install.sh --name {NAME} --pads {PADS}"
"""The install, as hardware/README.md says it (run as root, as with sudo)."""
DATA = "/var/lib/buzzerbox"


def digest(paths: Iterable[Path], *, root: Path) -> str:
    """A short hash of the files (their paths under `root` and their bytes)."""
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(str(path.relative_to(root)).encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@functools.cache
def root_key() -> str:
    return digest([HERE / "root.sh", *(HERE / "guest").iterdir()], root=HERE)


def clone_files() -> list[Path]:
    """The files a clone of the repo has (tracked, and new ones not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    paths = (REPO / os.fsdecode(name) for name in listed if name)
    return [p for p in paths if p.is_file() and not p.is_symlink()]


@functools.cache
def installed_key() -> str:
    """What the install depends on: the root, install.sh and what pip builds (the
    package's files), the pad map. Once per run: docs edited meanwhile change nothing."""
    tops = {"host", "firmware", "pyproject.toml"}
    inputs = [p for p in clone_files() if p.relative_to(REPO).parts[0] in tops]
    inputs.append(REPO / PADS)
    return root_key() + "-" + digest([*inputs, HERE / "images.py"], root=REPO)


def prune(keep: tuple[str, ...]) -> None:
    """Remove the cache's older roots and installs (those not named from `keep`)."""
    for path in CACHE.iterdir():
        if not path.name.startswith(("root-", "installed-")) or path.name.startswith(keep):
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def build_root(folder: Path) -> None:
    work = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(work, ignore_errors=True)
    log = folder.with_name(folder.name + ".build.log")
    start = time.monotonic()
    # run from a copy: bash reads a script as it goes, and an edit would change its course
    scripts = folder.with_name(folder.name + ".scripts")
    shutil.rmtree(scripts, ignore_errors=True)
    scripts.mkdir()
    shutil.copy(HERE / "root.sh", scripts)
    shutil.copytree(HERE / "guest", scripts / "guest")
    with log.open("wb") as out:
        done = subprocess.run(
            as_root(["bash", str(scripts / "root.sh"), str(work)]),
            stdout=out,
            stderr=out,
            check=False,
        )
    shutil.rmtree(scripts, ignore_errors=True)
    if done.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-30:]
        raise RuntimeError(f"root.sh failed (exit {done.returncode}), {log}:\n" + "\n".join(tail))
    (work / "seconds").write_text(f"{time.monotonic() - start:.0f}\n")
    work.rename(folder)


def trixie_root() -> Image:
    """The Trixie root, built if it is not in the cache."""
    folder = CACHE / f"root-{root_key()}"
    with locked(CACHE):
        if not (folder / "disk.img").is_file():
            build_root(folder)
    return Image(folder)


def install(image: Image, disk: Path, log: Path) -> None:
    """Boot `disk`, copy the clone in, run install.sh as the README says, power off."""
    vm = Vm(image, disk, log=log.with_name(log.name + ".console"))
    vm.boot()
    try:
        vm.put_tree(REPO, CLONE, exclude=(".git", ".venv*", "node_modules", "*.egg-info", "build"))
        vm.ssh(f"chown -R pi:pi {CLONE}")
        start = time.monotonic()
        done = vm.ssh(f"{INSTALL} 2>&1", timeout=1800, check=False)
        log.write_text(
            f"$ {INSTALL}\n{done.stdout}\n[exit {done.returncode}, "
            f"{time.monotonic() - start:.0f} s]\n"
        )
        if done.returncode != 0:
            raise RuntimeError(f"install.sh failed in the VM (exit {done.returncode}): {log}")
        vm.wait_console(r"buzzerbox: admin PIN \d+", 900)  # the box started, and listens
        # shipped as a card made for the venue: the box has never started on it
        vm.ssh(f"systemctl stop buzzerbox && rm -rf {DATA}")
    except BaseException:
        vm.cut()
        raise
    vm.shutdown()


def installed_log() -> Path:
    """What install.sh printed when the cached installed box was made."""
    return CACHE / f"installed-{installed_key()}.log"


def installed_pin() -> str:
    """The admin PIN install.sh made (box.toml keeps it: the same at every boot)."""
    found = re.search(r"^admin PIN: (\d+) ", installed_log().read_text(), re.M)
    assert found, f"no admin PIN in {installed_log()}"
    return found.group(1)


def installed_box() -> tuple[Image, Path]:
    """The root and the disk with the box installed on it, made if not in the cache."""
    image = trixie_root()
    key = installed_key()
    disk = CACHE / f"installed-{key}.qcow2"
    with locked(CACHE):
        if not disk.is_file():
            work = CACHE / f"installed-{key}.tmp.qcow2"
            work.unlink(missing_ok=True)
            install(image, overlay(image.disk, work), CACHE / f"installed-{key}.log")
            work.rename(disk)
            prune((image.folder.name, f"installed-{key}"))
    return image, disk


def main() -> int:
    if sys.argv[1:] == ["--root"]:  # in-trixie.sh: the root only
        print(trixie_root().folder)
        return 0
    image, disk = installed_box()
    print(f"the Trixie root: {image.folder}\nthe installed box: {disk}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
