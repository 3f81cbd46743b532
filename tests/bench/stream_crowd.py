"""A crowd of addresses takes the live views (issue 39, item 2): `attack.py --only streams`.

The box: a real `buzzerbox serve` (--max-phones 1000, its default) on 127.0.0.1; a
seated player's phone (its seat's cookie) and the paired TV (the admin's link) are set
up first; then 125 addresses (127.0.12.x), 8 streams each, open 1,000 live streams that
never read. Prints how long they took, then the status of the player's stream, the
TV's, the admin's and of 20 new viewers from other addresses, and how many of the
crowd's streams the box closed for them. The hub: a real mosquitto and `buzzerbox hub`
(--max-screens 100, its default); 13 addresses x 8 screens, then the admin's and 20
new screens. The issue's figures (main before) are printed beside.
"""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import tempfile
import time
from pathlib import Path

from attack import PIN, load, start_box  # type: ignore[import-not-found]  # this folder

SEAT_TOKEN = "bench-seat-token-0123456789"


def status(sock: socket.socket) -> int:
    sock.settimeout(10)
    head = b""
    try:
        while b"\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                return 0
            head += chunk
    except OSError:
        return 0
    return int(head.split()[1])


def opened(port: int, source: str, cookie: str = "", path: str = "/api/events") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: box\r\nCookie: {cookie}\r\n\r\n".encode())
    return sock


def closed_count(socks: list[socket.socket]) -> int:
    """How many of `socks` the server closed (what they hold is read on the way)."""
    n = 0
    for sock in socks:
        sock.setblocking(False)
        try:
            while sock.recv(1 << 16):
                pass
            n += 1
        except BlockingIOError:
            pass
        except OSError:
            n += 1
    return n


#: when a refused newcomer asks again (the refusal's Retry-After)
RETRY_S = 5.0


def retried(port: int, prefix: str, first: list[int]) -> list[int]:
    """The statuses of the newcomers refused in `first`, asking again after RETRY_S (a
    stream that gave way is still leaving until its server notices: at most LEAVING)."""
    time.sleep(RETRY_S)
    return [status(opened(port, f"{prefix}.{100 + i}")) for i, s in enumerate(first) if s != 200]


def request(
    port: int, method: str, path: str, body: str = "", cookie: str = "", csrf: str = ""
) -> tuple[int, str, str]:
    """(status, Set-Cookie's name=value, the body) of one request from 127.0.0.1."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json", "Cookie": cookie, "X-CSRF-Token": csrf}
    conn.request(method, path, body or None, headers)
    response = conn.getresponse()
    data = response.read().decode()
    conn.close()
    return response.status, (response.getheader("Set-Cookie") or "").split(";", 1)[0], data


def box_streams(crowd: int = 1000, newcomers: int = 20) -> None:
    with tempfile.TemporaryDirectory() as folder:
        process, port = start_box(Path(folder))
        socks: list[socket.socket] = []
        try:
            _, admin, answer = request(port, "POST", "/api/login", json.dumps({"pin": PIN}))
            csrf = json.loads(answer)["csrf"]
            for path, body in [("/api/game", {"game": "ligretto", "players": ["Ann", "Ben"]}),
                               ("/api/phones", {"on": True})]:  # fmt: skip
                request(port, "POST", path, json.dumps(body), admin, csrf)
            seat = json.dumps({"seat": 0, "token": SEAT_TOKEN})
            _, seat_cookie, _ = request(port, "POST", "/api/phones/seat", seat)
            pairing = request(port, "GET", "/api/tv/pair", cookie=admin, csrf=csrf)[2]
            tv_path = json.loads(pairing)["path"]
            _, tv_cookie, _ = request(port, "GET", tv_path)
            began = time.monotonic()
            for i in range(crowd):
                socks.append(opened(port, f"127.0.12.{1 + i // 8}"))
            taken = sum(status(s) == 200 for s in socks)
            took = time.monotonic() - began
            mine = {
                "player": status(opened(port, "127.0.13.1", seat_cookie)),
                "tv": status(opened(port, "127.0.13.2", tv_cookie)),
                "admin": status(opened(port, "127.0.0.1", admin)),
            }
            new = [status(opened(port, f"127.0.13.{10 + i}")) for i in range(newcomers)]
            again = retried(port, "127.0.13", new)
            gave_way = closed_count(socks)
        finally:
            process.terminate()
            process.wait(10)
            for sock in socks:
                sock.close()
    print(
        f"box: {taken} of {crowd} never-reading streams from {-(-crowd // 8)} addresses opened "
        f"in {took:.1f} s; then the seated player's stream {mine['player']}, the TV's "
        f"{mine['tv']}, the admin's {mine['admin']}; {newcomers} new viewers: "
        f"{sum(s == 200 for s in new)} got 200 ({sorted(set(new))}), the others "
        f"{sum(s == 200 for s in again)} of {len(again)} on "
        f"their retry {RETRY_S:.0f} s later (Retry-After); {gave_way} of the crowd's "
        f"streams gave way ({load()}) (issue 39's: 1,000 opened in 2.3 s, then every other "
        "phone's stream 503, players and TV blind; the admin's went in)"
    )


def hub_screens(crowd: int = 104, newcomers: int = 20) -> None:
    from broker_attack import start, web_port  # type: ignore[import-not-found]

    folder = Path(tempfile.mkdtemp(prefix="buzzerbox-stream-crowd-"))
    broker, hub, _ = start(folder, True)
    socks: list[socket.socket] = []
    try:
        web = web_port(hub)
        for i in range(crowd):
            socks.append(opened(web, f"127.0.14.{1 + i // 8}"))
        taken = sum(status(s) == 200 for s in socks)
        new = [status(opened(web, f"127.0.15.{1 + i}")) for i in range(newcomers)]
        again = retried(web, "127.0.15", new)
        gave_way = closed_count(socks)
    finally:
        for sock in socks:
            sock.close()
        hub.terminate()
        hub.wait(30)
        broker.terminate()
        broker.wait(30)
        shutil.rmtree(folder, ignore_errors=True)
    print(
        f"hub: {taken} of {crowd} screens from {-(-crowd // 8)} addresses (--max-screens 100); "
        f"{newcomers} new screens: {sum(s == 200 for s in new)} got 200 ({sorted(set(new))}), "
        f"the others {sum(s == 200 for s in again)} of {len(again)} on their retry "
        f"{RETRY_S:.0f} s later; "
        f"{gave_way} of the crowd's gave way ({load()}) (issue 39's: all 100 taken from 13 "
        "addresses, the next refused)"
    )


def stream_crowds() -> None:
    box_streams()
    hub_screens()


__all__ = ["PIN", "stream_crowds"]
