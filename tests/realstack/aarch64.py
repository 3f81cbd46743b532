"""A Pi's aarch64 Python headers, from Debian's own packages, for the cross compiler.

`python_headers(release, "3.13")` is the include folder of libpython3.13-dev for arm64
of that Debian release (Raspberry Pi OS Trixie and Bookworm are built on them),
extracted with mmdebstrap (`--variant=extract`: the packages and what they need are
unpacked, nothing is run, so no aarch64 emulation) into the cache, once.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .images import CACHE
from .rootcache import as_root, locked

MIRROR = "http://deb.debian.org/debian"


def python_headers(release: str, python: str) -> Path:
    """The folder with Python.h, in a sysroot of that release for arm64 (its libc, its
    pyconfig.h in usr/include/aarch64-linux-gnu/pythonX.Y): `--sysroot` is three up."""
    folder = CACHE / f"aarch64-{release}-python{python}"
    include = folder / "usr" / "include" / f"python{python}"
    with locked(CACHE):
        if not (include / "Python.h").is_file():
            shutil.rmtree(folder, ignore_errors=True)
            package = f"--include=libpython{python}-dev"
            command = ["mmdebstrap", "--quiet", "--variant=extract", "--architectures=arm64",
                       package, release, str(folder), MIRROR]  # fmt: skip
            done = subprocess.run(as_root(command), capture_output=True, text=True, timeout=900)
            assert done.returncode == 0, f"mmdebstrap failed: {done.stderr[-3000:]}"
            for top in ("lib", "bin", "sbin"):  # merged /usr, as an installed system has it
                if not (folder / top).exists() and (folder / "usr" / top).is_dir():
                    (folder / top).symlink_to(f"usr/{top}")
    return include
