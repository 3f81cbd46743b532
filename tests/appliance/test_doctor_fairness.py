"""`buzzerbox doctor --fairness`: the test line through fake boards on ptys and a
MockFactory pin, and the tally on the USB model's driven clock."""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import re
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path

import pytest
from buzzerbox.appliance import doctor
from buzzerbox.appliance.fairness import FairnessTally, TestInput, percentiles
from buzzerbox.appliance.fairness_run import clocks_of
from buzzerbox.cli import build_parser
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard, SyncLine
from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.pads.fakes.pulse import LinePulser
from buzzerbox.pads.fakes.usb import UsbLink, UsbRig, UsbTiming
from buzzerbox.pads.timeline.syncgroup import Pulse
from buzzerbox.testing import ManualClock
from gpiozero.pins.mock import MockConnectedPin, MockFactory

TEST_CH, SYNC_CH, LINE_OUT, LINE_IN = 22, 23, 16, 20


class LinePin(MockConnectedPin):  # type: ignore[misc]
    """The test line's output pin on the MockFactory, wired to the Pi input pin (the
    MockConnectedPin's input_pin) and to the test channel of fake boards on ptys
    (`line`): every input sees the box's gpiozero write at the same instant."""

    line: SyncLine | None = None
    ports: Sequence[FakeBoardPort] = ()

    def _change_state(self, value: bool) -> bool:
        with contextlib.ExitStack() as still:  # no fake board TICKs past the instant
            for port in self.ports:
                still.enter_context(port.still())
            changed: bool = super()._change_state(value)  # drives the input pin first
            if changed and self.line is not None:  # the boards see the input's instant
                t = round(self.input_pin._last_change * 1_000_000)
                (self.line.rise if value else self.line.fall)(t)
        return changed


@pytest.fixture
def test_line() -> SyncLine:
    return SyncLine()


@pytest.fixture
def factory(test_line: SyncLine, ports: list[FakeBoardPort]) -> Iterator[MockFactory]:
    f = MockFactory()
    pin = f.pin(LINE_OUT, pin_class=LinePin, input_pin=f.pin(LINE_IN))  # the wire
    pin.line, pin.ports = test_line, ports
    yield f
    f.close()


def board(ports: list[FakeBoardPort], board_id: str, **kw: int) -> FakeBoardPort:
    fake = FakeBoard(board_id, clock=BoardClock(offset_us=kw.pop("offset_us", 0)), channels=24)
    fake.stamp_us = kw.pop("stamp_us", 0)
    port = FakeBoardPort(fake)
    ports.append(port)
    return port.start()


def pad_map(tmp_path: Path, boards: list[tuple[str, str, bool]], *, gpio_in: bool = True) -> Path:
    """A map of (alias, url, on the sync wire) boards, each with its test channel."""
    text = "seats = 2\n[sync]\ngpio = 7\n"
    for alias, url, wired in boards:
        text += f'[[board]]\nid = "pico-{alias}"\nalias = "{alias}"\nurl = "{url}"\nchannels = 24\n'
        text += f"sync = {SYNC_CH}\n" if wired else ""
    line = ", ".join(f"{alias} = {TEST_CH}" for alias, _, _ in boards)
    text += f"[test_line]\ngpio = {LINE_OUT}\n" + (f"gpio_in = {LINE_IN}\n" if gpio_in else "")
    text += f"boards = {{ {line} }}\n"
    for seat, (alias, _, _) in enumerate(boards[:2]):
        text += f'[[pad]]\nrole = "slap"\nseat = {seat}\nboard = "{alias}"\nch = 0\n'
    path = tmp_path / "pads.toml"
    path.write_text(text)
    return path


def run(path: Path, factory: MockFactory, wire: SyncLine, *argv: str) -> str:
    out = io.StringIO()
    args: argparse.Namespace = build_parser().parse_args(
        ["doctor", "--pads", str(path), "--seconds", "0.3", "--fairness", *argv]
    )
    code = doctor.run_doctor(
        args,
        out=out,
        model_path=path.parent / "no-model",
        comports=list,
        pulser_factory=lambda f: LinePulser(wire),
        period_us=200_000,
        gpio_factory=factory,  # the box's own pulser (SyncPulser) writes its LinePin
    )
    text = out.getvalue()
    assert code == (0 if "fairness: PASS" in text else 1), text
    return text


def figures(text: str, what: str) -> tuple[int, int, int]:
    m = re.search(re.escape(what) + r".*?p50 (\d+) / p95 (\d+) / max (\d+) µs", text)
    assert m, text
    return int(m[1]), int(m[2]), int(m[3])


def test_a_good_set_on_the_sync_wire_passes_with_microseconds(
    ports: list[FakeBoardPort], factory: MockFactory, test_line: SyncLine, tmp_path: Path
) -> None:
    wire = SyncLine()
    a = board(ports, "pico-a", offset_us=3_000_000)
    b = board(ports, "pico-b", offset_us=90_000_000)
    for port in (a, b):
        port.wire(wire, SYNC_CH)
        port.wire(test_line, TEST_CH)
    path = pad_map(tmp_path, [("a", a.url, True), ("b", b.url, True)])
    text = run(path, factory, wire, "--pulses", "20")
    assert "== fairness: 20 pulses on the test line (GPIO16)" in text
    for what in ("board a ch 22, clock by the sync wire: 20 of 20", "board b ch 22", "GPIO20"):
        _, p95, _ = figures(text, what)
        assert p95 <= 10, text
    assert re.search(r"across .*GPIO20: one pulse's mapped times \d+ / \d+ / \d+ µs apart", text)
    assert "fairness: PASS" in text


def test_a_board_whose_clock_maps_badly_fails_in_words(
    ports: list[FakeBoardPort], factory: MockFactory, test_line: SyncLine, tmp_path: Path
) -> None:
    wire = SyncLine()
    a = board(ports, "pico-a")
    c = board(ports, "pico-c", stamp_us=5_000)  # stamps its SYNC answers 5 ms late
    a.wire(wire, SYNC_CH)
    for port in (a, c):
        port.wire(test_line, TEST_CH)
    path = pad_map(tmp_path, [("a", a.url, True), ("c", c.url, False)], gpio_in=False)
    text = run(path, factory, wire, "--pulses", "6")
    p50, _, _ = figures(text, "board c ch 22, clock by SYNC round trips: 6 of 6")
    assert 4_000 <= p50 <= 6_000, text  # its 5 ms, as the box would put its presses
    assert figures(text, "board a ch 22")[1] <= 10, text
    assert "(the README's figure: p95 ≤ 300 µs): FAIL" in text
    assert "fairness: FAIL: board c ch 22: p95" in text
    assert "is over the 300 µs the README promises" in text


def test_an_unwired_test_input_and_a_map_without_a_test_line_fail(
    ports: list[FakeBoardPort], factory: MockFactory, test_line: SyncLine, tmp_path: Path
) -> None:
    wire = SyncLine()
    a = board(ports, "pico-a")
    a.wire(wire, SYNC_CH)  # but not on the test line
    path = pad_map(tmp_path, [("a", a.url, True)])
    text = run(path, factory, wire, "--pulses", "3")
    assert "board a ch 22 saw 0 of 3 pulses: is the test line wired to it?" in text
    assert "the Pi's GPIO20, the Pi's own edge stamps: 3 of 3 pulses" in text
    bare = tmp_path / "bare.toml"
    bare.write_text("seats = 2\n")
    text = run(bare, factory, wire)
    assert "the pad map has no [test_line]" in text and "fairness: FAIL" in text


# The tally on the USB model (driven clock): the same figures every run ------------------


def on_line(link: UsbLink, state: int, _at: int | None) -> None:
    link.edge(TEST_CH, state)  # the board stamps the test line now


def usb_run(rig: UsbRig, clock: ManualClock, pulses: int) -> FairnessTally:
    line = SyncLine()
    inputs = []
    for link in rig.links:
        line.attach(partial(on_line, link))
        inputs.append(TestInput(link.board.board_id, TEST_CH, link.board.board_id))
    tally = FairnessTally(inputs)
    rig.run(3_000_000)  # the clocks map (the wire: 2 pulses)
    for n in range(1, pulses + 1):
        t0 = clock()
        line.fall()
        tally.pulse(Pulse(n, t0, t0))
        rig.run(60_000)
        line.rise()
        rig.run(190_000)
    rig.run(600_000)
    for edge in rig.edges():
        tally.edge(edge)
    return tally


def clocks(rig: UsbRig) -> dict[str, str | None]:
    return clocks_of(link.session for link in rig.links)


@pytest.mark.parametrize("wire", ["host", None])
def test_the_usb_model_passes_on_the_wire_and_on_sync_round_trips(wire: str | None) -> None:
    clock = ManualClock()
    rig = UsbRig(clock, wire="host" if wire else None, seed=3)
    rng = random.Random(3)
    for i in range(3):
        rig.add_board(
            f"b{i}",
            offset_us=rng.randrange(10**9),
            drift_ppm=rng.uniform(-40, 40),
            timing=UsbTiming.random(rng),
            channels=24,
            sync_ch=SYNC_CH if wire else None,
        )
    report = usb_run(rig, clock, 20).report(clocks(rig))
    assert report.passed, report.lines()
    worst = max(percentiles(r.errors)[1] for r in report.rows)
    assert worst <= (10 if wire else 300), report.lines()
    assert [r.clock for r in report.rows] == ["wire" if wire else "sync"] * 3
    assert len(report.spreads) == 20


def test_the_usb_model_fails_a_board_that_stamps_its_sync_late() -> None:
    clock = ManualClock()
    rig = UsbRig(clock, wire=None, seed=4)
    rig.add_board("good", timing=UsbTiming(), channels=24)
    rig.add_board("late", timing=UsbTiming(stamp_us=2_000), channels=24)
    report = usb_run(rig, clock, 10).report(clocks(rig))
    assert not report.passed
    late = next(r for r in report.rows if r.input.source == "late")
    assert percentiles(late.errors)[0] > 900  # half its late stamp, and more
    assert late.problem and "is over the 300 µs the README promises" in late.problem
    good = next(r for r in report.rows if r.input.source == "good")
    assert good.problem is None
    assert report.across_problem and "over the 600 µs promised" in report.across_problem


def test_percentiles_are_by_nearest_rank() -> None:
    assert percentiles([5.0]) == (5.0, 5.0, 5.0)
    assert percentiles([float(v) for v in range(1, 101)]) == (50.0, 95.0, 100.0)
