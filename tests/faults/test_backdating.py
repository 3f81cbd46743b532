"""Issue 39, item 1, as the attack was made: a real `buzzerbox serve`, two guests' phones
on other addresses of the Wi-Fi (127.x), each seated, each having matched its clock as
phoneclock.js does (a burst of GET /api/clock, the box measuring the link). In a Ligretto
round the cheater presses stop 500 ms after the honest player and claims `ago_ms` 814
(no touch_us): the honest player is the caller, and the cheater's answer says how much
of his claim the box took off. A phone that never matched its clock is timed at its
arrival, whatever it claims.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from .boxproc import Phone, start_box, write_config

HONEST, CHEAT, STRANGER = "127.0.39.1", "127.0.39.2", "127.0.39.3"


def matched(phone: Phone) -> str:
    """phoneclock.js's burst: 8 exchanges one after the other; the link's id."""
    status, answer = phone.call("GET", "/api/clock?n=1")
    assert status == 200, answer
    link = str(answer["link"])
    for n in range(2, 9):
        status, answer = phone.call("GET", f"/api/clock?n={n}&link={link}&follows=1")
        assert status == 200 and answer["link"] == link, answer
    return link


def test_a_cheater_who_claims_814_ms_is_not_first(data: Path, tidy: list[Any]) -> None:
    box = start_box(data, config=write_config(data.parent, "countdown_s = 0.05\n"))
    tidy.append(box)
    admin = Phone(box.port).log_in()
    tidy.append(admin)
    admin.post("/api/game", {"game": "ligretto", "players": ["Ann", "Ben", "Cem"]})
    admin.post("/api/phones", {"on": True})
    phones = {who: Phone(box.port, source=who) for who in (HONEST, CHEAT, STRANGER)}
    tidy.extend(phones.values())
    for seat, (who, phone) in enumerate(phones.items()):
        phone.post("/api/phones/seat", {"seat": seat, "token": who * 2})
    links = {who: matched(phones[who]) for who in (HONEST, CHEAT)}
    admin.post("/api/event", {"type": "round"})
    admin.poll_state(lambda state: state["phase"] == "playing")

    press = {"token": HONEST * 2, "pad": "stop", "ago_ms": 0, "link": links[HONEST]}
    honest = phones[HONEST].post("/api/phones/press", press)["press_time"]
    time.sleep(0.5)  # the attack's own timing: the cheater is half a second late
    claim = {"token": CHEAT * 2, "pad": "stop", "ago_ms": 814, "link": links[CHEAT]}
    cheat = phones[CHEAT].post("/api/phones/press", claim)["press_time"]

    state = admin.state()
    assert state["caller"] == "Ann", (state["race"], honest, cheat)
    assert cheat["t_us"] > honest["t_us"] + 200_000, (honest, cheat)
    # the box took off what the cheater's link does not allow: most of the 814 ms (a
    # loopback link's round trips are a few ms; a busy machine's at most 200 ms)
    assert cheat["clamped_us"] >= 814_000 - 300_000, cheat
    # a phone that never matched its clock: its claim buys nothing, and it is told so
    stranger = {"token": STRANGER * 2, "pad": "stop", "ago_ms": 2000}
    timed = phones[STRANGER].post("/api/phones/press", stranger)["press_time"]
    assert timed["clamped_us"] == 2_000_000 and timed["why_code"] == "not-matched", timed
    # nor does the link of another address
    borrowed = {**stranger, "ago_ms": 1000, "link": links[HONEST]}
    timed = phones[STRANGER].post("/api/phones/press", borrowed)["press_time"]
    assert timed["clamped_us"] == 1_000_000, timed
