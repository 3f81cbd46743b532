"""Issue 14 item 2 and issue 15 items 3, 6, 7: the admin PIN and sessions across
restarts, logout, and one box per data folder. Real `buzzerbox serve` processes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .boxproc import Phone, Refused
from .served import serve, start


def test_the_default_pin_is_8_digits_and_a_restart_keeps_it(data: Path, tidy: list[Any]) -> None:
    first = start(data)
    tidy.append(first)
    assert re.fullmatch(r"[0-9]{8}", first.pin), first.pin
    first.kill()
    again = start(data)
    tidy.append(again)
    assert again.pin == first.pin
    assert (data / "admin_pin").stat().st_mode & 0o077 == 0  # only the box's user reads it
    again.kill()
    changed = start(data, "--pin", "24681357")
    tidy.append(changed)
    assert changed.pin == "24681357"
    changed.kill()
    kept = start(data)
    tidy.append(kept)
    assert kept.pin == "24681357"


def test_a_session_survives_a_restart_and_a_logout_ends_it_for_good(
    data: Path, tidy: list[Any]
) -> None:
    box = start(data, "--pin", "24681357")
    tidy.append(box)
    admin = Phone(box.port).log_in("24681357")
    tidy.append(admin)
    admin.post("/api/game", {"game": "kids", "players": ["Ann", "Ben"]})
    copied = dict(admin.headers)  # the cookie and the CSRF token
    box.kill()  # a power cut
    box = start(data)
    tidy.append(box)
    admin = Phone(box.port)
    tidy.append(admin)
    admin.headers = dict(copied)
    assert admin.state()["box"]["admin"] is True
    token = admin.headers.pop("X-CSRF-Token")
    with pytest.raises(Refused) as refused:  # a logout is CSRF-checked
        admin.post("/api/logout", {})
    assert refused.value.status == 403
    admin.headers["X-CSRF-Token"] = token
    admin.post("/api/logout", {})
    box.kill()
    box = start(data)
    tidy.append(box)
    thief = Phone(box.port)
    tidy.append(thief)
    thief.headers = dict(copied)  # the cookie and token, copied before the logout
    assert thief.state()["box"]["admin"] is False
    with pytest.raises(Refused) as refused:
        thief.post("/api/event", {"type": "round"})
    assert refused.value.status == 403


def test_a_second_box_on_the_same_data_folder_is_refused_naming_the_first(
    data: Path, tidy: list[Any]
) -> None:
    first = start(data, "--pin", "24681357")
    tidy.append(first)
    second = serve(data, "--pin", "11112222")
    out, err = second.communicate(timeout=30)
    assert second.returncode == 2
    assert f"pid {first.pid}" in err and str(data) in err, err
    assert "admin PIN" not in out


@pytest.mark.parametrize("command", ["serve", "hub"])
def test_a_blank_pin_is_refused_in_words_and_the_kept_one_stays(
    command: str, data: Path, tidy: list[Any]
) -> None:
    first = start(data)
    tidy.append(first)
    first.kill()
    args = ["--data", str(data), "--pin", "  "]
    if command == "hub":
        args += ["--broker", "mqtt://127.0.0.1:1"]
    done = subprocess.run(
        [sys.executable, "-m", "buzzerbox", command, *args], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "the PIN is blank: give digits" in done.stderr
    config = data / "box.toml"
    config.write_text(f'data = "{data}"\npin = " "\nport = 0\n', encoding="utf-8")
    if command == "serve":
        done = subprocess.run(
            [sys.executable, "-m", "buzzerbox", "serve", "--config", str(config)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2
        assert "the admin PIN is blank" in done.stderr
    assert (data / "admin_pin").read_text(encoding="utf-8") == first.pin
