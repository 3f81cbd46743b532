"""The comparison servers beside limit.c (issue 40: "aiohttp, Flask on gevent and a C
epoll server"): peer_aiohttp.py and peer_gevent.py, this repository's own minimal SSE
servers written to the issue's description, not the issue filer's harness. Each does
what limit.c does: one message of ~500 B to every phone per event, an event a line on
its stdin (tests/bench/limit.py's `limit_events` sends them).

They run in a venv of their own, made here on first use with pip from PyPI at the
pinned versions (PINS), under ~/.cache/buzzerbox-bench-peers-<key>, keyed by the pins
and the Python that made it: never the project's venv nor its dev extras (the box does
not depend on them, and no test uses them)."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: what the comparison servers run on, pinned: a figure names the versions it ran
PINS = ("aiohttp==3.14.5", "gevent==26.9.0", "flask==3.1.3")
#: the comparison servers by name: their script in tests/bench
SERVERS = {"aiohttp": HERE / "peer_aiohttp.py", "gevent": HERE / "peer_gevent.py"}


def venv_dir() -> Path:
    """The bench's venv for the pins and this Python (which makes it)."""
    python = f"{sys.implementation.name}{sys.version_info[0]}.{sys.version_info[1]}"
    key = hashlib.sha256("\n".join((python, *PINS)).encode()).hexdigest()[:12]
    return Path.home() / ".cache" / f"buzzerbox-bench-peers-{python}-{key}"


def bench_python() -> Path:
    """The venv's python, the venv made first if it is not there (or half made)."""
    folder = venv_dir()
    python, ready = folder / "bin" / "python", folder / "ready"
    if not ready.exists():
        shutil.rmtree(folder, ignore_errors=True)
        print(f"# making {folder}: {' '.join(PINS)} from PyPI", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, *PINS], check=True)
        ready.write_text("\n".join(PINS) + "\n")
    return python


def start_peer(kind: str, preexec: Any = None) -> tuple[Any, int]:
    """The comparison server `kind` (aiohttp, gevent) started: (process, port)."""
    proc = subprocess.Popen(
        [str(bench_python()), str(SERVERS[kind]), "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=preexec,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.strip().isdigit():
        raise SystemExit(f"FAIL: the {kind} server did not start ({proc.wait(10)})")
    return proc, int(line)
