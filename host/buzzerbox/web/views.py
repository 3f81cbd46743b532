"""What each audience of the box is shown: the state object as a phone gets it (`public`:
the box's, plus this session and now), and the phones' live stream of it (a `Stream`
with a `StateView`, subscribed to the box). `buzzerbox serve` and the tests make one
`PhoneViews` and hand it to create_app, which only registers the blueprints around it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from buzzerbox.box import Box
from buzzerbox.box.boxjson import BoxJson, BoxStateJson
from buzzerbox.live.livestate import StateView, dumps
from buzzerbox.live.sse import Stream

#: the place of a stream's own `now_us` in a view encoded once (`PhoneViews.full`): a
#: number no clock of the box gives
NOW_MARK = -(2**62) + 40


class PhoneExtras(TypedDict):
    """What every phone is told of the box beside its state: whether its pads are open
    to anyone (--open-pads) and whether there is Wi-Fi to join."""

    open_pads: bool
    wifi: bool


class PhoneViews:
    """The box's state for a viewer or the admin, and the phones' live stream of it."""

    def __init__(
        self,
        box: Box,
        extras: PhoneExtras,
        max_clients: int = 1000,
        urls: Callable[[], list[str]] = list,
    ) -> None:
        self.box = box
        self.extras = extras.copy()
        #: the addresses phones open the box at now (server/reach.py; empty: no network)
        self.urls = urls
        #: the latest view encoded for a viewer and for the admin, `now_us` marked:
        #: (the view, its text before the mark, after it), by is_admin
        self._encoded: dict[bool, tuple[object, str, str]] = {}
        self.stream = Stream(self.full, full_kind="state", max_clients=max_clients)
        self.state_view = StateView(self.stream, self.view)
        self.state_view.publish(box.state())
        box.when_changed.append(self.state_view.publish)

    def public(self, state: BoxStateJson, is_admin: bool) -> BoxStateJson:
        """The state object as a phone gets it: the box's, plus the addresses phones open
        it at now (empty: no network), this session and now."""
        out = state.copy()
        box: BoxJson = {**state["box"], "urls": self.urls(), **self.extras}
        out["box"] = {**box, "admin": is_admin, "now_us": self.box.now_us()}
        return out

    def view(self, state: BoxStateJson) -> BoxStateJson:
        """The state for the live stream: now_us only while a countdown runs (it is
        what the phones count against), so that a pad press does not change it."""
        out = self.public(state, False)
        if out["box"]["countdown_ends_us"] is None:
            out["box"]["now_us"] = None
        return out

    def full(self, view: BoxStateJson | None, is_admin: bool) -> str | None:
        """A view as a whole state for a stream starting now (this session, now). A
        thousand phones opening get the same view: it is encoded once for a viewer and
        once for the admin, and each stream's `now_us` put in its place."""
        if view is None:
            return None
        now = self.box.now_us()
        held = self._encoded.get(is_admin)
        if held is None or held[0] is not view:
            box = {**view["box"], "admin": is_admin, "now_us": NOW_MARK}
            text = dumps({**view, "box": box})
            mark = f'"now_us":{NOW_MARK}'
            if text.count(mark) != 1:  # the mark is not only the stream's own: not kept
                return dumps({**view, "box": {**box, "now_us": now}})
            before, _, after = text.partition(mark)
            held = (view, before + '"now_us":', after)
            self._encoded[is_admin] = held
        return f"{held[1]}{now}{held[2]}"


def phone_views(box: Box, config: Mapping[str, Any]) -> PhoneViews:
    """The phones' views of `box` as an app with `config` shows them (its addresses: REACH,
    server/reach.py, or the fixed URLS; whether pads are open, whether there is Wi-Fi to
    join, how many live streams at most)."""
    fixed = list(config.get("URLS", []))
    reach: Callable[[], list[str]] = config.get("REACH") or (lambda: fixed)
    extras: PhoneExtras = {
        "open_pads": bool(config.get("OPEN_PADS")),
        "wifi": bool(config.get("WIFI_SSID")),
    }
    return PhoneViews(box, extras, int(config.get("SSE_MAX_CLIENTS", 1000)), reach)
