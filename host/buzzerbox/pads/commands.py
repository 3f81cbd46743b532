"""The pads area's commands: `pads`, `monitor` and `fake-board`.

Heavy imports (pyserial, gpiozero) wait until a command runs, so building the
`buzzerbox` parser stays quick.
"""

from __future__ import annotations

import argparse
import itertools
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from buzzerbox.pads.errors import PadsError


def add_commands(sub: argparse._SubParsersAction[Any]) -> None:
    """Add this area's sub-commands to the `buzzerbox` parser."""
    pads = sub.add_parser("pads", help="check a pad map and list its pads")
    pads.add_argument("config", metavar="CONFIG", type=Path, help="the pad map (TOML)")
    pads.set_defaults(func=_pads)

    mon = sub.add_parser(
        "monitor",
        help="print every pad edge as it becomes final, in true time order",
        description="Print every edge from pad boards and GPIO pads once, as it becomes "
        "final, in true time order. SIGINT/SIGTERM prints what is still held and exits 0.",
    )
    mon.add_argument(
        "--board",
        metavar="URL",
        action="append",
        default=[],
        help="a pad board: /dev/ttyACM0, a pty, socket://HOST:PORT, rfc2217://... "
        "(repeatable; default: the boards of --config that have a url)",
    )
    mon.add_argument("--gpio", action="store_true", help="read the GPIO pads of --config (a Pi)")
    mon.add_argument("--config", metavar="FILE", type=Path, help="the pad map (TOML)")
    mon.add_argument("--json", action="store_true", help="one JSON object per line")
    mon.add_argument(
        "--silence-ms",
        metavar="MS",
        type=int,
        default=500,
        help="a source silent this long is not waited for (default 500)",
    )
    mon.set_defaults(func=_monitor)

    from buzzerbox.pads.fakes.port import COMMANDS

    fake = sub.add_parser(
        "fake-board",
        help="emulate a pad board (protocol v1) on a pty or a TCP port",
        description="Emulate a pad board on a pty (prints its path) or a TCP port "
        "(prints socket://HOST:PORT). Lines on stdin, or a --script, act on it:\n\n" + COMMANDS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fake.add_argument("--id", default="fake-0", help="board id (default fake-0)")
    fake.add_argument("--channels", type=int, default=8, help="input channels (default 8)")
    fake.add_argument("--tcp", metavar="PORT", type=int, help="serve TCP on PORT (0: any free)")
    fake.add_argument("--bind", default="127.0.0.1", help="TCP address (default 127.0.0.1)")
    fake.add_argument("--link", metavar="PATH", type=Path, help="keep a symlink to the pty here")
    fake.add_argument("--offset-us", type=int, default=0, help="board clock at boot, in µs")
    fake.add_argument("--drift-ppm", type=float, default=0.0, help="board clock drift, in ppm")
    fake.add_argument("--tick-hz", type=int, default=1_000_000, help="board clock rate")
    fake.add_argument(
        "--tick-ms", type=int, default=10, help="TICK period after an EDGE (default 10)"
    )
    fake.add_argument(
        "--idle-tick-ms", type=int, default=90, help="TICK period while idle (default 90)"
    )
    fake.add_argument("--proto", type=int, default=1, help="protocol version it claims")
    fake.add_argument("--debounce-us", type=int, default=0, help="its debounce window")
    fake.add_argument("--no-sync", action="store_true", help="answer no SYNC")
    fake.add_argument(
        "--usb", action="store_true", help="send only at 1 ms USB frames (the host's IN poll)"
    )
    fake.add_argument(
        "--stamp-us", type=int, default=0, help="stamp a SYNC this long after its line (µs)"
    )
    fake.add_argument("--script", metavar="FILE", type=Path, help="run these lines first")
    fake.set_defaults(func=_fake_board)


def _pads(args: argparse.Namespace) -> int:
    from buzzerbox.pads.padmap import load_pad_map

    try:
        pad_map = load_pad_map(args.config)
    except PadsError as exc:
        print(f"buzzerbox pads: {exc}", file=sys.stderr)
        return 2
    piles = f", piles 0-{pad_map.piles - 1}" if pad_map.piles else ""
    print(f"{pad_map.name}: seats 0-{pad_map.seats - 1}{piles}, {len(pad_map.pads)} pads")
    for board in pad_map.boards:
        print(f"board {board.id}: {board.url or '(no url: give --board)'}")
    rows = [("pad", "source", "role", "seat", "pile", "light")]
    for pad in pad_map.pads:
        pile = "-" if pad.pile is None else str(pad.pile)
        rows.append((pad.id, pad.source, pad.role, str(pad.seat), pile, pad.light))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


def _monitor(args: argparse.Namespace) -> int:
    from buzzerbox.pads.monitor import JsonPrinter, TextPrinter, run_monitor
    from buzzerbox.pads.padmap import load_pad_map
    from buzzerbox.pads.pifactory import open_pi_factory
    from buzzerbox.pads.sources import PadSources
    from buzzerbox.pads.syncwire import open_pulser

    try:
        pad_map = load_pad_map(args.config) if args.config else None
        factory = None
        if args.gpio:
            if pad_map is None or not pad_map.gpio_pads:
                print(
                    "buzzerbox monitor: --gpio needs --config FILE with GPIO pads (gpio = PIN)",
                    file=sys.stderr,
                )
                return 2
            factory = open_pi_factory()
    except PadsError as exc:
        print(f"buzzerbox monitor: {exc}", file=sys.stderr)
        return 2
    has_urls = pad_map is not None and any(b.url for b in pad_map.boards)
    if not args.board and not has_urls and factory is None:
        print(
            "buzzerbox monitor: nothing to monitor: give --board URL, --gpio, "
            "or --config with boards that have a url",
            file=sys.stderr,
        )
        return 2
    pulser = open_pulser(
        pad_map, factory, lambda msg: print(f"buzzerbox monitor: {msg}", file=sys.stderr)
    )
    sources = PadSources(
        pad_map,
        boards=args.board,
        gpio_factory=factory,
        silence_us=args.silence_ms * 1000,
        pulser=pulser,
    )
    printer = JsonPrinter(sys.stdout) if args.json else TextPrinter(sys.stdout, pad_map)
    return run_monitor(sources, printer)


def _fake_board(args: argparse.Namespace) -> int:
    from buzzerbox.pads.errors import FakeBoardCommandError
    from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard
    from buzzerbox.pads.fakes.port import FakeBoardPort, run_line

    def on_signal(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt  # SIGTERM ends it as Ctrl-C does

    try:
        clock = BoardClock(offset_us=args.offset_us, drift_ppm=args.drift_ppm, tick_hz=args.tick_hz)
        board = FakeBoard(args.id, clock=clock, channels=args.channels, proto=args.proto)
        board.debounce_us = args.debounce_us
        board.answers_sync = not args.no_sync
        board.stamp_us = args.stamp_us
        port = FakeBoardPort(
            board,
            tcp=args.tcp is not None,
            host=args.bind,
            port=args.tcp or 0,
            link=args.link,
            tick_us=args.tick_ms * 1000,
            idle_tick_us=args.idle_tick_ms * 1000,
            frame_us=1000 if args.usb else 0,
        )
    except (ValueError, OSError) as exc:
        print(f"buzzerbox fake-board: {exc}", file=sys.stderr)
        return 2
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    idle = threading.Event()
    with port:
        print(port.url, flush=True)
        try:
            script = args.script.read_text().splitlines() if args.script else []
            for line in itertools.chain(script, sys.stdin):
                try:
                    pause = run_line(port, line)
                except (FakeBoardCommandError, ValueError) as exc:
                    print(f"fake-board: {exc}", file=sys.stderr, flush=True)
                    continue
                except StopIteration:
                    return 0
                if pause:
                    idle.wait(pause)
            while True:  # stdin ended: serve until a signal
                idle.wait(3600)
        except KeyboardInterrupt:
            return 0
        except OSError as exc:
            print(f"buzzerbox fake-board: {exc}", file=sys.stderr)
            return 2
