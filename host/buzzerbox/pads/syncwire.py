"""The sync wire's pulser: opened from the pad map's ``[sync] gpio``, on a pin factory
(the Pi's own when none is given). A box that cannot pulse says so, and the boards on
the wire line up by the pulses they see (timeline/syncgroup.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from buzzerbox.clock import monotonic_us
from buzzerbox.pads.errors import PadsError
from buzzerbox.pads.padmap import PadMap

if TYPE_CHECKING:
    from buzzerbox.pads.gpio import SyncPulser


def open_pulser(
    pad_map: PadMap | None, factory: Any, warn: Callable[[str], None]
) -> SyncPulser | None:
    """The pulser of the map's ``[sync] gpio`` on `factory` (None: the Pi's own), or
    None, said through `warn`: then boards on the wire line up by the pulses they see."""
    if pad_map is None or pad_map.sync_gpio is None:
        return None
    from buzzerbox.pads.gpio import SyncPulser  # gpiozero: only for a box that pulses

    try:
        if factory is None:
            from buzzerbox.pads.pifactory import open_pi_factory

            factory = open_pi_factory()
        return SyncPulser(factory, monotonic_us, pin=pad_map.sync_gpio)
    except (PadsError, OSError, RuntimeError) as exc:
        warn(
            f"the sync wire on GPIO{pad_map.sync_gpio} is not pulsed here ({exc}); "
            "boards on it are lined up by the pulses they see"
        )
        return None
