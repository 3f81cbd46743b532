"""The box's phones' view of the live stream (GET /api/events): the full state once, then
deltas. The engine is sse.py's `Stream`; this is what the phones are sent on it.

The box announces each change once (under its lock, so in order); the `StateView` works
it out once for every phone: the public state (a viewer's, web/views.py), what changed
since the last one as a JSON Patch (live/delta.py), and one message

    id: <log seq>.<version>.<boot>
    event: delta
    data: [{"op": "replace", "path": "/box/seq", "value": 42}, ...]

that every phone gets, admin or not (the admin flag never changes within a stream).
A stream starts with the full state

    id: <log seq>.<version>.<boot>
    event: state
    data: <the state object, as GET /api/state returns it>

and gets it again (a resync) when it fell behind further than the last `ring` deltas
(a phone asleep, a slow link). The id names the log seq first (what tools read), then
the stream's version and the boot token of this box: a browser that reconnects sends
it back as Last-Event-ID and gets the deltas since, if the box still has them, else
the full state (too old, or from before a restart).

A stream sends a keepalive every `keepalive_s` seconds when nothing else is sent

    event: keepalive
    data: <keepalive_s in ms>

(an event, not a comment: the page sees it, and shows "reconnecting" after two missed;
the first comes at once, so the page knows how often to expect them), ends after
`max_stream_s` (the browser reconnects by itself, with Last-Event-ID), and is refused
with 503 while
`max_clients` streams are open. Under waitress one thread writes every message to
every phone (fanout.py); elsewhere each stream's thread does (`Stream.messages`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from buzzerbox.live.delta import diff
from buzzerbox.live.sse import Stream

#: the state a view is made of (the box's: box/boxjson.py, which live/ does not import)
S = TypeVar("S", bound=Mapping[str, Any])


def dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class StateView(Generic[S]):
    """The phones' view of the box's state on a `Stream`: the latest public state, and a
    delta message for each change (the full state where no delta can say it)."""

    def __init__(self, stream: Stream, view: Callable[[S], Mapping[str, Any]]) -> None:
        #: view(state) -> the public state a viewer gets (a new dict: the view keeps it)
        self.stream = stream
        self.view = view
        self._view: Mapping[str, Any] | None = None

    def publish(self, state: S) -> None:
        """Called by the box after each change (under the box's lock, so in order)."""
        view = self.view(state)
        seq = int(state["box"]["seq"])
        delta = None if self._view is None else diff(self._view, view)  # one publisher
        if delta == []:
            return
        self._view = view
        if delta is None:
            self.stream.push(None, "", view, seq)
        else:
            self.stream.push("delta", dumps(delta), view, seq)
