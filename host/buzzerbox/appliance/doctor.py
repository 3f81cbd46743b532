"""`buzzerbox doctor`: is the hardware right? GPIO, serial ports, boards, clocks, pads.

    buzzerbox doctor [--pads MAP] [--board URL ...] [--seconds S] [--sync-wire]
                     [--pad-test S] [--presses N] [--fairness [--pulses N]] [--lamps S]
    buzzerbox doctor --log DIR

With --log: the health of the event log in the data folder DIR instead, repaired
where it can be rebuilt from the events (store/check.py; serve runs it at start).

1. GPIO: which pin factory the box uses and why (`pads.pifactory`), or why none.
2. Serial ports (`serial.tools.list_ports`), Picos marked, each with its
   /dev/serial/by-id/ path (the one to put in the pad map: it stays the same
   whichever USB socket the board is in), the map's ports checked.
3. Each board (from --board, else the map's urls, else every Pico found): its
   HELLO, whether its channels fit the pad map, the SYNC round trips and the
   spread of its clock offset; with --sync-wire (or a map with ``[sync] gpio``),
   the same from the sync wire's pulses (hardware/sync-wire.md) on the map's sync
   channels; and for a board in the map, how the box will map its clock: by the
   sync wire, or by SYNC round trips and why (the words: doctor_boards.py).
4. --pad-test S: press each pad; every press shows on the console, named from
   the map (the pads area's `PadSources` and monitor printer).
5. --fairness: pulse the map's test line N times and say how far apart the box put
   each pulse on every board and the Pi, against the README's figure, PASS or FAIL
   (fairness_run.py; wiring: hardware/self-test.md).
6. --lamps S: light each lamp in turn and show each pad's state live (lamps.py).
7. --write-ids (with --pads MAP): each board found, its id and /dev/serial/by-id/ path
   written into the map; two new boards are told apart by a press (boardids.py).

Stop the box first (``sudo systemctl stop buzzerbox``): a port read by two
programs loses bytes to both.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from buzzerbox.appliance import pinout
from buzzerbox.appliance.boardids import found_boards, press_identify, write_ids
from buzzerbox.appliance.boardprobe import Probe
from buzzerbox.appliance.doctor_boards import board_lines
from buzzerbox.appliance.fairness_run import add_fairness_options, fairness_section
from buzzerbox.appliance.lamps import add_lamp_options, lamp_test
from buzzerbox.errors import BuzzerboxError
from buzzerbox.mqtt.brokerprobe import add_doctor_options, doctor_section
from buzzerbox.pads.board.protocol import Hello
from buzzerbox.pads.padmap import PadMap
from buzzerbox.picos import PICO_VID

BY_ID = Path("/dev/serial/by-id")


def add_doctor_command(sub: argparse._SubParsersAction[Any]) -> None:
    d = sub.add_parser(
        "doctor",
        help="check the hardware: pin factory, serial ports, boards and their clocks, pads",
        description=(
            "Check the hardware: which GPIO pin factory and why, the serial ports, each "
            "board's HELLO, SYNC round trips and clock-offset spread, the sync wire, and "
            "a pad test. Stop the box first: sudo systemctl stop buzzerbox."
        ),
    )
    d.add_argument("--pads", metavar="MAP", type=Path, help="the pad map (TOML)")
    d.add_argument("--board", metavar="URL", action="append", default=[], help="a board to ask")
    d.add_argument("--seconds", type=float, default=3.0, help="SYNC measuring time (default 3)")
    d.add_argument(
        "--sync-wire", action="store_true", help=f"pulse the sync wire (GPIO{pinout.SYNC_GPIO})"
    )
    d.add_argument("--pad-test", metavar="S", type=float, help="then show pad presses for S s")
    d.add_argument("--presses", type=int, help="end the pad test after this many presses")
    add_fairness_options(d)  # --fairness, --pulses N
    add_lamp_options(d)  # --lamps S
    add_doctor_options(d)  # --mqtt URL, --config FILE: the event's broker
    d.add_argument(
        "--write-ids",
        action="store_true",
        help="write each board's id and by-id path into the --pads map (boardids.py)",
    )
    d.add_argument(
        "--log", metavar="DIR", type=Path, help="check (and repair) the event log in DIR instead"
    )
    d.set_defaults(func=run_doctor)


# 1. GPIO --------------------------------------------------------------------------------


def gpio_section(out: TextIO, model_path: Path | None = None) -> Any:
    """Say which pin factory the box uses and why; the factory, or None."""
    from buzzerbox.pads import pifactory
    from buzzerbox.pads.errors import GpioUnavailableError

    path = model_path or pifactory.MODEL
    out.write("== GPIO\n")
    model = pifactory.pi_model(path)
    out.write(f"board: {model or 'not a Raspberry Pi (' + str(path) + ' has no model)'}\n")
    env = os.environ.get("GPIOZERO_PIN_FACTORY")
    factory = None
    try:
        factory = pifactory.open_pi_factory(model_path=path)
    except GpioUnavailableError as exc:
        out.write(f"pin factory: none. {exc}\n")
    else:
        out.write(
            f"pin factory: lgpio ({type(factory).__name__}). The box always uses gpiozero's "
            "lgpio factory on a Pi: it works on the Pi 4, Pi 5 and Zero 2 W alike, and the "
            "kernel stamps every edge.\n"
        )
    if env:
        out.write(
            f"GPIOZERO_PIN_FACTORY={env} is set: gpiozero alone would follow it; the box "
            "does not (it opens lgpio itself).\n"
        )
    return factory


# 2. Serial ports ------------------------------------------------------------------------


def by_id_paths(folder: Path = BY_ID) -> dict[str, str]:
    """Each serial device (its real path) -> its stable /dev/serial/by-id/ link."""
    try:
        links = sorted(folder.iterdir())
    except OSError:
        return {}
    return {str(link.resolve()): str(link) for link in links if link.is_symlink()}


def ports_section(
    out: TextIO, pad_map: PadMap | None, comports: Callable[[], Any], by_id: Path = BY_ID
) -> list[str]:
    """List the serial ports; the paths of the Picos among them (by id where there is one)."""
    out.write("== serial ports\n")
    picos: list[str] = []
    stable = by_id_paths(by_id)
    found = sorted(comports(), key=lambda port: str(port.device))
    for port in found:
        is_pico = port.vid == PICO_VID
        ids = f" {port.vid:04x}:{port.pid:04x}" if port.vid is not None else ""
        serial_no = f" serial {port.serial_number}" if port.serial_number else ""
        mark = "  <- a Pico" if is_pico else ""
        out.write(f"{port.device}: {port.description}{ids}{serial_no}{mark}\n")
        link = stable.get(str(Path(port.device).resolve()))
        if link:
            out.write(f"  url for the pad map: {link}\n")
        if is_pico:
            picos.append(link or str(port.device))
    if not found:
        out.write("none found (is the board plugged in with a data cable?)\n")
    for b in pad_map.boards if pad_map else ():
        if b.url and "://" not in b.url and not Path(b.url).exists():
            out.write(f"board {b.name}: its url {b.url} does not exist now\n")
    return picos


# 4. Pad test ------------------------------------------------------------------------------


def pad_test(
    pad_map: PadMap | None,
    urls: Sequence[str],
    factory: Any,
    out: TextIO,
    *,
    seconds: float,
    presses: int | None = None,
) -> int:
    """Print every pad edge (press each pad) until `seconds` pass or `presses` were seen."""
    from buzzerbox.pads.monitor import TextPrinter, run_monitor
    from buzzerbox.pads.sources import PadSources
    from buzzerbox.pads.timeline.arbiter import Edge

    gpio = factory if pad_map is not None and pad_map.gpio_pads else None
    if not urls and gpio is None:
        out.write("pad test: no pads to test (give --pads MAP or --board URL)\n")
        return 1
    out.write(f"== pad test: press each pad ({seconds:g} s)\n")
    sources = PadSources(pad_map, boards=list(urls), gpio_factory=gpio)
    stop = threading.Event()

    def time_up() -> None:
        stop.set()
        sources.wake()  # the events' wait may be seconds long (pads/sources.py IDLE_STEP_US)

    timer = threading.Timer(seconds, time_up)
    timer.daemon = True
    printer = TextPrinter(out, pad_map)
    seen = 0

    def show(ev: Any) -> None:
        nonlocal seen
        printer(ev)
        if isinstance(ev, Edge) and ev.state == 1:
            seen += 1
            if presses is not None and seen >= presses:
                stop.set()

    timer.start()
    try:
        run_monitor(sources, show, stop=stop)
    finally:
        timer.cancel()
    out.write(f"{seen} presses\n")
    return 0


def map_sync_ch(pad_map: PadMap) -> Callable[[Hello], int | None]:
    """Each board's sync channel: the pad map's, else its firmware layout's last input."""

    def sync_ch(hello: Hello) -> int | None:
        spec = pad_map.board(hello.board_id)
        if spec is not None and spec.sync is not None:
            return spec.sync
        layout = pinout.pico_layout(hello.channels)
        return layout.sync_ch if layout is not None else None

    return sync_ch


# The command ------------------------------------------------------------------------------


def box_is_running() -> bool:
    systemctl = shutil.which("systemctl")
    if systemctl is None:
        return False
    try:
        result = subprocess.run(
            [systemctl, "is-active", "--quiet", "buzzerbox.service"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


def run_doctor(
    args: argparse.Namespace,
    *,
    out: TextIO | None = None,
    model_path: Path | None = None,
    comports: Callable[[], Any] | None = None,
    pulser_factory: Callable[[Any], Any] | None = None,
    period_us: int | None = None,
    gpio_factory: Any = None,
    line_pulser: Callable[[Any, int], Any] | None = None,
) -> int:
    """The doctor's report; 0 when everything asked for answered, 1 if not, 2 bad input."""
    from serial.tools import list_ports

    from buzzerbox.appliance.syncpulse import PERIOD_US, SyncPulser
    from buzzerbox.clock import monotonic_us
    from buzzerbox.pads.padmap import load_pad_map

    out = out or sys.stdout
    if getattr(args, "log", None) is not None:
        return log_doctor(args.log, out)
    try:
        pad_map = load_pad_map(args.pads) if args.pads else None
    except BuzzerboxError as exc:
        print(f"buzzerbox doctor: {exc}", file=sys.stderr)
        return 2
    if box_is_running():
        out.write("note: the buzzerbox service is running: stop it first for true figures\n")
    factory = gpio_section(out, model_path)
    factory = gpio_factory if gpio_factory is not None else factory  # tests: a MockFactory
    picos = ports_section(out, pad_map, comports or list_ports.comports)
    urls = list(args.board) or [b.url for b in (pad_map.boards if pad_map else ()) if b.url]
    urls = urls or picos
    writing = getattr(args, "write_ids", False)
    if writing and pad_map is None:
        print("buzzerbox doctor: --write-ids needs --pads MAP: the map to write", file=sys.stderr)
        return 2
    if writing and not args.board:  # every Pico plugged in, and the map's ports that exist
        urls = _unique([*picos, *(u for u in urls if "://" in u or Path(u).exists())])
    healthy = True
    if urls:
        pulser = None
        sync_gpio = pad_map.sync_gpio if pad_map is not None else None
        if args.sync_wire or sync_gpio is not None:
            if factory is None and pulser_factory is None:
                out.write("sync wire: needs the Pi's GPIO (see above); not pulsed\n")
            else:
                pin = pinout.SYNC_GPIO if sync_gpio is None else sync_gpio
                make = pulser_factory or (lambda f: SyncPulser(f, monotonic_us, pin=pin))
                pulser = make(factory)
        out.write(f"== boards: measuring for {args.seconds:g} s\n")
        probe = Probe(
            urls,
            pulser=pulser,
            period_us=period_us or PERIOD_US,
            sync_ch=map_sync_ch(pad_map) if pad_map and pad_map.boards else None,
        )
        try:
            probe.run(args.seconds)
        finally:
            if pulser is not None:
                pulser.close()
        for report in probe.reports:
            out.write("\n".join(board_lines(report, pad_map)) + "\n")
            healthy = healthy and report.hello is not None and bool(report.trips)
            h = report.hello
            if h is not None and pad_map and pad_map.channels_problem(h.board_id, h.channels):
                healthy = False
        if writing:
            assert pad_map is not None and args.pads is not None
            found = found_boards(probe.reports, by_id_paths())
            identify = press_identify(pad_map, out, map_sync_ch(pad_map))
            healthy = write_ids(args.pads, pad_map, found, identify, out) and healthy
    else:
        out.write("== boards: none to ask (no --board, no url in the map, no Pico found)\n")
    healthy = doctor_section(args, out) and healthy
    if args.pad_test:
        pad_test(pad_map, urls, factory, out, seconds=args.pad_test, presses=args.presses)
    if getattr(args, "fairness", False):
        passed = fairness_section(
            pad_map,
            urls,
            factory,
            out,
            pulses=args.pulses,
            line_pulser=line_pulser,
            sync_pulser=pulser_factory,
            sync_period_us=period_us or PERIOD_US,
        )
        healthy = passed and healthy
    if getattr(args, "lamps", None):
        healthy = lamp_test(pad_map, urls, factory, out, seconds=args.lamps) and healthy
    out.flush()
    return 0 if healthy else 1


def _unique(urls: Sequence[str]) -> list[str]:
    """Each port once (a by-id link and its device are one)."""
    seen: dict[str, str] = {}
    for url in urls:
        seen.setdefault(url if "://" in url else str(Path(url).resolve()), url)
    return list(seen.values())


def log_doctor(folder: Path, out: TextIO) -> int:
    """`doctor --log DIR`: 0 healthy or repaired, 1 if it cannot be used, 2 no such log."""
    from buzzerbox.datadir import DataLock
    from buzzerbox.errors import DataFolderBusyError
    from buzzerbox.store.check import check_log

    path = folder / "buzzerbox.db"
    if not path.exists():
        print(f"buzzerbox doctor: {path} does not exist: is {folder} a box's data folder?",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        lock: DataLock | None = DataLock(folder)
    except DataFolderBusyError as exc:
        out.write(f"note: {exc}; checking only, repairing nothing\n")
        lock = None
    try:
        health = check_log(path, repair=lock is not None)
    finally:
        if lock is not None:
            lock.release()
    out.write("\n".join(health.lines()) + "\n")
    out.flush()
    return 1 if health.fatal is not None or (health.problems and not health.repaired) else 0
