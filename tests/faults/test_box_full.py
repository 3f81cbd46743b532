"""Issue 39, item 8: "box full" is a 503 with Retry-After, not a 500 with a traceback
(waitress refuses a Connection header set by the app). A real `buzzerbox serve` at its
connection limit (--max-phones 2: 154 connections, the live streams' places beyond
--max-phones counted: server/streams.py's BEYOND), guests on 127.0.8.x that sent a
byte and no more (4 an address: none crowds the box; one that sends nothing is not
handed to the box at all), then a fifth connection from one address: a lane one,
served only for the admin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from buzzerbox.server.listen import RESERVE_THREADS, connection_limit
from buzzerbox.server.streams import BEYOND

from .served import raw, start

#: the box's connections at --max-phones 2 (serve.py's reserve)
LIMIT = connection_limit(2, RESERVE_THREADS + BEYOND)


def test_a_guest_at_the_connection_limit_gets_503_with_retry_after(
    data: Path, tidy: list[Any]
) -> None:
    box = start(data, "--pin", "13572468", "--max-phones", "2")
    tidy.append(box)
    silent = [raw(box.port, f"127.0.8.{1 + i // 4}") for i in range(LIMIT + 2)]
    tidy.extend(silent)
    mine = [raw(box.port, "127.0.8.200") for _ in range(5)]  # the fifth: over, crowded
    tidy.extend(mine)
    for sock in silent + mine[:-1]:
        sock.sendall(b"G")
    mine[-1].sendall(b"GET /api/state HTTP/1.1\r\nHost: box\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = mine[-1].recv(65536)
        assert chunk, answer
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0].startswith("HTTP/1.1 503"), answer[:400]
    headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    assert headers["retry-after"] == "5"
    length = int(headers["content-length"])
    while len(body) < length:
        body += mine[-1].recv(65536)
    assert json.loads(body)["code"] == "box-full"
