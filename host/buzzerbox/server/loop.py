"""Requests served on waitress's loop thread itself, without a worker thread (issue 40,
"at the door").

Waitress reads and parses every request on its loop thread, then hands it to a worker
thread, which runs the app and hands the answer back to the loop: two threads woken a
request. A viewer's live stream needs neither: its whole work is to be admitted, have
its head written and its socket given to the fanout (web/stream.py `ViewerPath`,
live/handover.py), and none of it waits for the phone (`detach.take_unsent`: what the
socket does not take at once, the fanout sends as the phone reads). So the app names
the requests it serves that way (`path`, and `wants`, asked of the request's WSGI
environ) and `install` has the loop serve them right where it parsed them, with the
channel's own task (the same head, the same errors as on a worker). A thousand phones
opening their streams then wake no worker thread, and a live phone keeps none. The
response's head and the stream's first chunk go in one send() (`take_unsent`'s), not
one each as waitress sends every write at once (its `send_bytes`): on the loop the
sends were a third of a phone's CPU at the door (py-spy, tests/bench/README.md).

Only a channel's first request waiting is served here (one that comes behind another on
the same connection goes to a worker, as waitress would send it); everything else goes
to a worker as before. This uses waitress internals (pinned in pyproject): the channel's
`received`, `requests` and `service`, and the server's `add_task`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

#: whether the app serves a request (its WSGI environ) on the loop, never waiting
Wants = Callable[[dict[str, Any]], bool]


def install(server: Any, path: str, wants: Wants) -> None:
    """Serve on the server's loop the requests for `path` that `wants` names (a server of
    listen.py's: its channels' task hands a stream over, detach.py)."""

    gathered = copy.copy(server.adj)
    gathered.send_bytes = gathered.outbuf_high_watermark

    class LoopChannel(server.channel_class):  # type: ignore[misc]
        reading = False  # in `received`, on the loop: a request completed is claimed here
        claimed = False  # the request waiting is the loop's to serve

        def received(self, data: bytes) -> bool:
            self.reading = True
            try:
                result: bool = super().received(data)
            finally:
                self.reading = False
            if self.claimed:  # waitress's lock on the requests is let go by now
                self.claimed = False
                self.adj = gathered  # writes kept until flushed (take_unsent: one send)
                try:
                    self.service()
                finally:
                    self.adj = server.adj  # every channel's
            return result

    def claims(channel: Any) -> bool:
        if not getattr(channel, "reading", False):
            return False  # a worker's next request, or another server's channel
        request = channel.requests[0]
        if request.error is not None or request.path != path:
            return False
        return wants(channel.task_class(channel, request).get_environment())

    hand_on = server.add_task

    def add_task(channel: Any) -> None:
        if claims(channel):
            channel.claimed = True
        else:
            hand_on(channel)

    server.channel_class = LoopChannel
    server.add_task = add_task
