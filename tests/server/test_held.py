"""The one budget for what connections hold before the app runs (server/held.py), on
its own: who gives way. Its work on a real box with a crowd of addresses:
tests/faults/test_held_crowd.py."""

from __future__ import annotations

from buzzerbox.server.held import Budget

KIB = 1024


class Conn:
    """A connection as the budget knows it (a waitress channel in the server)."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.held = 0


def conn(address: str) -> Conn:
    return Conn(address)


def test_over_the_budget_the_address_holding_the_most_gives_way_oldest_first() -> None:
    budget = Budget(100 * KIB)
    crowd = [conn(f"10.0.0.{1 + i // 3}") for i in range(9)]  # 3 addresses, 3 each
    for one in crowd:
        assert budget.hold(one, 10 * KIB) == []
    phone = conn("10.0.1.50")
    assert budget.hold(phone, KIB) == []  # 91 KiB
    first = conn("10.0.0.1")  # a 4th of the first address: it holds the most now
    assert budget.hold(first, 10 * KIB) == [crowd[0]]  # its oldest
    assert budget.total == 91 * KIB and crowd[0].held == 0
    # 30 KiB from a 4th address: each of the three gives 10 KiB back, oldest first
    assert budget.hold(conn("10.0.0.9"), 30 * KIB) == [crowd[1], crowd[3], crowd[6]]
    assert budget.total == 91 * KIB
    assert phone.held == KIB  # the phone's request never


def test_a_newcomer_from_the_crowded_address_makes_its_own_oldest_give_way() -> None:
    budget = Budget(50 * KIB)
    crowd = [conn("10.0.0.1") for _ in range(5)]
    for one in crowd:
        budget.hold(one, 10 * KIB)
    late = conn("10.0.0.1")
    assert budget.hold(late, 10 * KIB) == [crowd[0]]
    assert budget.hold(crowd[1], 0) == []  # done: the app has it
    assert budget.total == 40 * KIB and budget.by_address("10.0.0.1") == 40 * KIB


def test_a_request_that_grows_is_counted_again_and_keeps_its_age() -> None:
    budget = Budget(30 * KIB)
    old, young = conn("10.0.0.1"), conn("10.0.0.1")
    budget.hold(old, KIB)
    budget.hold(young, KIB)
    budget.hold(old, 14 * KIB)  # its head came: head and body now
    assert budget.hold(young, 17 * KIB) == [old]  # still the older one


def test_uploads_never_give_way_hold_at_most_half_and_leave_room_for_the_rest() -> None:
    budget = Budget(100 * KIB)
    admin = [conn("10.0.0.2") for _ in range(3)]
    assert budget.hold(admin[0], 20 * KIB, upload=True) == []
    assert budget.hold(admin[1], 25 * KIB, upload=True) == []
    assert budget.hold(admin[2], 10 * KIB, upload=True) == [admin[2]]  # over 50 KiB
    assert admin[2].held == 0 and budget.uploads == 45 * KIB
    crowd = [conn("10.0.0.3") for _ in range(6)]
    gone = [victim for one in crowd for victim in budget.hold(one, 10 * KIB)]
    assert gone == crowd[:1] and budget.total == 95 * KIB  # the crowd's, never an upload
    budget.hold(admin[0], 0)
    assert budget.uploads == 25 * KIB and budget.total == 75 * KIB
