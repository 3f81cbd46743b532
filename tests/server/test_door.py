"""How fast one address may open connections (server/door.py), on a driven clock. At
the server's accept: tests/server/test_backlog.py."""

from __future__ import annotations

from buzzerbox.server.door import Door


def test_an_address_opens_its_burst_then_its_rate_and_others_are_not_slowed() -> None:
    now = [0.0]
    door = Door(per_s=2.0, burst=4, clock=lambda: now[0])
    assert [door.may_open("10.0.0.1") for _ in range(5)] == [True] * 4 + [False]
    assert door.may_open("10.0.0.2")
    now[0] += 0.5  # one more
    assert door.may_open("10.0.0.1") and not door.may_open("10.0.0.1")


def test_an_address_whose_connection_was_cut_starts_from_an_empty_bucket() -> None:
    now = [0.0]
    door = Door(per_s=2.0, burst=4, clock=lambda: now[0])
    door.may_open("10.0.0.1")
    door.charge("10.0.0.1")  # 3 left: none now
    assert not door.may_open("10.0.0.1")
    now[0] += 0.5
    assert door.may_open("10.0.0.1")


def test_rested_addresses_are_forgotten() -> None:
    now = [0.0]
    door = Door(per_s=2.0, burst=4, clock=lambda: now[0])
    door.may_open("10.0.0.1")
    door.may_open("10.0.0.2")
    door.charge("10.0.0.2")
    now[0] += 0.25
    door.forget_rested()
    assert len(door) == 2  # neither full yet
    now[0] += 0.25  # 10.0.0.1's one token is back
    door.forget_rested()
    assert len(door) == 1
    now[0] += 1.5  # 10.0.0.2 full again after 2 s
    door.forget_rested()
    assert len(door) == 0
