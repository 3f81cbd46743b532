"""Issue 39, item 2: a crowd of addresses cannot take every live view. A real `buzzerbox
serve` (--max-phones 24: the viewers' places):

- 24 addresses (127.0.13.x), one stream each, hold every viewer's place and none
  holds more than another: a new viewer is refused (503), yet a seated player's phone
  (its seat's cookie), the paired TV (the link the admin gets) and the admin get their
  live view, in places of their own (none of the 24 gives way to them);
- then 3 addresses (127.0.11.x), 8 streams each (each address's share), that never
  read, hold every viewer's place: a new viewer from another address gets its view,
  a stream of the crowd gives way (the box closes it).
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from pathlib import Path
from typing import Any

from .boxproc import Phone
from .served import first_closed, raw, read_status, start

PIN = "13572468"
SEAT_TOKEN = "ann-phone-token-0123456789"


def stream(port: int, source: str, cookie: str = "") -> socket.socket:
    sock = raw(port, source)
    sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: box\r\nCookie: {cookie}\r\n\r\n".encode())
    return sock


def crowd(port: int, tidy: list[Any]) -> list[socket.socket]:
    """3 addresses x 8 streams that read nothing after their answer's status; each is
    asked again while the box still counts the streams that left before (503)."""
    socks = []
    for i in range(24):
        deadline = time.monotonic() + 15
        while True:
            sock = stream(port, f"127.0.11.{1 + i // 8}")
            tidy.append(sock)
            answer = read_status(sock)
            if answer != 503 or time.monotonic() > deadline:
                break
            sock.close()
        assert answer == 200
        socks.append(sock)
    return socks


def refused(port: int, source: str, tidy: list[Any]) -> int:
    sock = stream(port, source)
    tidy.append(sock)
    return read_status(sock)


def connection(port: int, source: str) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))


def cookie_of(response: http.client.HTTPResponse) -> str:
    return (response.getheader("Set-Cookie") or "").split(";", 1)[0]


def test_players_the_tv_and_the_admin_get_their_view_and_a_new_viewer_too(
    data: Path, tidy: list[Any]
) -> None:
    box = start(data, "--pin", PIN, "--max-phones", "24")
    tidy.append(box)
    admin = Phone(box.port).log_in(PIN)
    tidy.append(admin)
    admin.post("/api/game", {"game": "ligretto", "players": ["Ann", "Ben", "Cem"]})
    admin.post("/api/phones", {"on": True})
    status, pairing = admin.call("GET", "/api/tv/pair")
    assert status == 200
    # Ann's phone takes seat 0: the answer gives it its seat's cookie
    ann = connection(box.port, "127.0.11.50")
    body = json.dumps({"seat": 0, "token": SEAT_TOKEN})
    ann.request("POST", "/api/phones/seat", body, {"Content-Type": "application/json"})
    answer = ann.getresponse()
    answer.read()
    ann.close()
    assert answer.status == 200
    seat_cookie = cookie_of(answer)
    assert seat_cookie == f"buzzerbox_seat={SEAT_TOKEN}"
    tv = connection(box.port, "127.0.11.60")
    tv.request("GET", pairing["path"])
    paired = tv.getresponse()
    paired.read()
    tv.close()
    assert paired.status == 302 and paired.getheader("Location", "").endswith("/tv")
    tv_cookie = cookie_of(paired)
    singles = []
    for i in range(24):  # every viewer's place, one each: no address holds more
        sock = stream(box.port, f"127.0.13.{1 + i}")
        tidy.append(sock)
        assert read_status(sock) == 200
        singles.append(sock)
    assert refused(box.port, "127.0.13.99", tidy) == 503
    members = [("127.0.11.50", seat_cookie), ("127.0.11.60", tv_cookie),
               ("127.0.0.1", admin.headers["Cookie"])]  # fmt: skip
    for source, cookie in members:
        mine = stream(box.port, source, cookie)
        tidy.append(mine)
        assert read_status(mine) == 200, source
    assert refused(box.port, "127.0.13.98", tidy) == 503  # none of the 24 gave way
    for sock in singles:
        sock.close()
    held = crowd(box.port, tidy)  # every viewer's place, once the 24 have left
    viewer = stream(box.port, "127.0.11.99")
    tidy.append(viewer)
    assert read_status(viewer) == 200
    assert first_closed(held) is not None  # a stream of the crowd gave way
