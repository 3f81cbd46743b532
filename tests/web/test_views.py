"""The whole state a stream starts with (web/views.py, `PhoneViews.full`): encoded once a
view for a thousand phones opening, each with its own `now_us`, the same text as the
view encoded for that stream alone."""

from __future__ import annotations

import json
from typing import Any

from buzzerbox.box import Box
from buzzerbox.live.livestate import dumps
from buzzerbox.web.views import PhoneViews, phone_views

from web.web_fakes import ManualClock  # type: ignore[import-not-found]


def alone(views: PhoneViews, view: Any, is_admin: bool) -> str:
    """The view encoded for one stream, as it was before it was kept."""
    return dumps({**view, "box": {**view["box"], "admin": is_admin, "now_us": views.box.now_us()}})


def test_each_stream_gets_the_view_with_its_own_now_and_a_new_view_anew(
    box: Box, clock: ManualClock
) -> None:
    views = phone_views(box, {"URLS": ["http://box.local/"]})
    first = views.state_view._view
    for is_admin in (False, True, False):
        clock.advance(1234)
        text = views.full(first, is_admin)  # type: ignore[arg-type]
        assert text == alone(views, first, is_admin)
        assert json.loads(text or "")["box"]["now_us"] == box.now_us()
    box.new_game({"game": "ligretto", "players": ["Ann", "Ben"]})
    later = views.state_view._view
    assert later is not first
    assert views.full(later, False) == alone(views, later, False)  # type: ignore[arg-type]
    assert views.full(None, True) is None
