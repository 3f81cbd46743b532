"""The box's state object: the game's (rules/statejson.py `StateJson`) and, under `box`,
the box's own: its pads and their test, the countdown, the log's seq, the phones, what
other parts report of themselves (the broker link, the addresses, unsaved events).

`Box.state()` makes it and its listeners get it (`when_changed`); the web adds what a
phone is told of itself and now (web/views.py: `urls`, `admin`, `now_us`, ...) and the
API whether it is on the disk (`saved`). It leaves the process only as JSON (the API,
the live stream, MQTT). Types only: nothing here runs.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from buzzerbox.box.padtest import PadTestEdgeJson
from buzzerbox.box.phones import PhonesJson
from buzzerbox.pads.pad import PadJson
from buzzerbox.pads.timeline.arbiter import BoardJson
from buzzerbox.rules.statejson import StateJson


class BoxJson(TypedDict):
    """The state's `box`."""

    simulated: bool
    pads: list[PadJson]
    countdown_ends_us: int | None
    countdown: str | None
    seq: int
    game_id: int | None
    variants: list[str]
    lit: list[str]
    enrolling: int | None
    pad_test: list[PadTestEdgeJson]
    boards: list[BoardJson]
    phones: PhonesJson
    colours: list[int]
    # what other parts report (`Box.report`), in the order they first did
    mqtt: NotRequired[dict[str, object]]
    urls: NotRequired[list[str]]
    unsaved: NotRequired[int | None]
    # what a phone is told (web/views.py, web/api.py)
    open_pads: NotRequired[bool]
    wifi: NotRequired[bool]
    admin: NotRequired[bool]
    now_us: NotRequired[int | None]
    saved: NotRequired[bool]


class BoxStateJson(StateJson):
    """The box's state object: the game's, what its log refused, and `box`."""

    box: BoxJson
