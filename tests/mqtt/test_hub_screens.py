"""Issue 39, item 2, the hub's side (hub/screens.py): the venue's screens the hub's admin
pairs are members. `buzzerbox hub` for real (--max-screens 4, its own broker), sockets
from other loopback addresses: 4 addresses hold every screen's place, one stream each
(none gives way), so a new viewer is refused (503); two screens that opened the link the
admin got each get their live view, a viewer still does not, and a made-up or copied
screen cookie is a viewer's. A wrong link is refused in the guest's language."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator

import pytest
from faults.served import raw, read_status  # type: ignore[import-not-found]

from .mqtt_fakes import HubProcess, Mosquitto, run_hub


@pytest.fixture
def hub(broker: Mosquitto) -> Iterator[HubProcess]:
    running = run_hub(broker.url, "hub-screens", "--max-screens", "4")
    try:
        yield running
    finally:
        running.stop()


def stream(port: int, source: str, cookie: str = "") -> socket.socket:
    sock: socket.socket = raw(port, source)
    sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: hub\r\nCookie: {cookie}\r\n\r\n".encode())
    return sock


def ask(
    port: int,
    source: str,
    method: str,
    path: str,
    body: object = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    data = None if body is None else json.dumps(body)
    conn.request(method, path, data, {"Content-Type": "application/json", **(headers or {})})
    answer = conn.getresponse()
    got = answer.status, dict(answer.getheaders()), answer.read()
    conn.close()
    return got


def paired_screen(port: int, source: str, path: str) -> str:
    status, headers, _ = ask(port, source, "GET", path)
    assert status == 302 and headers["Location"].endswith("/")
    return headers["Set-Cookie"].split(";", 1)[0]


def test_the_venues_paired_screens_get_their_view_when_viewers_hold_every_place(
    hub: HubProcess,
) -> None:
    port = hub.port
    socks: list[socket.socket] = []
    try:
        for i in range(4):
            socks.append(stream(port, f"127.0.8.{1 + i}"))
            assert read_status(socks[-1]) == 200
        socks.append(stream(port, "127.0.8.99"))
        assert read_status(socks[-1]) == 503  # a viewer: none is free
        status, headers, _ = ask(port, "127.0.0.1", "GET", "/api/screens/pair")
        assert status == 403  # the link is the admin's
        status, headers, _ = ask(port, "127.0.0.1", "POST", "/api/login", {"pin": hub.pin})
        assert status == 200
        session = headers["Set-Cookie"].split(";", 1)[0]
        status, _, body = ask(
            port, "127.0.0.1", "GET", "/api/screens/pair", headers={"Cookie": session}
        )
        assert status == 200
        path = json.loads(body)["path"]
        front = paired_screen(port, "127.0.9.1", path)
        row = paired_screen(port, "127.0.9.2", path)
        assert front != row  # each screen its own
        for source, cookie in (("127.0.9.1", front), ("127.0.9.2", row)):
            socks.append(stream(port, source, cookie))
            assert read_status(socks[-1]) == 200, source
        name, _, value = front.partition("=")
        forged = f"{name}={value.split('.')[0]}.{'0' * 32}"
        for cookie in (forged, ""):
            socks.append(stream(port, "127.0.8.98", cookie))
            assert read_status(socks[-1]) == 503  # a viewer's, as before
        status, headers, body = ask(
            port, "127.0.9.3", "GET", "/screens/pair/" + "0" * 32, headers={"Accept-Language": "de"}
        )
        assert status == 404 and "Set-Cookie" not in headers
        assert "Bildschirm-Link dieses Hubs" in body.decode()
    finally:
        for sock in socks:
            sock.close()
