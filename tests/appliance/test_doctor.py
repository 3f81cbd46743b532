"""`buzzerbox doctor` against the pads area's fake boards on ptys."""

from __future__ import annotations

import argparse
import io
import os
import re
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from buzzerbox.appliance import doctor
from buzzerbox.appliance.boardprobe import Probe
from buzzerbox.appliance.syncpulse import Pulse
from buzzerbox.cli import build_parser
from buzzerbox.clock import monotonic_us
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard, SyncLine
from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.pads.fakes.pulse import WirePulser
from buzzerbox.pads.padmap import load_pad_map

StartBoard = Callable[..., FakeBoardPort]


@pytest.fixture
def fake_board() -> Iterator[StartBoard]:
    ports: list[FakeBoardPort] = []

    def start(board_id: str, *, channels: int = 24, offset_us: int = 0) -> FakeBoardPort:
        clock = BoardClock(offset_us=offset_us)
        port = FakeBoardPort(FakeBoard(board_id, clock=clock, channels=channels))
        ports.append(port)
        return port.start()

    yield start
    for port in ports:
        port.close()


class PortPulser:
    """A sync wire to fake boards: a pulse presses each board's sync channel at once."""

    def __init__(self, ports: list[FakeBoardPort], ch: int) -> None:
        self.ports, self.ch = ports, ch
        self.pulses: deque[Pulse] = deque(maxlen=64)
        self.closed = False

    def fall(self) -> Pulse:
        t0 = monotonic_us()
        for port in self.ports:
            port.press(self.ch)
        pulse = Pulse(len(self.pulses) + 1, t0, monotonic_us())
        self.pulses.append(pulse)
        return pulse

    def rise(self) -> None:
        for port in self.ports:
            port.release(self.ch)

    def close(self) -> None:
        self.closed = True


def doctor_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["doctor", *argv])


def no_ports() -> list[object]:
    return []


def not_a_pi(tmp_path: Path) -> Path:
    return tmp_path / "no-model"


def test_doctor_reports_hello_and_the_sync_round_trips(
    fake_board: StartBoard, tmp_path: Path
) -> None:
    port = fake_board("pico-a", offset_us=5_000_000)
    out = io.StringIO()
    args = doctor_args("--board", port.url, "--seconds", "0.4")
    code = doctor.run_doctor(args, out=out, model_path=not_a_pi(tmp_path), comports=no_ports)
    text = out.getvalue()
    assert code == 0, text
    assert f"board at {port.url}" in text
    assert "HELLO: id pico-a, protocol 1, firmware 0.1.0, clock 1000000 Hz, 24 channels" in text
    assert "(layout pads24)" in text
    trips = re.search(r"SYNC: (\d+) round trips, ([\d.]+) / ([\d.]+) / ([\d.]+) ms", text)
    assert trips is not None and int(trips.group(1)) >= 2
    assert float(trips.group(2)) <= float(trips.group(3)) <= float(trips.group(4))
    assert re.search(r"clock offset: spread \d+ µs over all trips, \d+ µs over the fastest", text)


def test_the_probe_keeps_every_round_trip_and_fits_the_clock(fake_board: StartBoard) -> None:
    port = fake_board("pico-a", offset_us=3_000_000)
    probe = Probe([port.url], sync_gap_us=0)
    probe.run(10.0, until=lambda pr: len(pr.reports[0].trips) >= 12)
    report = probe.reports[0]
    assert len(report.trips) >= 12
    assert all(t.recv_us >= t.sent_us for t in report.trips)
    cm = report.clock_map()
    t = port.board.clock.ticks()
    truth = port.board.clock.to_host(t)
    worst = max(trip.rtt_us for trip in report.trips)
    assert abs(cm.to_host(t) - truth) <= worst  # good to a round trip, at worst


def test_the_sync_wire_through_the_fake_boards(fake_board: StartBoard, tmp_path: Path) -> None:
    ports = [fake_board("pico-a", offset_us=2_000_000), fake_board("pico-b", offset_us=9_000_000)]
    pulser = PortPulser(ports, ch=23)
    probe = Probe([p.url for p in ports], pulser=pulser, period_us=80_000, pulse_us=20_000)
    probe.run(20.0, until=lambda pr: all(r.wire and len(r.wire.samples) >= 4 for r in pr.reports))
    bracket = max(pl.t1_us - pl.t0_us for pl in pulser.pulses)
    for port, report in zip(ports, probe.reports, strict=True):
        assert report.wire is not None and report.sync_ch == 23
        wired = report.wire.clock_map()
        sync_edges = [e for e in port.board.sent if e.ch == 23 and e.state == 1]
        for edge in sync_edges[: len(report.wire.samples)]:
            assert abs(wired.to_host(edge.t) - edge.host_us) <= bracket + 5
        assert report.edges == []  # the sync channel is not a pad
    # the doctor says so, too
    out = io.StringIO()
    boards = [arg for p in ports for arg in ("--board", p.url)]
    args = doctor_args(*boards, "--seconds", "0.5", "--sync-wire")
    code = doctor.run_doctor(
        args,
        out=out,
        model_path=not_a_pi(tmp_path),
        comports=no_ports,
        pulser_factory=lambda factory: PortPulser(ports, ch=23),
        period_us=60_000,
    )
    text = out.getvalue()
    assert code == 0, text
    assert len(re.findall(r"sync wire: \d+ pulses on ch 23, offset spread \d+ µs", text)) == 2


def test_the_pad_test_names_each_press_from_the_map(fake_board: StartBoard, tmp_path: Path) -> None:
    port = fake_board("pico-t")
    pads = tmp_path / "pads.toml"
    pads.write_text(
        f'seats = 2\n[[board]]\nid = "pico-t"\nurl = "{port.url}"\nchannels = 24\n'
        '[[pad]]\nid = "s0-stop"\nrole = "stop"\nseat = 0\nboard = "pico-t"\nch = 16\n'
        '[[pad]]\nid = "s1-stop"\nrole = "stop"\nseat = 1\nboard = "pico-t"\nch = 17\n',
        encoding="utf-8",
    )
    pad_map = load_pad_map(pads)
    port.press(16, after_us=300_000)
    port.press(17, after_us=400_000)
    out = io.StringIO()
    code = doctor.pad_test(pad_map, [port.url], None, out, seconds=20, presses=2)
    text = out.getvalue()
    assert code == 0
    assert "s0-stop  (stop of seat 0)" in text
    assert "s1-stop  (stop of seat 1)" in text
    assert text.index("s0-stop") < text.index("s1-stop")
    assert "2 presses" in text


def test_a_silent_port_is_reported_and_fails(tmp_path: Path) -> None:
    master, slave = os.openpty()
    try:
        out = io.StringIO()
        args = doctor_args("--board", os.ttyname(slave), "--seconds", "0.3")
        code = doctor.run_doctor(args, out=out, model_path=not_a_pi(tmp_path), comports=no_ports)
    finally:
        os.close(master)
        os.close(slave)
    assert code == 1
    assert "no HELLO" in out.getvalue()


def test_gpio_says_which_factory_and_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    assert doctor.gpio_section(out, not_a_pi(tmp_path)) is None
    assert "pin factory: none. GPIO pads need a Raspberry Pi" in out.getvalue()
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\0")
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    out = io.StringIO()
    factory = doctor.gpio_section(out, model)
    text = out.getvalue()
    assert "board: Raspberry Pi 4 Model B Rev 1.4" in text
    if factory is None:  # no lgpio on this machine: the reason is given
        assert "lgpio" in text and "pin factory: none." in text
    else:
        factory.close()
        assert "pin factory: lgpio" in text
    assert "GPIOZERO_PIN_FACTORY=mock is set" in text


def test_serial_ports_are_listed_and_picos_marked(tmp_path: Path) -> None:
    ports = [
        SimpleNamespace(
            device="/dev/ttyACM0",
            description="Board in FS mode",
            vid=0x2E8A,
            pid=0x0005,
            serial_number="E6614103E7000001",
        ),
        SimpleNamespace(
            device="/dev/ttyUSB0", description="CP2102", vid=0x10C4, pid=0xEA60, serial_number=None
        ),
    ]
    pads = Path(__file__).resolve().parents[2] / "hardware/builds/twist-picos/pads.toml"
    out = io.StringIO()
    picos = doctor.ports_section(out, load_pad_map(pads), lambda: ports)
    text = out.getvalue()
    assert picos == ["/dev/ttyACM0"]
    assert "/dev/ttyACM0: Board in FS mode 2e8a:0005 serial E6614103E7000001  <- a Pico" in text
    assert "/dev/ttyUSB0: CP2102 10c4:ea60\n" in text
    assert "board pico-a: its url /dev/serial/by-id/" in text
    out = io.StringIO()
    assert doctor.ports_section(out, None, no_ports) == []
    assert "none found" in out.getvalue()


def wire_map(tmp_path: Path, ports: list[FakeBoardPort], *, pulsed: bool) -> Path:
    """A pad map: every board but the last on the sync wire (ch 23); `pulsed`: the Pi
    pulses it ([sync] gpio)."""
    text = "seats = 1\n" + ("[sync]\ngpio = 7\n" if pulsed else "")
    for i, port in enumerate(ports):
        sync = "sync = 23\n" if i < len(ports) - 1 else ""
        text += f'[[board]]\nid = "{port.board.board_id}"\nurl = "{port.url}"\n{sync}'
    path = tmp_path / "pads.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_doctor_says_how_the_box_maps_each_clock(
    fake_board: StartBoard, tmp_path: Path
) -> None:
    ports = [fake_board("pico-a"), fake_board("pico-b", offset_us=4_000_000), fake_board("pico-c")]
    args = doctor_args("--pads", str(wire_map(tmp_path, ports, pulsed=True)), "--seconds", "0.6")
    out = io.StringIO()
    code = doctor.run_doctor(
        args,
        out=out,
        model_path=not_a_pi(tmp_path),
        comports=no_ports,
        pulser_factory=lambda factory: PortPulser(ports[:2], ch=23),  # the map asks for it
        period_us=60_000,
    )
    text = out.getvalue()
    assert code == 0, text
    assert len(re.findall(r"clock in the box: the sync wire \(\d+ pulses on ch 23\)", text)) == 2
    assert "clock in the box: SYNC round trips (the pad map names no sync channel for it" in text
    assert text.index("board at " + ports[2].url) < text.index("names no sync channel")


def test_the_doctor_sees_an_outside_pulser_and_a_silent_wire(
    fake_board: StartBoard, tmp_path: Path
) -> None:
    ports = [fake_board("pico-a"), fake_board("pico-b"), fake_board("pico-c")]
    line = SyncLine()
    ports[0].wire(line, 23)  # pico-b's wire is not connected; pico-c has none
    args = doctor_args("--pads", str(wire_map(tmp_path, ports, pulsed=False)), "--seconds", "0.8")
    out = io.StringIO()
    with WirePulser(line, period_us=100_000, pulse_us=20_000):
        code = doctor.run_doctor(args, out=out, model_path=not_a_pi(tmp_path), comports=no_ports)
    text = out.getvalue()
    assert code == 0, text
    assert re.search(
        r"clock in the box: the sync wire, lined up by common pulses \(\d+ pulses on ch 23 from "
        "a pulser the host does not drive\\)",
        text,
    )
    assert "clock in the box: SYNC round trips, for now: no pulse on its sync channel ch 23" in text
    assert "names no sync channel" in text


def test_each_port_shows_its_by_id_path_for_the_pad_map(tmp_path: Path) -> None:
    dev = tmp_path / "ttyACM0"
    dev.write_text("")
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    link = by_id / "usb-MicroPython_Board_in_FS_mode_E6614103E7000001-if00"
    link.symlink_to(dev)
    port = SimpleNamespace(
        device=str(dev), description="Board in FS mode", vid=0x2E8A, pid=0x0005, serial_number="E1"
    )
    out = io.StringIO()
    assert doctor.ports_section(out, None, lambda: [port], by_id=by_id) == [str(link)]
    assert f"  url for the pad map: {link}\n" in out.getvalue()
    assert doctor.by_id_paths(tmp_path / "nothing") == {}


def test_a_board_whose_channels_disagree_with_the_map_is_warned_about(
    fake_board: StartBoard, tmp_path: Path
) -> None:
    port = fake_board("pico-e66141030000000c", channels=24)
    pads = tmp_path / "pads.toml"
    build = Path(__file__).resolve().parents[2] / "hardware/builds/ligretto12/pads.toml"
    text = build.read_text(encoding="utf-8").replace("pico-e6614103e7000011", port.board.board_id)
    pads.write_text(
        text.replace(
            "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_E6614103E7000011-if00", port.url
        ),
        encoding="utf-8",
    )
    out = io.StringIO()
    args = doctor_args("--pads", str(pads), "--board", port.url, "--seconds", "0.3")
    code = doctor.run_doctor(args, out=out, model_path=not_a_pi(tmp_path), comports=no_ports)
    text = out.getvalue()
    assert code == 1, text
    assert ", in the pad map as pico-a" in text
    assert (
        "WARNING: board pico-a has 24 input channels (layout pads24), but the pad map says "
        "channels = 12 (layout pads12): flash it with `buzzerbox firmware install PORT "
        "--layout pads12`, or change channels in the pad map"
    ) in text
