"""A kernel GPIO line (issue 36, item 2): the installed box's GPIO pads (build 1's pad
map, hardware/builds/twinit-gpio) on a chip of the VM's kernel, gpio-sim built from
Debian's linux-source, read as on a Pi: lgpio (python3-lgpio, from its PyPI source)
and gpiozero's LGPIOFactory, chosen by the box because /proc/device-tree/model says
Raspberry Pi (the VM's pi-devicetree module; nothing the box's users could set).

The tests press pads by a line's pull (gpio-sim's sysfs `pull`: pull-down is the
pad's contact to GND), each press timed in the VM on CLOCK_MONOTONIC before and after
the write; the box's times are the kernel's edge stamps: lgpio hands them to
gpiozero in ns of CLOCK_MONOTONIC, gpiozero to the box in seconds, the box keeps µs
(pads/gpio.py, seconds_to_us), on the box's timeline (those µs plus an offset fixed
at its start: appliance.Timeline). Every press's logged t_us falls inside its write's
window on one offset for all the presses of a run of the box, also when the box was
stopped (SIGSTOP) across the presses so that every callback ran late, in one burst
after them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .appliance import (
    BOOT_S,
    DOWN,
    PIN_LINE,
    SLAP,
    SLAP_LIGHT,
    STOP,
    UP,
    Pull,
    Table,
    parse_pulls,
    pull_script,
    pulls,
)
from .powercut import Appliance

pytestmark = [pytest.mark.realstack, pytest.mark.timeout(1800)]


@pytest.fixture
def table(appliance: Appliance) -> Iterator[Table]:
    """The admin's phone and a live stream on the tier's VM (booted if it is off)."""
    table = appliance.table()
    yield table
    table.close()


def release_all(table: Table) -> None:
    """Every pad let go, in one shell line (no timing wanted: no Python started in the
    VM, which takes seconds under software emulation)."""
    files = " ".join(
        f"/run/pi-header/sim_gpio{gpio}/pull" for gpio in (*SLAP.values(), *STOP.values())
    )
    table.vm.ssh(f"for f in {files}; do echo {UP} >$f; done")


def test_a_press_reaches_the_phones_with_the_kernels_time(table: Table) -> None:
    """The press and, 300 ms later, the release, each at its own contact change: the
    two stamps fit one offset only if they are the kernel's, in µs (a tick read in
    another unit, or the callbacks' time, would put them apart by other than 300 ms)."""
    go = table.new_round()
    press, release = pulls(table.vm, [(SLAP[1], DOWN, 300_000), (SLAP[1], UP, 0)])
    table.seen(go + 2)  # the press, then the release (after its pad's release hold)
    state = table.state()
    race = state["race"]
    assert [p["seat"] for p in race] == [1]
    edges = [e for e in state["box"]["pad_test"] if e["pad"] == "s1-slap"]
    assert [e["edge"] for e in edges[-2:]] == ["press", "release"], edges
    assert edges[-2]["t_us"] == race[0]["t_us"]
    line = table.timeline
    assert line.fits(press, race[0]["t_us"]), (press, race, line.offset)
    assert line.fits(release, edges[-1]["t_us"]), (release, edges, line.offset)


def stopped_presses(table: Table, plan: list[tuple[int, str, int]]) -> list[Pull]:
    """`plan` run while the box is stopped (SIGSTOP): lgpio's callbacks all run after
    it, in one burst, whatever the edges' times."""
    kill = "systemctl kill --kill-whom=main -s {} buzzerbox"
    out = table.vm.ssh(
        f"{kill.format('SIGSTOP')} && {pull_script(plan)}; {kill.format('SIGCONT')}"
    ).stdout
    return parse_pulls(out)


@pytest.mark.parametrize("first,second", [(3, 2), (2, 3)])
def test_two_pads_are_ordered_by_the_kernels_stamps(table: Table, first: int, second: int) -> None:
    go = table.new_round()
    a, b = stopped_presses(table, [(SLAP[first], DOWN, 1500), (SLAP[second], DOWN, 0)])
    table.seen(go + 2)
    race = table.state()["race"]
    assert [p["seat"] for p in race] == [first, second]
    line = table.timeline
    assert line.fits(a, race[0]["t_us"]) and line.fits(b, race[1]["t_us"]), (
        a,
        b,
        race,
        line.offset,
    )
    lead = race[1]["lead_us"]
    assert b.after_us - a.before_us <= lead <= b.before_us - a.after_us
    assert lead >= 1500
    release_all(table)


def test_a_bouncing_contact_is_one_press(table: Table) -> None:
    go = table.new_round()
    bounce = [(SLAP[0], DOWN, 800), (SLAP[0], UP, 500), (SLAP[0], DOWN, 900), (SLAP[0], UP, 400)]
    steps = pulls(table.vm, [*bounce, (SLAP[0], DOWN, 0)])
    table.seen(go + 1)
    state = table.state()
    edges = state["box"]["pad_test"]
    presses = [e for e in edges if e["pad"] == "s0-slap" and e["edge"] == "press"]
    assert len(presses) == 1, presses
    # the first contact counts (leading edge)
    assert table.timeline.fits(steps[0], presses[0]["t_us"]), (steps, presses)
    assert [p["seat"] for p in state["race"]] == [0]
    release_all(table)


def lights(table: Table) -> dict[int, int]:
    """Each seat's slap light as its line reads (1: lit), all read by one command."""
    seats = list(SLAP_LIGHT)
    files = " ".join(f"/run/pi-header/sim_gpio{SLAP_LIGHT[seat]}/value" for seat in seats)
    values = table.vm.ssh(f"cat {files}").stdout.split()
    assert len(values) == len(seats), values
    return {seat: int(value) for seat, value in zip(seats, values, strict=True)}


def test_the_claimants_light_is_lit_on_its_line(table: Table) -> None:
    go = table.new_round()
    assert lights(table) == dict.fromkeys(SLAP_LIGHT, 0)
    pulls(table.vm, [(SLAP[2], DOWN, 0)])
    table.seen(go + 1)
    assert table.state()["box"]["lit"] == ["s2-slap"]
    assert lights(table) == {0: 0, 1: 0, 2: 1, 3: 0}
    release_all(table)


def test_doctor_finds_the_chip_and_the_pads(table: Table) -> None:
    """The box is stopped for it (the doctor opens the pads itself), started after."""
    doctor = (
        "runuser -u pi -- env -C /home/pi buzzerbox doctor --pads /etc/buzzerbox/pads.toml "
        "--pad-test 120 --presses 1"
    )
    press = pull_script([(STOP[2], DOWN, 60_000), (STOP[2], UP, 60_000)])
    table.close()
    out = table.vm.ssh(
        f"systemctl stop buzzerbox && {{ {doctor} >/tmp/doctor.txt 2>&1 & }} && "
        f"while kill -0 $! 2>/dev/null; do {press} >/dev/null; done; cat /tmp/doctor.txt",
        timeout=600,
    ).stdout
    since = table.vm.mark()
    table.vm.ssh("systemctl start buzzerbox")
    table.vm.wait_console(PIN_LINE, BOOT_S, since=since)
    table.timeline.offset = None  # a new run of the box: its offset is fixed anew
    assert "pin factory: lgpio (LGPIOFactory)" in out, out
    assert "Raspberry Pi Zero 2 W" in out, out
    assert "s2-stop" in out and "1 presses" in out, out
