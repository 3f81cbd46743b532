"""A party: 1,000 live-stream connects and disconnects (some hang up at once, some after
a state or three, some with a reset) and a few phones that never read, while two pad
boards (in a process of their own, as real boards) press and release all along. The pads
are still decided in their true order at their true times and shown on time to the
phones that read; every phone that asks is served; a phone that slept is brought up to
date; the box's memory and open files stay flat.

Times are checked once the boards' clock maps have settled (after the warm-up): in the
first second after a board comes online while the box is busy starting, its map may be
off by up to half the slow SYNC round trips of that moment (seen: 12 ms).
"""

from __future__ import annotations

import itertools
import json
import socket
import statistics
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .boardproc import BoardProcess
from .boxproc import Phone, Refused, ServedBox, sse_connect, sse_ids, start_box, write_config

WARM_UP = 3000  # phones before memory is measured: server threads, arenas, caches warm
CONNECTS = 1000
CHURNERS = 4
SLEEPERS = 5  # phones that never read
WATCHERS = 3  # phones that read every state
EDGE_GAP_US = 40_000
TOLERANCE_US = 5_000  # a decided time against the board's true time
ON_TIME_P95_US = 150_000  # from the contact to the phone that reads
ON_TIME_MAX_US = 1_000_000
RSS_GROWTH_KIB = 2048  # a leak of one socket buffer or channel per phone is more
PAD_MAP = (  # no release hold: the edges are a machine's, every one must count
    "seats = 2\npiles = 4\n[release_ms]\npile = 0\n"
    + "".join(f'[[board]]\nid = "pico-{b}"\nurl = "{{{b}}}"\n' for b in "ab")
    + "".join(
        f'[[pad]]\nrole = "pile"\nseat = {s}\npile = {p}\nboard = "pico-{b}"\nch = {p}\n'
        for s, b in enumerate("ab")
        for p in range(4)
    )
)
Logged = tuple[int, int, int, int, int]  # seq, seat, pile, state, t_us


@pytest.fixture
def boards() -> Iterator[BoardProcess]:
    process = BoardProcess("pico-a:tcp", "pico-b:pty")
    yield process
    process.close()


@pytest.fixture
def served(boards: BoardProcess, data: Path, tidy: list[Any]) -> ServedBox:
    (data.parent / "pads.toml").write_text(
        PAD_MAP.format(a=boards.urls["pico-a"], b=boards.urls["pico-b"])
    )
    config = write_config(data.parent, 'countdown_s = 0.05\n[pads]\nmap = "pads.toml"\n')
    box = start_box(data, "--max-phones", "48", config=config)
    tidy.append(box)
    box.wait_log("pad board pico-a is online", "pad board pico-b is online")
    return box


class Watcher:
    """A phone that reads every state (from now on, if it slept): when it first had each
    seq, on the host timeline (µs)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.seen: dict[int, int] = {}
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self) -> None:
        try:
            for seq in sse_ids(self.sock):
                self.seen.setdefault(seq, time.monotonic_ns() // 1000)
        except OSError:
            pass

    def had(self, seq: int) -> int:
        """When it first had the state with `seq` or a later one (the stream skips ahead)."""
        return min(t for s, t in self.seen.items() if s >= seq)

    def latest(self) -> int:
        return max(self.seen, default=0)

    def close(self) -> None:
        self.sock.close()


class Edges:
    """Presses and releases on both boards, one every EDGE_GAP_US, scheduled a little
    ahead at a time; every fourth press on one board comes 3 ms after one on the other."""

    def __init__(self, boards: BoardProcess) -> None:
        self.boards = boards
        self.count = 0
        self._k = 0
        self._until = time.monotonic_ns() // 1000  # scheduled up to here (host µs)

    def ahead(self, us: int) -> None:
        """Schedule the edges of the stretch up to `us` from now."""
        now = time.monotonic_ns() // 1000
        start = max(self._until, now)
        for t in range(start - now, now + us - now, EDGE_GAP_US):
            k, self._k = self._k, self._k + 1
            board, other = ("pico-a", "pico-b") if k % 2 == 0 else ("pico-b", "pico-a")
            self.at(t, board, k % 4, EDGE_GAP_US // 2)
            if k % 4 == 0:
                self.at(t + 3_000, other, 3, EDGE_GAP_US // 4)
            self._until = now + t + EDGE_GAP_US
        self.boards.flush()

    def at(self, t: int, board: str, ch: int, hold: int) -> None:
        self.boards.at(t, board, ch, 1)
        self.boards.at(t + hold, board, ch, 0)
        self.count += 2


def churn(port: int, count: int, outcomes: list[str]) -> None:
    """`count` phones, one after another: each connects and leaves in its own way."""
    for i in range(count):
        sock = sse_connect(port)
        try:
            if i % 4 == 0:
                outcomes.append("left at once")
                continue
            ids = sse_ids(sock)
            next(ids)
            if i % 4 == 2:  # stays for two more states
                next(ids)
                next(ids)
            if i % 4 == 3:  # gone with a reset, not a goodbye
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            outcomes.append("served")
        except Refused as exc:
            outcomes.append(f"refused {exc.status}")
        except (OSError, StopIteration) as exc:
            outcomes.append(f"failed {exc!r}")
        finally:
            sock.close()


def crowd(port: int, count: int, edges: Edges) -> None:
    """`count` phones come and go, CHURNERS at a time, while the pads are pressed."""
    outcomes: list[str] = []
    threads = [
        threading.Thread(target=churn, args=(port, count // CHURNERS, outcomes))
        for _ in range(CHURNERS)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while alive := [thread for thread in threads if thread.is_alive()]:
        assert time.monotonic() < deadline, f"{len(outcomes)} of {count} phones in 60 s"
        edges.ahead(200_000)
        alive[0].join(0.1)
    assert len(outcomes) == count
    assert set(outcomes) == {"left at once", "served"}, sorted(set(outcomes))


def logged_edges(admin: Phone, count: int) -> list[Logged]:
    """The game's pad edges in the log, once `count` are there."""
    first = admin.state()["box"]["game_id"]  # game, round, go, then the edges: seq by seq
    admin.poll_state(lambda s: s["box"]["seq"] >= first + 2 + count, timeout=15)
    status, text = admin.call("GET", "/api/export/log")
    assert status == 200
    lines = [json.loads(line) for line in text.decode().splitlines()]
    assert [e["type"] for e in lines[:3]] == ["game", "round", "go"]
    return [
        (first + 3 + i, e["seat"], e["pile"], int(e["type"] == "press"), e["t_us"])
        for i, e in enumerate(lines[3:])
    ]


def true_times(logged: list[Logged], boards: BoardProcess) -> list[int]:
    """Each logged edge's true time (the n-th edge of a pad is its n-th in the log),
    checking that every edge the boards sent is there, once."""
    truths: dict[tuple[int, int, int], list[int]] = {}
    for seat, board in enumerate(("pico-a", "pico-b")):
        for ch, state, t in boards.sent()[board]:
            truths.setdefault((seat, ch, state), []).append(t)
    assert sorted((k, len(v)) for k, v in truths.items()) == sorted(
        (k, sum(e[1:4] == k for e in logged)) for k in truths
    ), "edges lost or doubled"
    return [truths[e[1:4]].pop(0) for e in logged]


def decided_right(logged: list[Logged], true_t: list[int]) -> None:
    """Every edge at its true time, in true order (within TOLERANCE_US)."""
    errors = sorted(e[4] - t for e, t in zip(logged, true_t, strict=True))
    assert max(map(abs, errors)) <= TOLERANCE_US, f"decided {errors[:3]}..{errors[-3:]} µs off"
    for before, after in itertools.pairwise(true_t):
        assert after >= before - 2 * TOLERANCE_US, "decided out of true order"


def seq_reached(seq: int) -> Callable[[dict[str, Any]], bool]:
    return lambda state: int(state["box"]["seq"]) >= seq


def test_a_thousand_phones_come_and_go_and_pads_are_decided_and_shown_on_time(
    served: ServedBox, boards: BoardProcess, tidy: list[Any]
) -> None:
    admin = Phone(served.port).log_in()
    tidy.append(admin)
    admin.post("/api/game", {"game": "twist", "players": ["Ann", "Ben"]})
    admin.post("/api/event", {"type": "round"})
    admin.poll_state(lambda s: s["phase"] == "playing")
    sleepers = [sse_connect(served.port, rcvbuf=4096) for _ in range(SLEEPERS)]
    watchers = [Watcher(sse_connect(served.port, timeout=30)) for _ in range(WATCHERS)]
    tidy += sleepers + watchers
    edges = Edges(boards)
    crowd(served.port, WARM_UP, edges)
    rss, fds = [served.rss_kib()], served.open_fds()
    party = time.monotonic_ns() // 1000  # the boards' maps are settled by now: see below
    crowd(served.port, CONNECTS, edges)
    rss.append(served.rss_kib())

    logged = logged_edges(admin, edges.count)
    true_t = true_times(logged, boards)
    measured = [i for i, t in enumerate(true_t) if t > party]
    decided_right([logged[i] for i in measured], [true_t[i] for i in measured])
    last = logged[-1][0]
    admin.poll_state(lambda s: all(w.latest() >= last for w in watchers), timeout=10)
    lags = [w.had(e[0]) - t for w in watchers for e, t in zip(logged, true_t, strict=True)]
    p95 = statistics.quantiles(lags, n=20)[-1]
    assert p95 <= ON_TIME_P95_US and max(lags) <= ON_TIME_MAX_US, (p95, max(lags))

    woken = [Watcher(sock) for sock in sleepers]  # each has the latest state with the
    for i in range(40):  # first change that finds it drained
        if all(w.latest() > last for w in woken):
            break
        boards.at(0, "pico-a", 0, 1 - i % 2)
        boards.flush()
        admin.poll_state(seq_reached(last + i + 1), timeout=5)
    assert all(w.latest() > last for w in woken), "a phone that slept is not brought up to date"
    admin.poll_state(lambda s: served.open_fds() <= fds, timeout=10)
    assert rss[1] - rss[0] <= RSS_GROWTH_KIB, f"RSS grew from {rss[0]} to {rss[1]} KiB"


def test_a_phone_that_hangs_up_gives_its_place_back_at_once(data: Path, tidy: list[Any]) -> None:
    """Two places for live streams; two phones come, get the state and go, and the game
    rests (no change, no keepalive due): a third phone is served, not told to come back."""
    box = start_box(data, "--max-phones", "2")
    tidy.append(box)
    for _ in range(2):
        sock = sse_connect(box.port)
        next(sse_ids(sock))
        sock.close()
    deadline = time.monotonic() + 2
    while True:
        sock = sse_connect(box.port)
        try:
            next(sse_ids(sock))
            break
        except Refused as exc:
            assert time.monotonic() < deadline, f"still {exc.status} 2 s after the phones left"
        finally:
            sock.close()
