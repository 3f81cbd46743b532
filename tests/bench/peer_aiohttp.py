"""A minimal aiohttp Server-Sent Events server for the bench's comparison (issue 40),
written in this repository to the issue's description ("aiohttp ... 10 events a second
to N phones reading Server-Sent Events"), not the issue filer's harness, which is not
here. It does what limit.c does and nothing more: GET /api/events answers 200 with a
chunked text/event-stream and a first message (id 0); each line "SEQ" on its stdin is
one event, one write() of its message to every phone (aiohttp frames it as a chunk).

    python tests/bench/peer_aiohttp.py PORT     (0: any; prints the port)

Run by tests/bench/peers.py with the Python of the bench's own venv, which has aiohttp
at the pinned version; not the project's code nor its dependencies."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.peer_message import message

NAME = "aiohttp"
phones: set[web.StreamResponse] = set()


async def events(request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    response.enable_chunked_encoding()
    await response.prepare(request)
    await response.write(message(0, NAME))
    phones.add(response)
    try:
        await asyncio.Event().wait()  # until the phone goes (the handler is cancelled)
    finally:
        phones.discard(response)
    return response


async def to_all(data: bytes) -> None:
    for response in list(phones):
        try:
            await response.write(data)
        except (ConnectionError, RuntimeError):
            phones.discard(response)


async def main(port: int) -> None:
    app = web.Application()
    app.router.add_get("/api/events", events)
    runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, backlog=4096)
    await site.start()
    print(runner.addresses[0][1], flush=True)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        await to_all(message(int(line), NAME))
    # stdin closed: the end (asyncio.run cancels the phones' handlers)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
