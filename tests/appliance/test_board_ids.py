"""`buzzerbox doctor --pads MAP --write-ids` (issue 42, item 6): the boards' ids and ports go
into the pad map by the doctor, not by hand. Two fake boards on ptys stand for two new
Picos; the map is build 2's, its ids and ports still the README's examples; the board
whose pad is pressed when the doctor asks for pico-a becomes pico-a."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from buzzerbox.appliance import doctor
from buzzerbox.appliance.boardids import Change, Found, pair, rewrite
from buzzerbox.cli import build_parser
from buzzerbox.pads.fakes.padboard import FakeBoard
from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.pads.padmap import load_pad_map, parse_pad_map
from buzzerbox.pads.padmap.spec import BoardSpec
from buzzerbox.picos import PICO_VID

ROOT = Path(__file__).resolve().parents[2]
TWIST = ROOT / "hardware" / "builds" / "twist-picos" / "pads.toml"
NEW_A, NEW_B = "pico-e66141040b1e2c2a", "pico-e66141040b1e2c2b"
NOT_A_PI = Path("/nonexistent/model")  # no /proc/device-tree/model: not a Pi
NO_ALIAS = """seats = 1
[[board]]
id = "pico-old"
channels = 24
[[pad]]
id = "stop"
role = "stop"
seat = 0
board = "pico-old"
ch = 16
"""


def never(spec: BoardSpec, candidates: object) -> Found | None:
    raise AssertionError(f"asked to identify {spec.name}")


def test_the_ids_and_ports_are_rewritten_and_the_rest_is_kept() -> None:
    text = TWIST.read_text(encoding="utf-8")
    pad_map = parse_pad_map(text)
    a, b = pad_map.boards
    found_a = Found(NEW_A, "/dev/serial/by-id/usb-A")
    changes = [Change(0, a, found_a), Change(1, b, Found(NEW_B, "/dev/serial/by-id/usb-B"))]
    new = rewrite(text, changes)
    assert new.count("\n") == text.count("\n")  # two lines changed per board, none added
    assert f'id = "{NEW_A}"   # what the board says in HELLO (buzzerbox doctor)' in new
    assert 'url = "/dev/serial/by-id/usb-B"' in new and "e7000001" not in new
    assert (
        new.replace(NEW_A, a.id)
        .replace(NEW_B, b.id)
        .replace("/dev/serial/by-id/usb-A", str(a.url))
        .replace("/dev/serial/by-id/usb-B", str(b.url))
        == text
    )
    loaded = parse_pad_map(new)
    assert [s.id for s in loaded.boards] == [NEW_A, NEW_B]
    assert {p.board for p in loaded.pads} == {NEW_A, NEW_B}  # the pads follow their alias


def test_a_board_without_an_alias_or_url_keeps_its_pads() -> None:
    pad_map = parse_pad_map(NO_ALIAS)
    new = rewrite(NO_ALIAS, [Change(0, pad_map.boards[0], Found(NEW_A, "/dev/ttyACM0"))])
    loaded = parse_pad_map(new)
    assert loaded.boards[0].id == NEW_A and loaded.boards[0].alias == "pico-old"
    assert loaded.boards[0].url == "/dev/ttyACM0"
    assert loaded.pad("stop") is not None and loaded.pad("stop").board == NEW_A  # type: ignore[union-attr]


def test_known_boards_keep_their_place_and_one_left_needs_no_press() -> None:
    pad_map = load_pad_map(TWIST)
    a, b = pad_map.boards
    moved = Found(a.id, "/dev/serial/by-id/usb-moved")
    new = Found(NEW_B, "/dev/serial/by-id/usb-new")
    assert pair(pad_map, [new, moved], never) == [Change(0, a, moved), Change(1, b, new)]
    assert pair(pad_map, [], never) == []
    asked: list[str] = []

    def nobody(spec: BoardSpec, candidates: object) -> Found | None:
        asked.append(spec.name)
        return None

    two = [Found(NEW_A, "u1"), Found(NEW_B, "u2")]
    assert pair(pad_map, two, nobody) == []  # nobody pressed: both left as they were
    assert asked == ["pico-a", "pico-b"]


@pytest.fixture
def boards() -> Iterator[dict[str, FakeBoardPort]]:
    ports = {i: FakeBoardPort(FakeBoard(i, channels=24)).start() for i in (NEW_A, NEW_B)}
    yield ports
    for port in ports.values():
        port.close()


class Console(io.StringIO):
    """The doctor's output; when it asks for a press of pico-a's pad, `board` taps one
    (a person at the table, pressing until the doctor has it)."""

    def __init__(self, board: FakeBoardPort) -> None:
        super().__init__()
        self.board = board

    def write(self, text: str) -> int:
        if text.startswith("press any pad wired to board pico-a"):
            for k in range(1, 100):  # for 15 s
                self.board.tap(0, hold_us=50_000, after_us=k * 150_000)
        return super().write(text)


def test_the_doctor_writes_the_ids_of_the_boards_it_finds(
    boards: dict[str, FakeBoardPort], tmp_path: Path
) -> None:
    pads = tmp_path / "pads.toml"
    pads.write_text(TWIST.read_text(encoding="utf-8"), encoding="utf-8")
    found = [
        SimpleNamespace(device=port.url, description="Board in FS mode", vid=PICO_VID,
                        pid=5, serial_number=None)
        for port in boards.values()
    ]  # fmt: skip
    console = Console(boards[NEW_B])  # the second board found is the one wired as pico-a
    args = build_parser().parse_args(
        ["doctor", "--pads", str(pads), "--write-ids", "--seconds", "2"]
    )
    code = doctor.run_doctor(args, out=console, model_path=NOT_A_PI, comports=lambda: found)
    text = console.getvalue()
    assert code == 0, text
    assert f"board pico-a is {NEW_B}" in text
    assert f"board pico-a: id {NEW_B} (was pico-e6614103e7000001)" in text
    assert f"board pico-b: id {NEW_A} (was pico-e6614103e7000002)" in text  # the one left
    loaded = load_pad_map(pads)
    assert [(s.name, s.id, s.url) for s in loaded.boards] == [
        ("pico-a", NEW_B, boards[NEW_B].url),
        ("pico-b", NEW_A, boards[NEW_A].url),
    ]
    assert "# what the board says in HELLO (buzzerbox doctor)" in pads.read_text(encoding="utf-8")
    # run again: the map has them now; nothing to ask, nothing to change
    console = Console(boards[NEW_B])
    code = doctor.run_doctor(args, out=console, model_path=NOT_A_PI, comports=lambda: found)
    assert code == 0, console.getvalue()
    assert "nothing to change" in console.getvalue()
    assert "press any pad" not in console.getvalue()


def test_write_ids_needs_the_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["doctor", "--write-ids", "--board", "socket://127.0.0.1:9"])
    assert doctor.run_doctor(args, out=io.StringIO(), model_path=tmp_path / "m", comports=list) == 2
    assert "--write-ids needs --pads MAP" in capsys.readouterr().err
