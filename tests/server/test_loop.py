"""A viewer's live stream served on waitress's loop thread itself (server/loop.py, issue
40's "at the door"): no worker thread woken for it, and a live phone keeps none; the
admin's stream and every other request on a worker as before; what a phone's socket does
not take of its head at once is taken out of waitress's hands for the fanout, never
waited for (server/detach.py, `take_unsent`). The same server as `buzzerbox serve`'s
(serve.py wires the loop the same way); a crowd of phones on a real box:
tests/faults/test_stream_crowd.py."""

from __future__ import annotations

import gc
import http.client
import json
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest
from buzzerbox.box import Box
from buzzerbox.fixtures import PIN
from buzzerbox.live.fanout import Fanout
from buzzerbox.server.detach import take_unsent
from buzzerbox.server.listen import bind, make_server
from buzzerbox.web import create_app
from buzzerbox.web.stream import PATH
from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel


@dataclass
class Served:
    port: int
    fanout: Fanout
    server: Any

    def workers(self) -> int:
        """The worker threads waitress started (server/threads.py: as requests need them)."""
        return len(self.server.task_dispatcher.threads)


@pytest.fixture
def served(box: Box, app_config: dict[str, Any]) -> Iterator[Served]:
    config = {**app_config, "SSE_FANOUT": True, "SSE_KEEPALIVE_S": 0.2}
    app = create_app(box, config)
    viewers = app.extensions["buzzerbox"]["viewers"]
    server = make_server(app, bind("127.0.0.1", 0), 20, on_loop=(PATH, viewers.on_loop))
    runner = threading.Thread(target=server.run, daemon=True)
    runner.start()
    fanout = app.extensions["buzzerbox"]["fanout"]
    yield Served(int(server.effective_port), fanout, server)
    server.close()
    runner.join(10)
    fanout.close()


def stream(port: int, cookie: str = "") -> tuple[socket.socket, Any]:
    """A phone's stream, read up to the end of its first message (its state): the
    socket and its reader."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    extra = f"Cookie: {cookie}\r\n" if cookie else ""
    sock.sendall(f"GET {PATH} HTTP/1.1\r\nHost: box\r\n{extra}\r\n".encode())
    reader = sock.makefile("rb")
    assert reader.readline().startswith(b"HTTP/1.1 200 ")
    while not reader.readline().startswith(b"id: "):
        pass
    return sock, reader


def keepalive(reader: Any) -> None:
    """Read until the fanout's keepalive: the fanout writes this phone's stream."""
    while reader.readline() != b"event: keepalive\n":
        pass


def test_viewers_streams_are_served_on_the_loop_and_wake_no_worker(served: Served) -> None:
    phones = [stream(served.port) for _ in range(5)]
    assert served.workers() == 0  # each was admitted, had its head and went: no worker
    for _sock, reader in phones:
        keepalive(reader)
    assert len(served.fanout.connections()) == 5
    gc.collect()  # a live phone keeps no waitress channel (its memory: issue 40)
    assert [
        c for c in gc.get_objects() if isinstance(c, HTTPChannel) and c.server is served.server
    ] == []
    # any other request: a worker, as before
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    conn.request("GET", "/api/state")
    assert conn.getresponse().status == 200
    assert served.workers() == 1
    conn.close()
    for sock, reader in phones:
        reader.close()
        sock.close()


def test_a_viewers_head_goes_in_one_send(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    sends: list[int] = []
    send = wasyncore.dispatcher.send

    def counted(channel: Any, data: bytes, do_close: bool = True) -> int:
        sends.append(len(data))  # before it goes: the phone may read it at once
        sent: int = send(channel, data, do_close)
        return sent

    monkeypatch.setattr(wasyncore.dispatcher, "send", counted)
    sock, reader = stream(served.port)
    assert len(sends) == 1  # the response's head and the state, not one send each
    reader.close()
    sock.close()


def test_a_head_the_phone_does_not_take_at_once_comes_from_the_fanout(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    send = wasyncore.dispatcher.send
    took: set[int] = set()

    def little(channel: Any, data: bytes, do_close: bool = True) -> int:
        if id(channel) in took:
            return 0  # its socket full, as a slow phone's
        took.add(id(channel))
        sent: int = send(channel, data[:40], do_close)  # it takes 40 bytes at first
        return sent

    monkeypatch.setattr(wasyncore.dispatcher, "send", little)
    sock = socket.create_connection(("127.0.0.1", served.port), timeout=10)
    sock.sendall(f"GET {PATH} HTTP/1.1\r\nHost: box\r\n\r\n".encode())
    reader = sock.makefile("rb")
    assert reader.readline().startswith(b"HTTP/1.1 200 ")
    lines = [reader.readline()]
    while not lines[-1].startswith(b"id: "):  # the head: retry, a keepalive, the state
        assert len(lines) < 40, lines  # keepalives only: the state never came whole
        lines.append(reader.readline())
    lines += [reader.readline(), reader.readline()]  # its event and its data
    keepalive(reader)  # then the fanout's own
    states = [json.loads(line[6:]) for line in lines if line.startswith(b"data: {")]
    assert len(states) == 1 and "box" in states[0]  # its state, whole
    reader.close()
    sock.close()


def test_the_admins_stream_is_served_on_a_worker_and_handed_to_the_fanout(
    served: Served,
) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    conn.request(
        "POST", "/api/login", json.dumps({"pin": PIN}), {"Content-Type": "application/json"}
    )
    response = conn.getresponse()
    cookie = (response.getheader("Set-Cookie") or "").split(";", 1)[0]
    response.read()
    conn.close()
    before = served.workers()
    sock, reader = stream(served.port, cookie)
    keepalive(reader)
    assert served.workers() >= max(before, 1)
    assert [c.is_admin for c in served.fanout.connections()] == [True]
    reader.close()
    sock.close()


def test_a_head_the_socket_does_not_take_at_once_is_taken_not_waited_for() -> None:
    box_end, phone_end = socket.socketpair()
    box_end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    phone_end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    server: Any = SimpleNamespace(active_channels={})  # all a channel asks of its server
    channel = HTTPChannel(server, box_end, ("phone", 1), Adjustments(), {})
    head = os.urandom(300_000)  # more than the two buffers hold
    with channel.outbuf_lock:
        channel.outbufs[-1].append(head)
        channel.total_outbufs_len = len(head)
    rest = take_unsent(channel)  # returns at once: the phone reads nothing yet
    assert rest is not None and 0 < len(rest) < len(head)
    assert channel.total_outbufs_len == 0 and not any(len(b) for b in channel.outbufs)
    phone_end.setblocking(False)
    taken = b""
    while len(taken) < len(head) - len(rest):
        taken += phone_end.recv(65536)
    assert taken + rest == head  # in order, nothing twice, nothing lost
    channel.handle_close()
    phone_end.close()
