"""The box's own measure of each phone's link (web/phonelinks.py, issue 39, item 1): the
gap from its answer to the phone's next clock exchange, on a driven clock."""

from __future__ import annotations

from buzzerbox.web.phonelinks import (
    MAX_LINK_US,
    UNMEASURED,
    LinkBound,
    PhoneLinks,
)

PHONE = "192.168.1.20"


def exchanges(links: PhoneLinks, address: str, start_us: int, *gaps_us: int) -> str:
    """A first exchange at `start_us`, then one after each gap: the link's id."""
    now = start_us
    link = links.asked(None, address, now)
    for gap in gaps_us:
        now += gap
        assert links.asked(link, address, now) == link
    return link


def test_the_gaps_between_exchanges_are_the_links_round_trips() -> None:
    links = PhoneLinks()
    link = exchanges(links, PHONE, 1_000_000, 12_000, 7_000, 30_000)
    bound = links.bound(link, PHONE)
    assert bound == LinkBound(worst_us=30_000, best_us=7_000)
    assert bound.allowed_us == 30_000 + 3_500


def test_a_link_with_no_round_trip_or_no_id_allows_nothing() -> None:
    links = PhoneLinks()
    first = links.asked(None, PHONE, 0)
    assert links.bound(first, PHONE) == UNMEASURED  # one exchange: no gap yet
    assert links.bound(None, PHONE) == UNMEASURED
    assert links.bound("made-up", PHONE) == UNMEASURED
    assert links.bound(["a list"], PHONE) == UNMEASURED
    assert UNMEASURED.allowed_us == 0


def test_another_addresss_link_is_not_this_phones() -> None:
    """A press that names a link another address measured gets no credit, and an
    exchange that names it starts a link of its own."""
    links = PhoneLinks()
    slow = exchanges(links, PHONE, 0, 150_000, 150_000)
    assert links.bound(slow, "192.168.1.66") == UNMEASURED
    other = links.asked(slow, "192.168.1.66", 400_000)
    assert other != slow and links.bound(slow, PHONE).worst_us == 150_000


def test_a_pause_is_no_round_trip_and_a_slow_one_counts_for_the_most() -> None:
    links = PhoneLinks()
    link = exchanges(links, PHONE, 0, 5_000, 15_000_000, 900_000, 6_000)
    # the 15 s pause between bursts is not a gap; 900 ms counts as MAX_LINK_US
    assert links.bound(link, PHONE) == LinkBound(MAX_LINK_US, 5_000)


def test_a_crowd_of_addresses_cannot_push_out_a_seated_phones_link() -> None:
    """Each address keeps its newest few links; the table's oldest go when it is full,
    and a link in use is kept fresh by its exchanges."""
    links = PhoneLinks(most=64, per_address=4)
    seated = exchanges(links, PHONE, 0, 8_000)
    for n in range(10):  # one address asks again and again without its link
        links.asked(None, "10.0.0.1", n)
    assert len(links) == 1 + 4
    for n in range(200):  # a crowd, each address once; the phone exchanges now and then
        links.asked(None, f"10.1.{n // 250}.{n % 250}", 1_000 + n)
        if n % 30 == 0:
            assert links.asked(seated, PHONE, 1_000 + n) == seated
    assert len(links) <= 64
    assert links.bound(seated, PHONE).worst_us == 8_000


def test_an_exchange_that_does_not_follow_at_once_measures_nothing() -> None:
    """The first exchange of a burst comes whenever the phone wakes: no round trip."""
    links = PhoneLinks()
    link = links.asked(None, PHONE, 0)
    assert links.asked(link, PHONE, 400_000, follows=False) == link
    assert links.bound(link, PHONE) == UNMEASURED
    links.asked(link, PHONE, 409_000)
    assert links.bound(link, PHONE) == LinkBound(9_000, 9_000)


def test_the_boxs_own_machine_is_not_capped_by_address() -> None:
    """127.0.0.1 is the box's own screen and its tests: one more link there (a page, a
    test's own clock exchanges) never pushes out another."""
    links = PhoneLinks(per_address=2)
    kiosk = exchanges(links, "127.0.0.1", 0, 70_000)
    for n in range(10):
        links.asked(None, "127.0.0.1", 100_000 + n)
    assert links.bound(kiosk, "127.0.0.1").worst_us == 70_000
