"""One error root (buzzerbox.errors); config and input faults are also ValueErrors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from buzzerbox.appliance.hardware import build_docs
from buzzerbox.errors import BuzzerboxError, ConfigError, InputError
from buzzerbox.mqtt.topics import check_box_name, parse_broker
from buzzerbox.pads import protocol
from buzzerbox.pads.clockmap import ClockMap
from buzzerbox.pads.debounce import Debouncer
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard
from buzzerbox.pads.padmap import parse_pad_map

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("kind", "fault", "says"),
    [
        (ConfigError, lambda: parse_broker("http://broker"), "scheme 'http' is not known"),
        (ConfigError, lambda: check_box_name("table 3!"), "table 3!"),
        (ConfigError, lambda: parse_pad_map("[pads]\n"), "key .pads. is not allowed"),
        (InputError, lambda: ClockMap(0), "tick_hz 0 is not allowed"),
        (InputError, lambda: Debouncer(-1), "window -1 µs is not allowed"),
        (InputError, lambda: BoardClock(offset_us=-5), "offset -5 µs is not allowed"),
        (InputError, lambda: FakeBoard(channels=4).press(4), "channel 4 does not exist: .* 0-3"),
        (InputError, lambda: protocol.encode("EDGE  1"), "exactly one space"),
    ],
)
def test_a_fault_is_a_buzzerbox_error_and_a_value_error(
    kind: type[BuzzerboxError], fault: Callable[[], object], says: str
) -> None:
    with pytest.raises(kind, match=says) as info:
        fault()
    assert isinstance(info.value, BuzzerboxError) and isinstance(info.value, ValueError)


def test_a_build_readme_without_its_wiring_markers_is_a_config_error(tmp_path: Path) -> None:
    folder = tmp_path / "build"
    folder.mkdir()
    source = ROOT / "hardware" / "builds" / "twinit-gpio" / "pads.toml"
    (folder / "pads.toml").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "README.md").write_text("# my build\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"README\.md has no place for the wiring: put"):
        build_docs(folder)


def test_the_root_is_one_class_every_layer_shares() -> None:
    import buzzerbox
    from buzzerbox.appliance.errors import PackageFileMissingError
    from buzzerbox.pads.errors import PadsError
    from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
    from buzzerbox.server.errors import BadBody
    from buzzerbox.store.eventlog import StoreError

    assert buzzerbox.BuzzerboxError is BuzzerboxError
    assert issubclass(BadBody, InputError) and issubclass(BadBody, ValueError)
    assert issubclass(PackageFileMissingError, FileNotFoundError)
    leaves = (PadsError, InvalidEventError, IllegalEventError, StoreError, BadBody)
    for leaf in (*leaves, PackageFileMissingError):
        assert issubclass(leaf, BuzzerboxError)
