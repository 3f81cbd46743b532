"""Issue 14 item 3: the seats phones took survive a power cut. A real `buzzerbox serve`
killed (-9) and started again on the same data folder: each guest's phone still holds
its seat and presses as it, the host can still free it; a seat file that cannot be read
starts the box with every seat free, and the box says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .boxproc import Phone, Refused, ServedBox, start_box, write_config

ANN = "ann-phone-" + "a" * 20
BEN = "ben-phone-" + "b" * 20


def restart(
    box: ServedBox, tidy: list[Any], headers: dict[str, str]
) -> tuple[ServedBox, Phone, Phone]:
    """kill -9 (a power cut) and start again on the same folder: the admin's phone
    (with its cookie `headers`) and a guest's phone on the new box."""
    box.kill()
    again = start_box(box.data, config=box.data.parent / "box.toml")
    admin, guest = Phone(again.port), Phone(again.port)
    admin.headers = dict(headers)
    tidy += [again, admin, guest]
    return again, admin, guest


def test_a_power_cut_keeps_each_phones_seat_and_the_host_can_still_free_it(
    data: Path, tidy: list[Any]
) -> None:
    config = write_config(data.parent, "countdown_s = 0.05\n")
    box = start_box(data, config=config)
    tidy.append(box)
    admin, guest = Phone(box.port).log_in(), Phone(box.port)
    tidy += [admin, guest]
    admin.post("/api/game", {"game": "kids", "players": ["Ann", "Ben"]})
    admin.post("/api/phones", {"on": True})
    guest.post("/api/phones/seat", {"seat": 0, "token": ANN})
    guest.post("/api/phones/seat", {"seat": 1, "token": BEN})

    box, admin, guest = restart(box, tidy, admin.headers)  # the admin session survives too
    assert guest.state()["box"]["phones"] == {"on": True, "taken": [0, 1]}
    admin.post("/api/event", {"type": "round"})
    admin.poll_state(lambda s: s["phase"] == "playing")
    taken = guest.post("/api/phones/press", {"token": BEN, "pad": "stop"})
    assert taken["seq"] == guest.state()["box"]["seq"]  # the answer is the edge's seq
    assert guest.state()["caller"] == "Ben"
    admin.post("/api/phones/free", {"seat": 0})

    box, admin, guest = restart(box, tidy, admin.headers)
    assert guest.state()["box"]["phones"] == {"on": True, "taken": [1]}
    with pytest.raises(Refused) as refused:
        guest.post("/api/phones/seat", {"seat": 1, "token": ANN})
    assert refused.value.status == 409 and "seat 2 is taken" in refused.value.body["error"]
    guest.post("/api/phones/seat", {"seat": 0, "token": ANN})  # Ann picks hers again


def test_a_seat_file_that_cannot_be_read_starts_the_box_with_every_seat_free(
    data: Path, tidy: list[Any]
) -> None:
    (data / "phones.json").write_bytes(b'{"version": 1, "on": tru\x00\xff')
    write_config(data.parent, "")
    box = start_box(data, config=data.parent / "box.toml")
    tidy.append(box)
    box.wait_log(r"phone seats file .*phones\.json cannot be read .*every seat is free")
    admin = Phone(box.port).log_in()
    tidy.append(admin)
    assert admin.state()["box"]["phones"] == {"on": False, "taken": []}
    admin.post("/api/game", {"game": "kids", "players": ["Ann", "Ben"]})
    admin.post("/api/phones", {"on": True})
    admin.post("/api/phones/seat", {"seat": 1, "token": BEN})
    _, admin, _ = restart(box, tidy, admin.headers)  # the next change wrote a good file
    assert admin.state()["box"]["phones"] == {"on": True, "taken": [1]}
