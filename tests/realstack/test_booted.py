"""The box on a booted Trixie (issue 36, item 1), and its first power cuts (issue 43,
item 4). install.sh ran for real in a VM of Debian 13 with Debian's kernel (images.py:
the clone in /home/pi, `install.sh --name table-07 --pads` build 1's map, as
hardware/README.md says); systemd brings the box up at every boot. Its very first
start, at the VM's first boot, is cut in its first second; it comes back. A table then
plays through the page's API from this machine (qemu's forwarded port) and the GPIO
pads, and the power is cut while it plays: after the next boot the game is where the
box last said it was saved, and the box's journal shows no error.
"""

from __future__ import annotations

import random
import re

import pytest

from tests.faults.boxproc import Phone, game_of

from .appliance import BOOT_S
from .images import INSTALL, NAME, installed_log
from .powercut import Appliance

pytestmark = [pytest.mark.realstack, pytest.mark.timeout(3600)]

FIRST_BOOT_CUT_MS = 250
SEED = 3601


def test_a_cut_in_the_first_second_of_the_first_boot(appliance: Appliance) -> None:
    appliance.first_start_cut(FIRST_BOOT_CUT_MS)
    assert appliance.vm.boots == 2  # the first boot, cut; the second, back


def test_install_sh_ran_as_the_readme_says(appliance: Appliance) -> None:
    text = installed_log().read_text()
    assert text.startswith(f"$ {INSTALL}\n")
    assert "system: Trixie (Debian 13, Python 3.13)" in text
    assert "board: Raspberry Pi Zero 2 W Rev 1.0" in text  # the VM's device tree (guest/)
    assert "+ apt-get update -qq" in text and "Setting up python3-lgpio" in text
    assert re.search(r"\[exit 0, \d+ s\]\n$", text), text[-2000:]

    appliance.up()
    vm, pin = appliance.vm, appliance.pin
    assert re.fullmatch(r"\d{8}", pin), pin
    toml = vm.ssh("cat /etc/buzzerbox/box.toml").stdout
    assert f'pin = "{pin}"' in toml and f'name = "{NAME}"' in toml
    assert 'pads = "/etc/buzzerbox/pads.toml"' in toml
    assert vm.ssh("hostname").stdout.strip() == NAME
    # the name the QR codes were printed with, beside Pi OS's avahi-daemon
    banner = vm.wait_console(r"buzzerbox scoreboard: (\S+)", BOOT_S).group(1)
    assert banner == f"http://{NAME}.local/"
    assert re.search(rf"^127\.0\.1\.1\s+{NAME}$", vm.ssh("cat /etc/hosts").stdout, re.M)
    assert set(vm.ssh("id -nG buzzerbox").stdout.split()) >= {"buzzerbox", "gpio", "dialout"}
    assert vm.ssh("systemctl is-enabled buzzerbox").stdout.strip() == "enabled"
    assert vm.ssh("stat -c '%U:%G %a' /var/lib/buzzerbox").stdout.split() == [
        "buzzerbox:buzzerbox",
        "750",
    ]
    # python3-lgpio from the local archive (as Pi OS's from its own), seen by the venv
    assert "0buzzerbox1" in vm.ssh("dpkg-query -W python3-lgpio").stdout
    vm.ssh("/opt/buzzerbox/venv/bin/python -c 'import lgpio, buzzerbox.live._sendall'")
    # pip built from a copy: nothing of root's is left in the user's clone
    assert vm.ssh("find /home/pi/buzzerbox -user root -print -quit").stdout == ""
    phone = Phone(vm.http_port, timeout=60)
    status, page = phone.call("GET", "/")
    assert status == 200 and b"buzzerbox" in page.lower()
    phone.close()


def test_the_game_is_where_it_was_after_a_power_cut(appliance: Appliance) -> None:
    rng = random.Random(SEED)
    play = appliance.play_cut(rng, rng.uniform(8, 16))
    assert play.last is not None, "no answer of the table's said saved before the cut"
    again = Phone(appliance.vm.http_port, timeout=60)
    again.headers = play.table.phone.headers  # the admin's session outlives the cut
    assert again.call("GET", "/api/session")[1]["admin"] is True
    after = again.state()
    again.close()
    assert after["box"]["game_id"] >= play.last["box"]["game_id"]
    if after["box"]["seq"] == play.last["box"]["seq"]:  # nothing after it was kept
        assert game_of(after) == game_of(play.last)
    assert appliance.vm.ssh("systemctl show -p NRestarts --value buzzerbox").stdout == "0\n"
