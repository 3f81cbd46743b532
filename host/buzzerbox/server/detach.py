"""Waitress lets go of a live stream's connection, for the fanout (live/handover.py).

A phone's stream lasts minutes and, after its head, carries only what the fanout
writes to every phone. So once waitress has the head, the stream's request ends on
waitress's side without ending the stream: its worker thread (or its loop, for a
viewer's stream: loop.py) goes back to serve requests, and waitress closes its own
number for the socket, while the fanout keeps the connection open on a copy of its own
(live/shard.py, `own_copy`: the kernel closes a socket only with its last number).
`take_unsent` sends what waitress holds for the channel (the response's head and first
chunk) as far as the socket takes it now, without waiting, and takes the rest out of
waitress's hands (the fanout sends it as the phone reads); `detach` tells the channel's
task (`DetachTask`) that the fanout writes the rest of the response, its end included
(the chunked body's last chunk), so waitress writes nothing more.

This uses waitress internals (pinned in pyproject): the channel's `outbuf_lock`,
`outbufs`, `total_outbufs_len`, `_flush_some` and `task_class`, and `WSGITask.finish`.
"""

from __future__ import annotations

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


def take_unsent(channel: Any) -> bytes | None:
    """Send what waitress holds for `channel` (a stream's head) as far as its socket
    takes it now, never waiting, and take the rest out of waitress's hands: the bytes
    the phone has still to take (b"" when all went), None when the socket failed."""
    with channel.outbuf_lock:
        try:
            channel._flush_some(do_close=False)
        except OSError:
            return None
        rest = [buffer.get(len(buffer), True) for buffer in channel.outbufs if len(buffer)]
        channel.total_outbufs_len = 0
        return b"".join(rest)


def detach(channel: Any) -> None:
    """The stream on `channel` is the fanout's from now on: waitress ends its side of
    the request without a last chunk, and closes its own number for the socket."""
    setattr(channel, DETACHED, True)
