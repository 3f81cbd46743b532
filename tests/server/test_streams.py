"""Who gets a live stream (server/streams.py), on its own: the admin's and the
members' places, the viewers' share per address, and who gives way when the viewers'
places are full. On a real box and hub with a crowd of addresses:
tests/faults/test_stream_crowd.py."""

from __future__ import annotations

from buzzerbox.server.streams import (
    ADMIN,
    ADMIN_STREAMS,
    FULL,
    LEAVING,
    PER_MEMBER,
    SHARE_TAKEN,
    VIEWER,
    Place,
    Slotted,
    StreamPlaces,
)


class Stream:
    """A stream as its endpoint sees it: whether it reads, and whether it was shut."""

    def __init__(self, reading: bool = True) -> None:
        self.reading = reading
        self.shut = False

    def give_way(self) -> None:
        self.shut = True

    def is_reading(self) -> bool:
        return self.reading


def admit(places: StreamPlaces, host: str, who: str = VIEWER, **kw: bool) -> tuple[Place, Stream]:
    stream = Stream(**kw)
    place = places.admit(host, who, stream.give_way, stream.is_reading)
    assert isinstance(place, Place), place
    return place, stream


def test_an_address_has_its_share_of_viewers_places_and_gets_them_back_once() -> None:
    places = StreamPlaces(viewers=100, per_address=2)
    first, _ = admit(places, "10.0.0.1")
    admit(places, "10.0.0.1")
    assert places.admit("10.0.0.1", VIEWER) == SHARE_TAKEN
    admit(places, "10.0.0.2")
    slotted = Slotted(iter([b"a"]), lambda: places.leave(first))
    slotted.close()
    slotted.close()  # once
    admit(places, "10.0.0.1")
    assert places.admit("10.0.0.1", VIEWER) == SHARE_TAKEN
    assert all(isinstance(places.admit("127.0.0.1", VIEWER), Place) for _ in range(5))


def test_when_full_a_viewer_that_does_not_read_gives_way_to_a_new_one() -> None:
    places = StreamPlaces(viewers=4, per_address=8)
    crowd = [admit(places, f"10.0.0.{i}") for i in range(3)]
    quiet, quiet_stream = admit(places, "10.0.0.9", reading=False)
    admit(places, "10.0.1.1")
    assert quiet_stream.shut and not any(stream.shut for _, stream in crowd)
    assert places.count(VIEWER) == 4 and places.leaving == 1
    places.leave(quiet)  # its stream ends: it has left
    assert places.leaving == 0 and places.count(VIEWER) == 4


def test_when_full_the_address_holding_the_most_gives_way_never_an_equal_share() -> None:
    places = StreamPlaces(viewers=6, per_address=8)
    crowd = [admit(places, "10.0.0.1") for _ in range(4)]
    calm = [admit(places, "10.0.0.2"), admit(places, "10.0.0.3")]
    admit(places, "10.0.1.1")  # holds none: the crowd's oldest gives way
    assert crowd[0][1].shut and not crowd[1][1].shut
    admit(places, "10.0.1.2")
    assert crowd[1][1].shut  # 3 against 0
    admit(places, "10.0.1.3")  # 2 against 0: still more than the newcomer's 1 would be
    assert crowd[2][1].shut
    assert places.admit("10.0.1.4", VIEWER) == FULL  # 1 each now: no one holds more
    assert not any(stream.shut for _, stream in calm)


def test_the_admin_and_members_have_places_of_their_own_and_over_them_ask_as_viewers() -> None:
    places = StreamPlaces(viewers=2, per_address=8)
    viewers = [admit(places, "10.0.0.1") for _ in range(2)]
    seat = [admit(places, "10.0.2.7", "seat:abc") for _ in range(PER_MEMBER)]
    tv = admit(places, "10.0.2.8", "tv")
    admin = [admit(places, "10.0.2.9", ADMIN) for _ in range(ADMIN_STREAMS)]
    mine = [*seat, tv, *admin]
    assert not any(s.shut for _, s in [*viewers, *mine])
    assert places.count(VIEWER) == 2 and places.count("seat:abc") == PER_MEMBER
    # the phone's third page: a viewer's place (the crowded address's oldest gives way),
    # never its own oldest, which would come back and take the next, round and round
    third, _ = admit(places, "10.0.2.7", "seat:abc")
    assert third.who == VIEWER and viewers[0][1].shut
    assert places.count("seat:abc") == PER_MEMBER
    assert places.admit("10.0.2.9", ADMIN) == FULL  # the admin's ninth: no viewer gives way
    assert not any(s.shut for _, s in mine)
    assert places.count("tv") == 1 and places.count(ADMIN) == ADMIN_STREAMS


def test_at_most_leaving_streams_that_gave_way_may_still_be_leaving() -> None:
    places = StreamPlaces(viewers=LEAVING + 1, per_address=1000)
    for _ in range(LEAVING + 1):
        admit(places, "10.0.0.1", reading=False)
    for i in range(LEAVING):
        admit(places, f"10.0.1.{i}")
    assert places.leaving == LEAVING
    assert places.admit("10.0.2.1", VIEWER) == FULL  # until those that gave way have left
