"""GET /api/events: the live stream's endpoint (live/sse.py's `Stream`: the full state
then deltas; fanout.py for how it is written to a thousand phones under waitress, and
handover.py for how a phone's connection goes to it from waitress). Who gets a place is
decided here, before the live engine is asked (server/streams.py): the admin, the
table's members (members.py), then the viewers.

A viewer's stream is opened below Flask (`ViewerPath`, issue 40's "at the door"): a
request that can only be a viewer's (none of the cookies that make the admin's session
or a member's, though the language switch's may be there; not on the admin's lane; no
body) is admitted by the same `StreamDoor` as the
Flask route and answered with the same head, without Flask's request context, session
and response objects, which took about half of a phone's CPU at the door. Every other
request to /api/events, and a viewer's refusal (said in its language by the app), goes
through Flask as before; a refused viewer is not admitted twice. Under the box's
server a viewer's stream is opened on waitress's loop thread itself, no worker thread
woken for it (`ViewerPath.on_loop`, server/loop.py): nothing of it waits for the phone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any

from flask import Blueprint, Response, request
from flask.typing import ResponseReturnValue
from werkzeug.http import parse_cookie

from buzzerbox.errors import Words
from buzzerbox.live.fanout import Fanout
from buzzerbox.live.handover import Handover, HeldOpen, handed_over
from buzzerbox.live.sse import Stream, StreamBody, StreamSettings
from buzzerbox.server.auth import Auth, refuse
from buzzerbox.server.detach import stream_channel
from buzzerbox.server.guard import Guard, channel_of, is_lane
from buzzerbox.server.security import security_headers
from buzzerbox.server.streams import (
    ADMIN,
    SHARE_TAKEN,
    VIEWER,
    Place,
    Slotted,
    StreamPlaces,
    give_way_of,
)

PATH = "/api/events"
#: the stream's own headers (the security headers are added to them as to every answer)
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
MIMETYPE = "text/event-stream"
#: a viewer's refusal at the WSGI path, for the Flask route to say (environ key)
REFUSED = "buzzerbox.stream_refused"
#: an error opening a viewer's stream at the WSGI path, for Flask's handlers to answer
FAILED = "buzzerbox.stream_failed"

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class StreamDoor:
    """A stream's admission and its body, for the Flask route and the WSGI path alike."""

    def __init__(
        self, stream: Stream, settings: StreamSettings, fanout: Fanout | None, guard: Guard
    ) -> None:
        self.stream = stream
        self.settings = settings
        self.fanout = fanout
        self.places = StreamPlaces(stream.max_clients, guard.limits.streams_per_address)

    def open(self, environ: dict[str, Any], who: str) -> HeldOpen | str:
        """The body of a stream of `who` (ADMIN, VIEWER or a member's key) for the
        request `environ`, or why it has no place (SHARE_TAKEN, FULL)."""
        is_admin = who == ADMIN
        handover = Handover()  # the fanout's once the head is sent (live/handover.py)
        way = give_way_of(channel_of(environ), handover.taken)
        place = self.places.enter(environ.get("REMOTE_ADDR") or "?", who, self.stream.join, *way)
        if not isinstance(place, Place):
            return place
        held = place
        stream, settings, fanout = self.stream, self.settings, self.fanout
        last = stream.version_of(environ.get("HTTP_LAST_EVENT_ID"))
        # streams end at staggered times, so a thousand phones do not all come back at once
        lifetime = settings.max_stream_s * random.uniform(0.75, 1.0)
        channel = stream_channel(environ) if fanout is not None else None
        messages: Iterator[bytes]
        if fanout is not None and channel is not None:
            version, data = stream.catch_up(last, is_admin)
            head = settings.head + data
            messages = handed_over(
                fanout, channel, environ, head, is_admin, version, lifetime, handover
            )
        else:
            messages = stream.messages(is_admin, last, replace(settings, max_stream_s=lifetime))
        body = StreamBody(stream, Slotted(messages, lambda: self.places.leave(held)))
        return HeldOpen(body, handover)  # its places given back when the phone is let go


def refusal(why: str) -> ResponseReturnValue:
    """The answer to a stream refused its place (`StreamDoor.open`), in the request's
    language."""
    if why == SHARE_TAKEN:
        words = Words("this address already has its share of live streams: close some pages")
        return refuse(429, words, headers={"Retry-After": "5"}, code="too-many-streams")
    words = Words("the box serves as many phones as it can: try again soon")
    return refuse(503, words, headers={"Retry-After": "5"}, code="box-full")


def live_blueprint(
    door: StreamDoor, auth: Auth, member: Callable[[], str | None] = lambda: None
) -> Blueprint:
    bp = Blueprint("live", __name__, url_prefix="/api")

    @bp.get("/events")
    def events() -> ResponseReturnValue:
        refused = request.environ.get(REFUSED)
        if refused is not None:  # a viewer refused at the WSGI path: said here
            return refusal(refused)
        failed = request.environ.get(FAILED)
        if failed is not None:  # answered as the app answers errors (JSON, its language)
            raise failed
        who = ADMIN if auth.is_admin() else (member() or VIEWER)
        opened = door.open(request.environ, who)
        if isinstance(opened, str):
            return refusal(opened)
        return Response(opened, mimetype=MIMETYPE, headers=HEADERS)

    return bp


def is_viewers(environ: dict[str, Any], whose: frozenset[str]) -> bool:
    """Whether a request can only be a viewer's stream: GET /api/events with none of the
    cookies `whose` (the admin's session's, a member's), no body, not on the admin's
    lane."""
    if not (
        environ.get("PATH_INFO") == PATH
        and environ.get("REQUEST_METHOD") == "GET"
        and environ.get("CONTENT_LENGTH", "") in ("", "0")
        and "HTTP_TRANSFER_ENCODING" not in environ
        and not is_lane(environ)
    ):
        return False
    cookies = environ.get("HTTP_COOKIE")
    return not cookies or whose.isdisjoint(parse_cookie(cookies).keys())


class ViewerPath:
    """The app's WSGI callable with a viewer's stream opened below Flask (the module's
    docstring): the same admission (`door`), the same head as the Flask route's. `whose`:
    the cookies that may make a request the admin's or a member's."""

    def __init__(
        self, app: WSGIApp, door: StreamDoor, whose: frozenset[str], form_action: str = "'self'"
    ) -> None:
        self.app = app
        self.door = door
        self.whose = whose
        head = Response(mimetype=MIMETYPE, headers=HEADERS)
        head.vary.add("Cookie")  # as Flask's session says of the route's answer
        security_headers(form_action)(head)
        self.headers = list(head.headers.items())

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        if not is_viewers(environ, self.whose):
            return self.app(environ, start_response)
        try:
            opened = self.door.open(environ, VIEWER)
        except Exception as exc:  # Flask's handlers answer it
            environ[FAILED] = exc
            return self.app(environ, start_response)
        if isinstance(opened, str):
            environ[REFUSED] = opened
            return self.app(environ, start_response)
        start_response("200 OK", list(self.headers))
        return opened

    def on_loop(self, environ: dict[str, Any]) -> bool:
        """Whether the server may serve this request on its loop thread (server/loop.py):
        a viewer's stream whose connection the fanout takes once its head is written (no
        thread waits for the phone: live/handover.py). A stream without the fanout, or on
        another server, would hold its thread for minutes: a worker's."""
        return (
            self.door.fanout is not None
            and stream_channel(environ) is not None
            and is_viewers(environ, self.whose)
        )
