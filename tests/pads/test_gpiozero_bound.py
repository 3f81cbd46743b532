"""The test pin overrides gpiozero's private MockPin._change_state: pyproject bounds
gpiozero, and this checks the installed one is inside the bound and still works the
way the override assumes (a newer gpiozero fails here first, by name)."""

from __future__ import annotations

import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path

from buzzerbox.pads.fakes.pins import ClockedMockFactory, ClockedPin
from buzzerbox.testing import START_US, ManualClock
from gpiozero.pins.mock import MockPin, PinState
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]


def gpiozero_requirement() -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (spec,) = [r for r in project["dependencies"] if Requirement(r).name == "gpiozero"]
    return Requirement(spec)


def test_gpiozero_has_an_upper_bound_and_the_installed_one_is_inside_it() -> None:
    req = gpiozero_requirement()
    assert any(s.operator == "<" for s in req.specifier), f"{req}: no upper bound"
    assert req.specifier.contains(version("gpiozero"), prereleases=True), (
        f"gpiozero {version('gpiozero')} is outside {req}: check ClockedPin, then the bound"
    )


def test_the_private_contract_the_clocked_pin_overrides() -> None:
    assert list(inspect.signature(MockPin._change_state).parameters) == ["self", "value"]
    for method, level in ((MockPin.drive_high, "True"), (MockPin.drive_low, "False")):
        assert f"self._change_state({level})" in inspect.getsource(method)
    assert "self._last_change" in inspect.getsource(MockPin._call_when_changed)
    assert ClockedPin._change_state is not MockPin._change_state


def test_a_clocked_pin_stamps_edges_with_the_clock() -> None:
    clock = ManualClock(START_US)
    factory = ClockedMockFactory(clock)
    try:
        pin = factory.pin(4)
        pin.function = "input"
        pin.pull = "up"
        seen: list[tuple[float, bool]] = []

        def changed(ticks: float, state: bool) -> None:
            seen.append((ticks, state))

        pin.edges = "both"
        pin.when_changed = changed
        start = clock()
        clock.advance(250)
        pin.drive_low()
        clock.advance(1_000)
        pin.drive_high()
        assert seen == [((start + 250) / 1e6, False), ((start + 1_250) / 1e6, True)]
        gaps = [(round(s.timestamp * 1e6), s.state) for s in pin.states[-2:]]
        assert gaps == [(250, False), (1_000, True)]
        assert all(isinstance(s, PinState) for s in pin.states)
    finally:
        factory.close()
