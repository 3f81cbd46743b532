"""Start-up: what each command loads, and how soon `buzzerbox serve` answers.

    python3 tests/bench/startup.py [--repeat 5]

1. For `buzzerbox --help`, `buzzerbox serve --help`, `buzzerbox replay <example>` and
   the `serve` command itself: the modules loaded (sys.modules in a fresh interpreter)
   and the median wall time of the command (fresh interpreter each run).
2. `buzzerbox serve` (a simulated box, 1,000 phones allowed): the time from starting
   the process to its first answer to GET /api/state (goal <= 0.5 s), the CPU it
   took till then (user + system: the figure that does not depend on what else runs
   on the machine), and the threads it runs then (waitress's start on demand).

Bytecode is cached as on an installed box (PYTHONDONTWRITEBYTECODE is dropped for the
commands, and one run warms the cache before the timed ones).

Not collected by pytest; it prints figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import buzzerbox

EXAMPLE = Path(buzzerbox.__file__).parent / "examples" / "twist.jsonl"
GOAL_S = 0.5
HEAVY = ("flask", "werkzeug", "waitress", "paho", "gpiozero", "zeroconf", "segno")
COUNT = """
import contextlib, io, json, sys
from buzzerbox.cli import build_parser, main
argv = sys.argv[1:]
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        if argv == ["serve"]:  # what serve loads before it listens
            import buzzerbox.web, buzzerbox.server.listen, buzzerbox.box
        else:
            main(argv)
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""


#: bytecode cached as on an installed box, kept outside the source tree
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "buzzerbox-bench-pycache")


def modules(args: list[str]) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", COUNT, *args], capture_output=True, text=True, check=True, env=ENV
    )
    return list(json.loads(out.stdout.splitlines()[-1]))


def wall(args: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat + 1):  # the first warms the bytecode cache
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "buzzerbox", *args], capture_output=True, env=ENV)
        times.append(time.perf_counter() - t0)
    return statistics.median(times[1:])


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve_answers(repeat: int) -> tuple[float, float, int]:
    """(median s from the process's start to its first answer, median CPU s till
    then, threads then)."""
    times, cpus, threads = [], [], 0
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            command = [sys.executable, "-m", "buzzerbox", "serve", "--host", "127.0.0.1",
                       "--port", "0", "--data", tmp, "--max-phones", "1000"]  # fmt: skip
            proc = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV
            )
            try:
                assert proc.stdout is not None
                port = 0
                for line in proc.stdout:
                    if found := re.search(r"open http://127\.0\.0\.1:(\d+)/", line):
                        port = int(found.group(1))
                        break
                while True:  # the socket listens before the server loop runs: ask
                    try:
                        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                        conn.request("GET", "/api/state")
                        if conn.getresponse().status == 200:
                            break
                    except OSError:
                        time.sleep(0.002)
                times.append(time.perf_counter() - t0)
                cpus.append(cpu_s(proc.pid))
                conn.close()
                status = Path(f"/proc/{proc.pid}/status").read_text()
                threads = int(re.search(r"Threads:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
            finally:
                proc.terminate()
                proc.wait(10)
                if proc.stdout is not None:
                    proc.stdout.close()
    return statistics.median(times), statistics.median(cpus), threads


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"# python {sys.version.split()[0]} ({platform.python_implementation()}), "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")  # fmt: skip
    for command in (["--help"], ["serve", "--help"], ["replay", str(EXAMPLE)], ["serve"]):
        loaded = modules(command)
        heavy = sorted({m.split(".")[0] for m in loaded} & set(HEAVY))
        name = " ".join(c if c != str(EXAMPLE) else "examples/twist.jsonl" for c in command)
        timing = "" if command == ["serve"] else f", {wall(command, args.repeat):.2f} s"
        heavy_names = ", ".join(heavy) or "none"
        print(f"buzzerbox {name}: {len(loaded)} modules{timing}; heavy: {heavy_names}")
    seconds, cpu, threads = serve_answers(args.repeat)
    verdict = "meets" if seconds <= GOAL_S else "misses"
    print(
        f"serve: first answer {seconds:.2f} s after start, {cpu:.2f} s of CPU till then "
        f"(medians of {args.repeat}), {threads} threads then; goal <= {GOAL_S} s: {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
