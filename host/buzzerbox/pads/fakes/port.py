"""A `FakeBoard` on a real port: a pty (its path, or a stable symlink to it) or TCP.

`FakeBoardPort` runs one thread that answers the host, sends TICK every
`tick_us` after an EDGE and every `idle_tick_us` while idle (by default the same: a
board of before issue 40; the firmware's is 90 ms, padboard/probes.py) and fires
scheduled actions; any thread may act on the board through
it (`press`, `stall`, `unplug`, ...). Output nobody reads is dropped, as a USB
board's is, so seq gaps show. With `frame_us` (USB full speed: 1000) what the
board sends waits for the next frame, as for the host's poll of a USB IN
endpoint; the board's SYNC stamp latency is `FakeBoard.stamp_us`. `run_line` is
the key/script language of `buzzerbox fake-board` (see `COMMANDS`).

A sync wire to fake boards on ports (`FakeBoardPort.wire`) is seen by every board
at the same instant; pulse.py pulses it.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading
import tty
from collections.abc import Callable
from pathlib import Path

from buzzerbox.pads.errors import FakeBoardCommandError
from buzzerbox.pads.fakes.padboard import FakeBoard, SyncLine

Action = Callable[[FakeBoard], bytes]
BACKLOG_MAX = 1 << 16


class FakeBoardPort:
    """Serve `board` on a pty (default; `link` keeps a stable path) or on TCP."""

    def __init__(
        self,
        board: FakeBoard,
        *,
        tcp: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
        link: Path | None = None,
        tick_us: int = 10_000,
        idle_tick_us: int | None = None,
        boot: bool = True,
        frame_us: int = 0,
    ) -> None:
        self.board = board
        self.tick_us = tick_us
        self.idle_tick_us = tick_us if idle_tick_us is None else idle_tick_us
        self._edges_at_tick = 0  # len(board.sent) at the last TICK
        self._last_tick = 0
        self.frame_us = frame_us
        self._outbox = bytearray()
        self._flush_at: int | None = None
        self.is_ticking = True
        self.is_stalled = False
        self.is_plugged = False
        self._tcp = tcp
        self._host, self._port = host, port
        self._link = link
        self._lock = threading.RLock()
        self._timers: list[tuple[int, int, Action]] = []
        self._n = 0
        self._backlog = bytearray()
        self._master = self._slave = -1
        self._listener: socket.socket | None = None
        self._client: socket.socket | None = None
        self._closed = threading.Event()
        self._boot = boot
        self.path = ""
        self._plug()
        self._next_tick = self._now() + tick_us
        self._thread = threading.Thread(
            target=self._run, name=f"fake-{board.board_id}", daemon=True
        )

    @property
    def url(self) -> str:
        """What the host opens: the pty path (or its link), or ``socket://host:port``."""
        if self._tcp:
            return f"socket://{self._host}:{self._port}"
        return str(self._link) if self._link is not None else self.path

    def _now(self) -> int:
        return self.board.clock.host_us()

    def start(self) -> FakeBoardPort:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closed.set()
        if self._thread.is_alive():
            self._thread.join(2.0)
        with self._lock:
            self._unplug()

    def __enter__(self) -> FakeBoardPort:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Plugging --------------------------------------------------------------------

    def _plug(self) -> None:
        if self._tcp:
            lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            lst.bind((self._host, self._port))
            lst.listen(1)
            self._port = lst.getsockname()[1]
            self._listener = lst
        else:
            self._master, self._slave = os.openpty()
            tty.setraw(self._slave)  # no echo, no line editing, before anyone opens it
            os.set_blocking(self._master, False)
            self.path = os.ttyname(self._slave)
            if self._link is not None:
                tmp = self._link.with_name(self._link.name + ".new")
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                tmp.symlink_to(self.path)
                tmp.replace(self._link)
        self.is_plugged = True
        if self._boot:
            self._emit(self.board.boot())

    def _unplug(self) -> None:
        for sock in (self._client, self._listener):
            if sock is not None:
                sock.close()
        self._client = self._listener = None
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1
        self.is_plugged = False

    def unplug(self) -> None:
        """Pull the cable: the host's port fails; nothing is sent until `replug`."""
        with self._lock:
            self._unplug()

    def replug(self, *, reboot: bool = True) -> None:
        """Plug back in (a new pty behind the same link, or the same TCP port)."""
        with self._lock:
            if not self.is_plugged:
                self._boot = reboot
                self._plug()

    # Acting on the board -----------------------------------------------------------

    def do(self, action: Action, *, after_us: int = 0) -> None:
        """Run `action(board)` and send what it returns, now or `after_us` from now."""
        with self._lock:
            if after_us <= 0:
                self._emit(action(self.board))
            else:
                self._n += 1
                self._timers.append((self._now() + after_us, self._n, action))

    def still(self) -> threading.RLock:
        """Hold it (``with port.still():``) and the board sends nothing of its own (no TICK,
        no answer) meanwhile: an edge given an instant inside it is never behind a TICK
        stamped later, as on the firmware, whose PIO stamps an edge as it happens."""
        return self._lock

    def _check(self, ch: int) -> int:
        if not 0 <= ch < self.board.channels:
            raise FakeBoardCommandError(
                f"channel {ch} does not exist: this board has 0-{self.board.channels - 1}"
            )
        return ch

    def press(self, ch: int, *, after_us: int = 0) -> None:
        self._check(ch)
        self.do(lambda b: b.press(ch), after_us=after_us)

    def release(self, ch: int, *, after_us: int = 0) -> None:
        self._check(ch)
        self.do(lambda b: b.release(ch), after_us=after_us)

    def tap(self, ch: int, *, hold_us: int = 100_000, after_us: int = 0) -> None:
        self.press(ch, after_us=after_us)
        self.release(ch, after_us=after_us + hold_us)

    def send_raw(self, data: bytes) -> None:
        """Put bytes on the line as they are (junk, a broken frame)."""
        with self._lock:
            self._emit(data)

    def stall(self) -> None:
        """Hold everything the board sends (a stuck link) until `resume`."""
        with self._lock:
            self.is_stalled = True

    def resume(self) -> None:
        with self._lock:
            self.is_stalled = False
            data, self._backlog = bytes(self._backlog), bytearray()
            self._emit(data)

    # The thread ----------------------------------------------------------------------

    def wire(self, line: SyncLine, ch: int) -> None:
        """Put this board's channel `ch` on the sync wire `line`."""
        self._check(ch)
        line.attach(lambda state, at_us: self.do(lambda b: b.edge(ch, state, at_us)))

    def _emit(self, data: bytes) -> None:
        if not data:
            return
        if self.is_stalled:
            self._backlog += data[: BACKLOG_MAX - len(self._backlog)]
            return
        if self.frame_us > 0:  # it leaves at the host's next poll of the IN endpoint
            self._outbox += data[: BACKLOG_MAX - len(self._outbox)]
            if self._flush_at is None:
                now = self._now()
                self._flush_at = now + self.frame_us - now % self.frame_us
            return
        self._write(data)

    def _flush(self, now: int) -> None:
        if self._flush_at is not None and now >= self._flush_at:
            data, self._outbox, self._flush_at = bytes(self._outbox), bytearray(), None
            self._write(data)

    def _write(self, data: bytes) -> None:
        try:
            if self._master >= 0:
                os.write(self._master, data)
            elif self._client is not None:
                self._client.send(data)
        except OSError:
            pass  # nobody reading (or gone): dropped, as on a real link

    def _run(self) -> None:
        while not self._closed.is_set():
            with self._lock:
                now = self._now()
                self._fire(now)
                if len(self.board.sent) != self._edges_at_tick:  # an EDGE since the TICK
                    self._next_tick = min(self._next_tick, self._last_tick + self.tick_us)
                if self.is_ticking and self.is_plugged and now >= self._next_tick:
                    self._emit(self.board.tick())
                    self._edges_at_tick = len(self.board.sent)
                    self._last_tick = max(self._next_tick, now - self.tick_us)
                    self._next_tick = max(self._last_tick + self.idle_tick_us, now + 1)
                self._flush(now)
                flush = [] if self._flush_at is None else [self._flush_at]
                wait_until = min([self._next_tick, *flush] + [t for t, _, _ in self._timers])
                readable: list[int | socket.socket] = []
                if self._master >= 0:
                    readable.append(self._master)
                elif self._client is not None:
                    readable.append(self._client)
                elif self._listener is not None:
                    readable.append(self._listener)
            timeout = min(max(wait_until - self._now(), 0), 10_000) / 1e6
            if not readable:
                self._closed.wait(timeout)
                continue
            try:
                ready, _, _ = select.select(readable, [], [], timeout)
            except (OSError, ValueError):
                continue  # unplugged meanwhile
            if ready:
                self._read()

    def _fire(self, now: int) -> None:
        due = sorted(t for t in self._timers if t[0] <= now)
        if due:
            self._timers = [t for t in self._timers if t[0] > now]
            for _, _, action in due:
                self._emit(action(self.board))

    def _read(self) -> None:
        with self._lock:
            data = b""
            try:
                if self._master >= 0:
                    data = os.read(self._master, 4096)
                elif self._client is not None:
                    data = self._client.recv(4096)
                    if not data:
                        self._client.close()
                        self._client = None
                elif self._listener is not None:
                    client, _ = self._listener.accept()
                    client.setblocking(False)
                    client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    self._client = client
            except OSError:
                return
            if data:
                self._emit(self.board.received(data))


COMMANDS = """\
N               tap channel N (press, release 100 ms later)
press N | p N   press channel N          release N | r N   release it
tap N [MS]      press, release MS (default 100) later
lost N          send LOST N              skip N     lose N frames (a seq gap)
junk TEXT       put TEXT and a newline on the line as it is
stall | resume  hold everything the board sends / send it all
mute | unmute   stop / restart TICKs     nosync | sync   stop / restart SYNC answers
unplug | replug pull the cable / plug it back (the board reboots)
reboot          restart: clock from its offset, seq 0, HELLO
offset US       set the clock offset     drift PPM  set the clock drift
debounce US     set the debounce window  wait MS    pause (scripts)
quit            stop
"""


def run_line(port: FakeBoardPort, line: str) -> float | None:
    """Do one key/script line; returns seconds to wait for ``wait``, else None.

    Raises FakeBoardCommandError for a line it does not know, and StopIteration
    for ``quit``.
    """
    words = line.split("#", 1)[0].split()
    if not words:
        return None
    cmd, args = words[0].lower(), words[1:]

    def num(i: int = 0, default: int | None = None) -> int:
        if i >= len(args):
            if default is None:
                raise FakeBoardCommandError(f"{cmd!r} needs a number: {cmd} N")
            return default
        try:
            return int(args[i])
        except ValueError:
            raise FakeBoardCommandError(
                f"{args[i]!r} is not a number: {cmd} takes whole numbers"
            ) from None

    if cmd.isdigit():
        port.tap(int(cmd))
    elif cmd in ("press", "p"):
        port.press(num())
    elif cmd in ("release", "r"):
        port.release(num())
    elif cmd == "tap":
        port.tap(num(), hold_us=num(1, 100) * 1000)
    elif cmd == "lost":
        n = num()
        port.do(lambda b: b.lost(n))
    elif cmd == "skip":
        n = num()
        port.do(lambda b: b.skip(n))
    elif cmd == "junk":
        port.send_raw(" ".join(args).encode("utf-8", "replace") + b"\n")
    elif cmd in ("stall", "resume"):
        port.stall() if cmd == "stall" else port.resume()
    elif cmd in ("mute", "unmute"):
        port.is_ticking = cmd == "unmute"
    elif cmd in ("nosync", "sync"):
        port.board.answers_sync = cmd == "sync"
    elif cmd in ("unplug", "replug"):
        port.unplug() if cmd == "unplug" else port.replug()
    elif cmd == "reboot":
        port.do(lambda b: b.boot())
    elif cmd == "offset":
        port.board.clock.offset_us = num()
    elif cmd == "drift":
        try:
            port.board.clock.drift_ppm = float(args[0])
        except (IndexError, ValueError):
            raise FakeBoardCommandError("drift needs parts per million: drift 35.5") from None
    elif cmd == "debounce":
        port.board.debounce_us = num()
    elif cmd == "wait":
        return num() / 1000
    elif cmd == "quit":
        raise StopIteration
    else:
        raise FakeBoardCommandError(f"{cmd!r} is not a fake-board command: they are\n{COMMANDS}")
    return None
