"""Waitress lets go of a live stream's connection, for the fanout (live/handover.py).

A phone's stream lasts minutes and, after its head, carries only what the fanout
writes to every phone. So once waitress has sent the head, the stream's request ends
on waitress's side without ending the stream: its worker thread goes back to serve
requests, and waitress closes its own number for the socket, while the fanout keeps
the connection open on a copy of its own (live/shard.py, `own_copy`: the kernel closes
a socket only with its last number). `flush_head` sends what waitress holds for the
channel (the response's head and first chunk) on the calling thread; `detach` tells the
channel's task (`DetachTask`) that the fanout writes the rest of the response, its
end included (the chunked body's last chunk), so waitress writes nothing more.

This uses waitress internals (pinned in pyproject): the channel's `outbuf_lock`,
`total_outbufs_len`, `_flush_some` and `task_class`, and `WSGITask.finish`.
"""

from __future__ import annotations

import time
from typing import Any

from waitress.task import WSGITask

#: the channel's attribute that says its stream was handed over
DETACHED = "buzzerbox_detached"


class DetachTask(WSGITask):
    """Waitress's task, but a stream handed over ends without waitress's last chunk
    (the fanout writes it when the stream ends)."""

    def finish(self) -> None:
        if getattr(self.channel, DETACHED, False):
            self.close_on_finish = True  # no next request on it: the stream is the fanout's
            return
        super().finish()


def install(server: Any) -> None:
    """Let the server's streams be handed over (its channels run `DetachTask`)."""
    server.channel_class.task_class = DetachTask


def stream_channel(environ: dict[str, Any]) -> Any | None:
    """The waitress channel serving this request, if its stream can be handed over (a
    server of `install`'s); None on another server."""
    probe = environ.get("waitress.client_disconnected")
    channel = getattr(probe, "__self__", None)
    if channel is None or getattr(channel, "task_class", None) is not DetachTask:
        return None
    return channel


def flush_head(channel: Any, timeout: float) -> bool:
    """Send what waitress holds for `channel` (a stream's head) on this thread, waiting
    up to `timeout` s for the phone to take it: whether all of it went."""
    deadline = time.monotonic() + timeout
    with channel.outbuf_lock:
        while channel.connected and channel.total_outbufs_len:
            try:
                channel._flush_some(do_close=False)
            except OSError:
                return False
            left = deadline - time.monotonic()
            if not channel.total_outbufs_len or left <= 0:
                break
            channel.server.pull_trigger()  # its loop flushes too, and tells us
            channel.outbuf_lock.wait(min(left, 0.05))
        return bool(channel.connected) and not channel.total_outbufs_len


def detach(channel: Any) -> None:
    """The stream on `channel` is the fanout's from now on: waitress ends its side of
    the request without a last chunk, and closes its own number for the socket."""
    setattr(channel, DETACHED, True)
