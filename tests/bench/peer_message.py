"""The message every comparison server sends a phone per event: limit.c's, byte for
byte but for the id's last part (the server's name), an SSE message of ~500 B (the
box's delta with its framing is about 514 B) whose `id:` line starts with the event's
number, as the box's does (tests/bench/streams.py reads it). The framework around it
frames it as an HTTP/1.1 chunk, as limit.c does by hand. Imported by peer_aiohttp.py
and peer_gevent.py, which run in the bench's own venv (tests/bench/peers.py)."""

from __future__ import annotations

#: the message's length before its closing "]\n\n", as limit.c pads it
PADDED = 480


def message(seq: int, server: str) -> bytes:
    """The SSE message of event `seq` (0: the state a phone gets when it connects)."""
    body = (
        f"id: {seq}.{seq}.{server}\nevent: delta\n"
        f'data: [{{"op":"replace","path":"/box/seq","value":{seq}}}'
    )
    return (body.ljust(PADDED) + "]\n\n").encode()
