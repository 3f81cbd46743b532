"""A minimal Flask-on-gevent Server-Sent Events server for the bench's comparison (issue
40), written in this repository to the issue's description ("Flask on gevent ... 10
events a second to N phones reading Server-Sent Events"), not the issue filer's harness,
which is not here. It does what limit.c does and nothing more: a Flask route GET
/api/events streams a text/event-stream (gevent's pywsgi frames it as HTTP/1.1 chunks)
with a first message (id 0); each line "SEQ" on its stdin is one event, its message put
in every phone's queue, and each phone's greenlet writes it: one send a phone an event.

    python tests/bench/peer_gevent.py PORT     (0: any; prints the port)

Run by tests/bench/peers.py with the Python of the bench's own venv, which has Flask and
gevent at the pinned versions; not the project's code nor its dependencies."""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import socket  # noqa: E402
import sys  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

from flask import Flask, Response  # noqa: E402
from gevent.fileobject import FileObjectPosix  # noqa: E402
from gevent.pywsgi import WSGIHandler, WSGIServer  # noqa: E402
from gevent.queue import SimpleQueue  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.peer_message import message  # noqa: E402

NAME = "gevent"
app = Flask(__name__)
phones: set[SimpleQueue] = set()


@app.get("/api/events")
def events() -> Response:
    queue = SimpleQueue()

    def stream() -> Iterator[bytes]:
        phones.add(queue)
        try:
            yield message(0, NAME)
            while True:
                yield queue.get()
        finally:
            phones.discard(queue)

    return Response(stream(), mimetype="text/event-stream", headers={"Cache-Control": "no-cache"})


class Handler(WSGIHandler):  # type: ignore[misc]
    """Each phone's socket without Nagle's delay, as limit.c's and the box's."""

    def handle(self) -> None:
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().handle()


def main(port: int) -> None:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(4096)
    server = WSGIServer(listener, app, handler_class=Handler, log=None)
    server.start()
    print(listener.getsockname()[1], flush=True)
    for line in FileObjectPosix(sys.stdin.fileno(), "rb"):
        data = message(int(line), NAME)
        for queue in list(phones):
            queue.put(data)
    server.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
