"""Pad boards yanked in the middle of a race, under a real `buzzerbox serve --config`
whose pad map points at fake boards: pico-a on a pty (behind a stable link, as
/dev/serial/by-id), pico-b on TCP. Twin It!: each seat's slap pad on its own board.

The race is decided by the pads' times, not by what arrived first; a board that is gone
is not waited for; a board plugged back in (rebooted or not) counts again, its times
mapped anew. The board missing when the box starts is taken when it comes.
Presses are scheduled on the boards' own timers; their true times are the boards'.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from buzzerbox.pads.fakes.padboard import FakeBoard
from buzzerbox.pads.fakes.port import FakeBoardPort

from .boxproc import Phone, ServedBox, start_box, write_config

MS = 1000
# a mapped press time against the board's true time, over real ptys and TCP in real time,
# also just after a replug: a board's presses are mapped only once a SYNC round trip was
# short (<= 2 ms: good to 1 ms) or after the best of 16 (pads/board/syncrounds.py)
TOLERANCE_US = 5 * MS
PAD_MAP = """seats = 2
[[board]]
id = "pico-a"
url = "{a}"
[[board]]
id = "pico-b"
url = "{b}"
[[pad]]
id = "ann"
role = "slap"
seat = 0
board = "pico-a"
ch = 0
light_ch = 7
[[pad]]
id = "ben"
role = "slap"
seat = 1
board = "pico-b"
ch = 0
light_ch = 7
"""


def plug(ports: list[FakeBoardPort], board_id: str, **kw: Any) -> FakeBoardPort:
    ports.append(FakeBoardPort(FakeBoard(board_id), **kw).start())
    return ports[-1]


def unplug(port: FakeBoardPort) -> bytes:
    port.unplug()
    return b""


def resume(port: FakeBoardPort) -> bytes:
    port.resume()
    return b""


def race(admin: Phone) -> list[dict[str, Any]]:
    """The slaps of the open claim, once two are in."""
    state = admin.poll_state(lambda s: s["claim"] is not None and len(s["claim"]["slaps"]) == 2)
    slaps: list[dict[str, Any]] = state["claim"]["slaps"]
    return slaps


def settle(admin: Phone) -> None:
    admin.post("/api/event", {"type": "claim", "result": "pair"})


def true_time(port: FakeBoardPort) -> int:
    """The host time of the board's latest press."""
    return next(e.host_us for e in reversed(port.board.sent) if e.state == 1)


def decided_by_time(slaps: list[dict[str, Any]], *pads: tuple[str, FakeBoardPort]) -> str:
    """The two slaps are the pads' latest presses, each at its true time, in true order;
    who was first.

    The order is the boards' true times', not the schedule's: each board's timer runs on
    its own thread, and on a busy machine one fires ms late (Ben 0.2 ms before Ann where
    he was due 10 ms after her). Presses closer than the tolerance may come either way.
    """
    first, second = sorted(pads, key=lambda pad: true_time(pad[1]))
    got = {s["name"]: s for s in slaps}
    assert sorted(got) == sorted(name for name, _ in pads), slaps
    for name, port in pads:
        assert abs(got[name]["t_us"] - true_time(port)) <= TOLERANCE_US, (slaps, port.board.sent)
    lead = true_time(second[1]) - true_time(first[1])
    if lead > TOLERANCE_US:
        assert [s["name"] for s in slaps] == [first[0], second[0]], (slaps, lead)
        assert abs(slaps[1]["lead_us"] - lead) <= TOLERANCE_US
    first_name: str = slaps[0]["name"]
    return first_name


def test_boards_unplugged_mid_race_the_race_goes_by_time_and_later_presses_count(
    ports: list[FakeBoardPort], tmp_path: Path, data: Path, tidy: list[Any]
) -> None:
    link = tmp_path / "ttyPAD-A"
    b = plug(ports, "pico-b", tcp=True)
    (tmp_path / "pads.toml").write_text(PAD_MAP.format(a=link, b=b.url))
    config = write_config(tmp_path, 'countdown_s = 0.05\n[pads]\nmap = "pads.toml"\n')
    served: ServedBox = start_box(data, config=config)
    tidy.append(served)
    served.wait_log(f"pad board {link} is gone")  # not there at start: no reason to stop
    a = plug(ports, "pico-a", link=link)
    served.wait_log("pad board pico-a is online", "pad board pico-b is online")
    admin = Phone(served.port).log_in()
    tidy.append(admin)
    admin.post("/api/game", {"game": "twinit", "players": ["Ann", "Ben"]})
    admin.post("/api/event", {"type": "round"})
    admin.poll_state(lambda s: s["phase"] == "playing")

    # pico-a's link sticks and Ann's press waits in it; Ben's, 40 ms later, arrives first;
    # pico-a's press comes through, then its cable is pulled.
    a.stall()
    a.press(0, after_us=20 * MS)
    b.press(0, after_us=60 * MS)
    a.do(lambda board: resume(a), after_us=150 * MS)
    firsts = [decided_by_time(race(admin), ("Ann", a), ("Ben", b))]
    a.unplug()  # once the box has read it (what a pty holds is lost when it goes)
    served.wait_log("pad board pico-a is gone")
    settle(admin)

    b.press(0)  # pico-a is gone: not waited for
    state = admin.poll_state(lambda s: s["claim"] is not None, timeout=2)
    assert state["claim"]["claimant"] == "Ben"
    settle(admin)

    a.replug()  # a new pty behind the same link; the board rebooted: a new clock
    served.wait_log("pad board pico-a is online")
    b.press(0, after_us=30 * MS)
    a.press(0, after_us=45 * MS)
    b.do(lambda board: unplug(b), after_us=100 * MS)  # now pico-b's TCP cable
    firsts.append(decided_by_time(race(admin), ("Ben", b), ("Ann", a)))
    served.wait_log("pad board pico-b is gone")
    settle(admin)

    b.replug(reboot=False)  # the same board, still running
    served.wait_log("pad board pico-b is online")
    a.press(0, after_us=30 * MS)
    b.press(0, after_us=40 * MS)
    firsts.append(decided_by_time(race(admin), ("Ann", a), ("Ben", b)))
    settle(admin)
    firsts.append("Ben")  # alone, while pico-a was gone
    takes = [[2] * firsts.count(name) for name in ("Ann", "Ben")]  # a pair: 2 cards
    assert [p["takes"] for p in admin.state()["players"]] == takes
