"""The power-on self-test: at serve start, are the pads as the pad map says? In words.

`SELFTEST_S` after the pads start (`PadFeed` runs it; the box starts whatever it says):

- each board of the pad map answered HELLO (it is plugged in, runs the firmware);
- its clock maps onto the host timeline (its SYNC round trips, or its sync wire);
- every pad reads released: a pad whose last edge was a press is held down (a hand, a
  card on a pile, or a jack shorted or wired to the wrong socket).

A board takes the levels at its power-up as known and reports only changes
(firmware/padboard/debounce.py), and the protocol has no state query: a board pad held
since before its board booted cannot be seen here (a GPIO pad's level is read).
`SelfTest` is PURE but for the sources it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final

from buzzerbox.pads.padmap import PadMap
from buzzerbox.pads.timeline.arbiter import Edge, PadEvent

if TYPE_CHECKING:
    from buzzerbox.pads.sources import PadSources

SELFTEST_S: Final = 5.0
"""A board says HELLO within a second of its port opening; its SYNC map is trusted
after 16 round trips 20 ms apart; a sync wire maps it after 2 pulses, 1 s apart."""


class SelfTest:
    """Collects the final edges; `problems` says what is wrong, in words."""

    def __init__(self, pad_map: PadMap) -> None:
        self.pad_map = pad_map
        self.pressed: dict[str, bool] = {}

    def take(self, ev: PadEvent) -> None:
        if isinstance(ev, Edge):
            self.pressed[ev.pad] = ev.is_press

    def problems(
        self,
        hellos: Mapping[str, str | None],
        gpio_pressed: Callable[[int], bool] | None = None,
    ) -> list[str]:
        """`hellos`: each board id that said HELLO -> how its clock maps (None: not
        yet); `gpio_pressed(pin)`: a GPIO pad's level now (None: GPIO not in use)."""
        found = []
        for spec in self.pad_map.boards:
            if spec.id not in hellos:
                where = f" at {spec.url}" if spec.url else ""
                found.append(
                    f"board {spec.name}{where} did not answer HELLO: plugged in, with the "
                    "buzzerbox firmware? (buzzerbox doctor)"
                )
            elif hellos[spec.id] is None:
                found.append(
                    f"board {spec.name}: its clock did not map (no SYNC answered in time): "
                    "its presses are not used until it does (buzzerbox doctor)"
                )
        for pad in self.pad_map.pads:
            held = self.pressed.get(pad.id, False)
            if pad.is_gpio and gpio_pressed is not None:
                held = gpio_pressed(pad.ch)
            if held:
                where = f"GPIO{pad.ch}" if pad.is_gpio else f"board {pad.board} ch {pad.ch}"
                found.append(
                    f"pad {pad.id} ({pad.describe()}, {where}) reads pressed: lift what is "
                    "on it, or look for a shorted or swapped jack (buzzerbox doctor --lamps)"
                )
        return found

    def check(self, sources: PadSources) -> list[str]:
        """The problems of `sources` now (their sessions and GPIO pads)."""
        hellos = {
            s.hello.board_id: (s.clock_source or "sync") if s.is_mapped else None
            for s in sources.sessions
            if s.hello is not None
        }
        gpio = sources.gpio
        return self.problems(hellos, gpio.is_pressed if gpio is not None else None)
