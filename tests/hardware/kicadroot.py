"""KiCad's kicad-cli for the schematic tests (test_kicad.py): KiCad 9 from Debian
Trixie in a root of its own (kicad/root.sh, built by mmdebstrap once and kept in
~/.cache/buzzerbox-kicad, keyed by root.sh), run with chroot as root (sudo -n when
the tests are not root): built and run as the real-stack tier's roots are, with its
lock and sudo (tests/realstack/rootcache.py).

`python3 tests/hardware/kicadroot.py` builds the root if it is not in the cache and
prints where it is: tests/check runs it before the suite, so that neither Python's run
of the suite spends its minutes on mmdebstrap.

The root: 826 MB, kicad-cli 9.0.2, built in 400 s on the 2 shared cores of the
development machine (a load of about 29); cached, test_kicad.py's 13 tests took 8.6 s
there (load 14)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

# the lock and sudo of the real-stack tier's roots: tests/realstack is a package of
# tests/, on the path under pytest (and put there when this runs as a script); mypy
# names the modules from the repo's top
if TYPE_CHECKING:
    from tests.realstack.rootcache import as_root, locked
else:
    if __name__ == "__main__":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from realstack.rootcache import as_root, locked

HERE = Path(__file__).resolve().parent
ROOT_SH = HERE / "kicad" / "root.sh"
CACHE = Path(os.environ.get("BUZZERBOX_KICAD_CACHE", Path.home() / ".cache" / "buzzerbox-kicad"))


def root_key() -> str:
    return hashlib.sha256(ROOT_SH.read_bytes()).hexdigest()[:16]


def build(folder: Path) -> None:
    """Run root.sh (from a copy: bash reads a script as it goes) into `folder`."""
    work = folder.with_name(folder.name + ".tmp")
    subprocess.run(as_root(["rm", "-rf", str(work)]), check=True)
    log = folder.with_name(folder.name + ".build.log")
    script = folder.with_name(folder.name + ".root.sh")
    shutil.copy(ROOT_SH, script)
    start = time.monotonic()
    with log.open("wb") as out:
        done = subprocess.run(
            as_root(["bash", str(script), str(work)]), stdout=out, stderr=out, check=False
        )
    script.unlink()
    if done.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-30:]
        raise RuntimeError(f"root.sh failed (exit {done.returncode}), {log}:\n" + "\n".join(tail))
    (work / "seconds").write_text(f"{time.monotonic() - start:.0f}\n")
    work.rename(folder)
    for old in CACHE.glob("root-*"):
        if not old.name.startswith(folder.name):
            subprocess.run(as_root(["rm", "-rf", str(old)]), check=False)


@dataclass(frozen=True)
class KicadCli:
    """kicad-cli in the Trixie root at `root`."""

    root: Path

    def run(self, args: list[str], files: dict[str, str]) -> dict[str, str]:
        """Write `files` in a fresh folder of the root, run ``kicad-cli ARGS`` there;
        every file of the folder afterwards (what kicad-cli wrote among them)."""
        name = f"buzzerbox-{uuid.uuid4().hex}"
        inside = Path("/tmp") / name
        folder = self.root / "tmp" / name
        subprocess.run(as_root(["install", "-d", "-m", "0777", str(folder)]), check=True)
        try:
            for file, text in files.items():
                (folder / file).write_text(text, encoding="utf-8")
            command = ["chroot", str(self.root), "env", f"--chdir={inside}", "HOME=/tmp"]
            done = subprocess.run(
                as_root([*command, "kicad-cli", *args]),
                capture_output=True,
                text=True,
                check=False,
            )
            assert done.returncode == 0, f"kicad-cli {' '.join(args)}:\n{done.stdout}{done.stderr}"
            return {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir()}
        finally:
            subprocess.run(as_root(["rm", "-rf", str(folder)]), check=False)


def kicad_root() -> Path:
    """The root with kicad-cli, built if it is not in the cache (some minutes)."""
    folder = CACHE / f"root-{root_key()}"
    with locked(CACHE):
        if not (folder / "version").is_file():
            build(folder)
    return folder / "root"


if __name__ == "__main__":
    print(kicad_root())
