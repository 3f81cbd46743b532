"""`buzzerbox firmware install` with no port: the one Pico plugged in, or a refusal that
lists them when there are several (the ports a fake list of pyserial's own ListPortInfo)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from buzzerbox import flash, picos
from buzzerbox.cli import main
from serial.tools.list_ports_common import ListPortInfo

from .fwbench import FIRMWARE


def port(device: str, vid: int | None, serial: str | None = None) -> ListPortInfo:
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.serial_number = vid, 0x0005 if vid else None, serial
    info.description = "Board in FS mode" if vid == picos.PICO_VID else "USB serial"
    return info


@pytest.fixture
def plugged(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[ListPortInfo]]:
    ports: list[ListPortInfo] = []
    monkeypatch.setattr(picos, "system_comports", lambda: list(ports))
    yield ports


def test_the_one_pico_is_taken(
    plugged: list[ListPortInfo], capsys: pytest.CaptureFixture[str]
) -> None:
    plugged += [port("/dev/ttyUSB0", 0x0403), port("/dev/ttyACM1", picos.PICO_VID, "E661")]
    assert main(["firmware", "install", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(" connect /dev/ttyACM1 " in line for line in lines)


def test_two_picos_are_refused_and_listed(
    plugged: list[ListPortInfo], capsys: pytest.CaptureFixture[str]
) -> None:
    plugged += [
        port("/dev/ttyACM1", picos.PICO_VID, "E662"),
        port("/dev/ttyACM0", picos.PICO_VID, "E661"),
        port("/dev/ttyUSB0", 0x0403),
    ]
    assert main(["firmware", "install", "--dry-run"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # not one mpremote command
    assert (
        "2 Picos are plugged in: /dev/ttyACM0 (Board in FS mode, serial E661); "
        "/dev/ttyACM1 (Board in FS mode, serial E662). Name the one to install, "
        "e.g. buzzerbox firmware install /dev/ttyACM0"
    ) in captured.err


def test_a_named_port_is_used_whatever_is_plugged_in(plugged: list[ListPortInfo]) -> None:
    plugged += [port("/dev/ttyACM0", picos.PICO_VID), port("/dev/ttyACM1", picos.PICO_VID)]
    commands = flash.install_commands(FIRMWARE, "/dev/ttyACM1", ["mpremote"])
    assert all(c[1:3] == ["connect", "/dev/ttyACM1"] for c in commands)
    assert main(["firmware", "install", "/dev/ttyACM1", "--dry-run"]) == 0


def test_without_a_pico_mpremote_looks_for_itself(plugged: list[ListPortInfo]) -> None:
    plugged.append(port("/dev/ttyUSB0", 0x0403))
    assert picos.the_one_pico(picos.system_comports) is None
