"""Issue 15, item 4: uploads cannot fill the disk or stop the log. A real `buzzerbox
serve`: a body over the limit is refused before it is read; uploads held open are
kept in memory, at most half of the budget of what connections hold (16 MiB: the next
is refused), never in a temporary file; meanwhile the admin's game goes on and the log
takes every entry."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from buzzerbox.server.guard import Limits

from .boxproc import Phone
from .served import raw, read_status, start

MIB = 1024 * 1024


def upload_head(size: int, path: str = "/api/import", cookie: str = "", lang: str = "") -> bytes:
    """An upload's head; an import's large body needs the admin's `cookie` (limits.py)."""
    return (
        f"POST {path} HTTP/1.1\r\nHost: box\r\nContent-Type: application/x-ndjson\r\n"
        f"Cookie: {cookie}\r\nAccept-Language: {lang}\r\nContent-Length: {size}\r\n\r\n"
    ).encode()


def temp_files(pid: int) -> list[str]:
    """The files the process holds that were deleted (what TemporaryFile makes)."""
    out = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.endswith("(deleted)"):
            out.append(target)
    return out


def test_a_body_over_the_limit_is_refused_before_it_is_read(data: Path, tidy: list[Any]) -> None:
    box = start(data, "--pin", "13572468")
    tidy.append(box)
    sock = raw(box.port, "127.0.5.1")
    tidy.append(sock)
    sock.sendall(upload_head(1024 * MIB))
    assert read_status(sock) == 413


def test_held_uploads_stay_in_memory_are_capped_and_the_log_goes_on(
    data: Path, tidy: list[Any]
) -> None:
    box = start(data, "--pin", "13572468")
    tidy.append(box)
    admin = Phone(box.port).log_in("13572468")
    tidy.append(admin)
    held = []
    for i in range(20):  # 4 MiB each, 2 from each address, sent in part and held
        sock = raw(box.port, f"127.0.5.{10 + i // 2}")
        head = upload_head(4 * MIB, cookie=admin.headers["Cookie"])
        sock.sendall(head + b"x" * (600 * 1024))
        held.append(sock)
        tidy.append(sock)
    admin.post("/api/game", {"game": "ligretto", "players": ["Ann", "Ben", "Cem"]})
    admin.post("/api/event", {"type": "round"})
    assert admin.state()["phase"] in ("countdown", "playing")
    refused = 0
    for sock in held:
        sock.settimeout(0.2)
        with contextlib.suppress(TimeoutError):  # a timeout: still held, it fits
            refused += read_status(sock) == 503
    fits = Limits().held_bytes // 2 // (len(head) + 4 * MIB)  # 3 of 4 MiB and their heads
    assert refused == 20 - fits, refused
    assert temp_files(box.pid) == []


def test_a_large_body_without_the_admin_is_refused_before_it_is_read(
    data: Path, tidy: list[Any]
) -> None:
    """Issue 28, item 1: 4 MiB to a press, or to the import without a login, is a 413
    in words when the head arrives: the box does not wait for (or read) the body."""
    box = start(data, "--pin", "13572468")
    tidy.append(box)
    for path, lang, words in [
        ("/api/phones/press", "", "a press is at most 1 KiB: 4194304 bytes were sent"),
        ("/api/import", "", "an import without an admin login is at most 1 KiB"),
        # said in the language of the request's head (issue 25), before the app sees it
        (
            "/api/phones/press",
            "fr-CH, fr;q=0.9",
            "un appui fait au plus 1 Kio : 4\u202f194\u202f304 octets ont été envoyés",
        ),
    ]:
        sock = raw(box.port, "127.0.5.2")
        tidy.append(sock)
        sock.sendall(upload_head(4 * MIB, path, lang=lang))  # the head only: no body follows
        sock.settimeout(5)
        answer = sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 413"), answer
        refusal = json.loads(answer.split(b"\r\n\r\n", 1)[1])
        assert words in refusal["error"] and refusal["code"] == "too-large", refusal
