"""A party-sized soak: emulated pad boards pressing steadily, a room full of phones.

Starts a real `buzzerbox serve --config` whose pad map names four fake pad boards (two
on ptys, two on TCP) that run in a process of their own (tests/faults/boardproc.py),
opens `--phones` live streams (one thread reads them all, as tests/bench/phones.py
does), starts Ligretto Twist for four and then presses and releases pile pads at
`--rate` edges per second, spread over the boards, for `--minutes`. Each minute it
prints the edges sent, the edges decided (in the box's log), the p50/p95/max latency
from a pad's contact (the board's true time) to the moment a phone had the state with
that edge (measured on `--probes` of the phones; the others only read), the box's RSS
and CPU, and phones that had to reconnect (a stream ends after 7.5-10 min, as a browser
would reconnect). Goal: no latency growth, flat memory.

    python tests/bench/soak.py --minutes 10 [--rate 200] [--phones 200]

Not collected by pytest; it prints figures. Loopback only, bounded in count and time.
The log stays on disk (every edge waits for fsync), in a temporary folder.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import os
import re
import resource
import selectors
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.bench.boxdrive import Admin
from tests.bench.streams import READ_BYTES, Phones
from tests.faults.boardproc import BoardProcess

PIN = "2468"
BOARDS = {"pico-a": "pty", "pico-b": "tcp", "pico-c": "pty", "pico-d": "tcp"}
PILES = 2  # pile pads per board: its seat's piles 2*seat, 2*seat + 1
Key = tuple[int, int, int]  # seat, pile, state


def now_us() -> int:
    return time.monotonic_ns() // 1000


class Room(Phones):
    """The phones: every one reads; the first `probes` note when each state came
    (host µs, only the first time each seq or a later one is seen)."""

    def __init__(self, port: int, probes: int) -> None:
        super().__init__(port)
        self.probes = probes
        self.seen: dict[int, list[tuple[int, int]]] = {}  # fd -> [(seq, µs)], this window
        self.reconnects = 0
        self._probe_fds: set[int] = set()

    def open(self, n: int, timeout: float = 60.0) -> None:
        super().open(n, timeout)
        with self.lock:  # in place: the reader thread holds these
            self._probe_fds.update(s.fileno() for s in self.socks[: self.probes])
            self.seen.update({fd: [] for fd in self._probe_fds})

    def reconnect(self, old: socket.socket) -> None:
        """A stream ended: the phone comes back at once, as a browser does."""
        with self.lock:
            fd = old.fileno()
            was_probe = fd in self._probe_fds
            self.sel.unregister(old)
            old.close()
            for table in (self.tail, self.latest, self.seen):
                table.pop(fd, None)
            self._probe_fds.discard(fd)
            self.reconnects += 1
            sock = socket.create_connection(("127.0.0.1", self.port))
            sock.sendall(b"GET /api/events HTTP/1.0\r\nHost: soak\r\n\r\n")
            sock.setblocking(False)
            self.sel.register(sock, selectors.EVENT_READ)
            self.socks.append(sock)
            fd = sock.fileno()
            self.tail[fd] = b""
            if was_probe:
                self._probe_fds.add(fd)
                self.seen[fd] = []

    def run(self) -> None:
        latest, tail, seen, probes = self.latest, self.tail, self.seen, self._probe_fds
        while not self.stop:
            for key, _ in self.sel.select(0.1):
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                fd = key.fd
                try:
                    data = sock.recv(READ_BYTES)
                except (BlockingIOError, ConnectionResetError):
                    continue
                except OSError:  # closed at the end
                    return
                if not data:
                    self.reconnect(sock)
                    continue
                data = tail[fd] + data
                at = data.rfind(b"id: ")
                end = data.find(b"\n", at)
                if at < 0 or end < 0:
                    tail[fd] = data[-32:]
                    continue
                tail[fd] = data[end:][-32:]
                top = int(data[at + 4 : end].split(b".")[0])
                if top > latest.get(fd, -1):
                    latest[fd] = top
                    if fd in probes:
                        with self.lock:
                            seen[fd].append((top, now_us()))
            if self.nap:
                time.sleep(self.nap)

    def had(self, fd: int, seq: int) -> int | None:
        """When probe `fd` first had the state with `seq` or a later one."""
        arrivals = self.seen.get(fd, [])
        i = bisect.bisect_left(arrivals, (seq, -1))
        return arrivals[i][1] if i < len(arrivals) else None

    def forget_before(self, seq: int) -> None:
        with self.lock:
            for fd, arrivals in self.seen.items():
                i = bisect.bisect_left(arrivals, (seq, -1))
                self.seen[fd] = arrivals[max(i - 1, 0) :]


def pad_map(urls: dict[str, str]) -> str:
    lines = [f"seats = {len(BOARDS)}", f"piles = {PILES * len(BOARDS)}"]
    for board in BOARDS:
        lines += ["[[board]]", f'id = "{board}"', f'url = "{urls[board]}"']
    for seat, board in enumerate(BOARDS):
        for ch in range(PILES):
            lines += ["[[pad]]", 'role = "pile"', f"seat = {seat}", f"pile = {PILES * seat + ch}"]
            lines += [f'board = "{board}"', f"ch = {ch}"]
    return "\n".join(lines) + "\n"


def start_box(folder: Path, urls: dict[str, str], phones: int) -> tuple[subprocess.Popen[str], int]:
    (folder / "pads.toml").write_text(pad_map(urls))
    config = folder / "box.toml"
    config.write_text('countdown_s = 0.2\n[pads]\nmap = "pads.toml"\n')
    command = [sys.executable, "-m", "buzzerbox", "serve", "--config", str(config),
               "--host", "127.0.0.1", "--port", "0", "--data", str(folder / "data"),
               "--pin", PIN, "--max-phones", str(phones + 16)]  # fmt: skip
    box = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert box.stdout is not None and box.stderr is not None
    threading.Thread(target=drain, args=(box.stderr,), daemon=True).start()
    for line in box.stdout:
        if found := re.search(r"open http://127\.0\.0\.1:(\d+)/", line):
            threading.Thread(target=drain, args=(box.stdout,), daemon=True).start()
            return box, int(found.group(1))
    raise RuntimeError("buzzerbox serve did not start")


def drain(stream: Any) -> None:
    for _ in stream:
        pass


class Edges:
    """`rate` edges/s on the boards, scheduled a little ahead; what was sent, by pad."""

    def __init__(self, boards: BoardProcess, rate: int) -> None:
        self.boards, self.gap_us = boards, 1_000_000 * 2 // rate  # a press and its release
        self.until = now_us()
        self.k = 0
        self.truths: dict[Key, collections.deque[int]] = collections.defaultdict(collections.deque)
        self.taken = {board: 0 for board in BOARDS}

    def ahead(self, us: int = 200_000) -> None:
        start = max(self.until, now_us())
        while self.until < now_us() + us:
            seat = self.k % len(BOARDS)
            board = list(BOARDS)[seat]
            at = max(self.until - now_us(), 0)
            self.boards.at(at, board, self.k // len(BOARDS) % PILES, 1)
            self.boards.at(at + self.gap_us // 2, board, self.k // len(BOARDS) % PILES, 0)
            self.until, self.k = max(self.until, start) + self.gap_us, self.k + 1
        self.boards.flush()

    def collect(self) -> None:
        """Take what the boards report they sent since last time."""
        for board, edges in self.boards.sent().items():
            seat = list(BOARDS).index(board)
            for ch, state, t in edges[self.taken[board] :]:
                self.truths[(seat, PILES * seat + ch, state)].append(t)
            self.taken[board] = len(edges)


class Log:
    """The box's log, read-only (WAL: the box is never blocked): new pad edges by seq."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        self.last = 0

    def new_edges(self) -> list[tuple[int, Key]]:
        rows = self.db.execute(
            "SELECT seq, json_extract(body, '$.type'), json_extract(body, '$.seat'), "
            "json_extract(body, '$.pile') FROM events WHERE seq > ? ORDER BY seq",
            (self.last,),
        ).fetchall()
        if rows:
            self.last = rows[-1][0]
        edges = [r for r in rows if r[1] in ("press", "release")]
        return [(r[0], (r[2], r[3], int(r[1] == "press"))) for r in edges]


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def quantile_ms(ordered: list[int], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1000 if ordered else 0.0


def minute_report(minute: int, stats: dict[str, Any], pid: int, cpu0: float, room: Room) -> None:
    lags = sorted(stats["lags"])
    p50, p95, top = (quantile_ms(lags, q) for q in (0.5, 0.95, 1.0))
    print(
        f"{minute:>6} {stats['sent']:>7} {stats['decided']:>8} {stats['presses']:>8} "
        f"{p50:>7.1f} {p95:>7.1f} {top:>8.1f} {rss_mib(pid):>8.1f} "
        f"{100 * (cpu_s(pid) - cpu0) / 60:>5.0f}% {room.reconnects:>5}",
        flush=True,
    )


def soak(minutes: float, rate: int, n_phones: int, probes: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        boards = BoardProcess(*(f"{b}:{kind}" for b, kind in BOARDS.items()))
        box, port = start_box(folder, boards.urls, n_phones)
        room = Room(port, probes)
        try:
            reader = threading.Thread(target=room.run, daemon=True)
            reader.start()
            room.open(n_phones)
            admin = Admin(port, PIN)
            admin.post("/api/game", {"game": "twist", "players": ["Ann", "Ben", "Cem", "Dan"]})
            admin.post("/api/event", {"type": "round"})
            log = Log(folder / "data" / "buzzerbox.db")
            edges = Edges(boards, rate)
            print(f"# {os.cpu_count()} cores; {n_phones} phones ({probes} timed), {rate} edges/s,"
                  f" {len(BOARDS)} boards; latency: pad contact -> phone (ms)")  # fmt: skip
            print(" minute    sent  decided  presses     p50     p95      max  RSS MiB   CPU  reco")
            end = time.monotonic() + minutes * 60
            pending: collections.deque[tuple[int, int]] = collections.deque()  # (seq, true µs)
            minute, minute_end, cpu0 = 1, time.monotonic() + 60, cpu_s(box.pid)
            stats: dict[str, Any] = {"sent": 0, "decided": 0, "presses": 0, "lags": []}
            sent_before = 0
            while time.monotonic() < end:
                edges.ahead()
                time.sleep(0.1)
                decided = log.new_edges()  # first: every edge in it was sent before
                edges.collect()
                for seq, key in decided:
                    pending.append((seq, edges.truths[key].popleft()))
                    stats["decided"] += 1
                    stats["presses"] += key[2]
                seen_by_all = min((room.latest.get(fd, 0) for fd in list(room.seen)), default=0)
                while pending and pending[0][0] <= seen_by_all:
                    seq, true_us = pending.popleft()
                    for fd in room.seen:
                        had = room.had(fd, seq)
                        if had is not None:
                            stats["lags"].append(had - true_us)
                room.forget_before(pending[0][0] if pending else seen_by_all)
                if time.monotonic() >= minute_end or time.monotonic() >= end:
                    sent = sum(edges.taken.values())
                    stats["sent"], sent_before = sent - sent_before, sent
                    minute_report(minute, stats, box.pid, cpu0, room)
                    stats = {"sent": 0, "decided": 0, "presses": 0, "lags": []}
                    minute, minute_end, cpu0 = minute + 1, minute_end + 60, cpu_s(box.pid)
        finally:
            room.close()
            box.kill()
            box.wait(10)
            boards.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--rate", type=int, default=200, help="pad edges per second")
    parser.add_argument("--phones", type=int, default=200)
    parser.add_argument("--probes", type=int, default=20, help="phones whose latency is taken")
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    soak(args.minutes, args.rate, args.phones, min(args.probes, args.phones))
    return 0


if __name__ == "__main__":
    sys.exit(main())
