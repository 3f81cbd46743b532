"""GET /api/events: the live stream's endpoint (live/sse.py's `Stream`: the full state
then deltas; fanout.py for how it is written to a thousand phones under waitress, and
handover.py for how a phone's connection goes to it from waitress). Who gets a place is
decided here, before the live engine is asked (server/streams.py): the admin, the
table's members (members.py), then the viewers."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import replace

from flask import Blueprint, Response, request
from flask.typing import ResponseReturnValue

from buzzerbox.errors import Words
from buzzerbox.live.fanout import Fanout
from buzzerbox.live.handover import Handover, HeldOpen, handed_over
from buzzerbox.live.sse import Stream, StreamBody, StreamSettings
from buzzerbox.server.auth import Auth, refuse
from buzzerbox.server.detach import stream_channel
from buzzerbox.server.guard import Guard, channel_of
from buzzerbox.server.streams import (
    ADMIN,
    SHARE_TAKEN,
    VIEWER,
    Place,
    Slotted,
    StreamPlaces,
    give_way_of,
)


def live_blueprint(
    stream: Stream,
    auth: Auth,
    settings: StreamSettings,
    fanout: Fanout | None,
    guard: Guard,
    member: Callable[[], str | None] = lambda: None,
) -> Blueprint:
    bp = Blueprint("live", __name__, url_prefix="/api")
    places = StreamPlaces(stream.max_clients, guard.limits.streams_per_address)

    @bp.get("/events")
    def events() -> ResponseReturnValue:
        is_admin = auth.is_admin()
        who = ADMIN if is_admin else (member() or VIEWER)
        handover = Handover()  # the fanout's once the head is sent (live/handover.py)
        way = give_way_of(channel_of(request.environ), handover.taken)
        place = places.enter(request.remote_addr or "?", who, stream.join, *way)
        if place == SHARE_TAKEN:
            words = Words("this address already has its share of live streams: close some pages")
            return refuse(429, words, headers={"Retry-After": "5"}, code="too-many-streams")
        if not isinstance(place, Place):
            words = Words("the box serves as many phones as it can: try again soon")
            return refuse(503, words, headers={"Retry-After": "5"}, code="box-full")
        held = place
        last = stream.version_of(request.headers.get("Last-Event-ID"))
        # streams end at staggered times, so a thousand phones do not all come back at once
        lifetime = settings.max_stream_s * random.uniform(0.75, 1.0)
        channel = stream_channel(request.environ) if fanout is not None else None
        messages: Iterator[bytes]
        if fanout is not None and channel is not None:
            version, data = stream.catch_up(last, is_admin)
            head = settings.head + data
            messages = handed_over(
                fanout, channel, request.environ, head, is_admin, version, lifetime, handover
            )
        else:
            messages = stream.messages(is_admin, last, replace(settings, max_stream_s=lifetime))
        body = StreamBody(stream, Slotted(messages, lambda: places.leave(held)))
        return Response(
            HeldOpen(body, handover),  # its places given back when the phone is let go
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    return bp
