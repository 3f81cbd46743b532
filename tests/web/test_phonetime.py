"""A phone press's time on the box timeline (web/phonetime.py), with explicit numbers:
the touch mapped by the phone where it can be true, else the arrival minus the touch's
age, and why."""

from __future__ import annotations

import pytest
from buzzerbox.web.errors import PhoneTimeError
from buzzerbox.web.phonetime import MAX_ERROR_US, PressTime, press_time

ARRIVED = 50_000_000  # the request reached the box 50 s into its timeline


def said(timed: PressTime) -> str:
    """Why, in English (the msgids)."""
    assert timed.why is not None
    return timed.why.english()


def test_the_mapped_touch_is_the_press_time() -> None:
    # touched at 49.900 s, the request left 30 ms later and took 70 ms: arrival 50 s
    timed = press_time(ARRIVED, 30, touch_us=49_900_000, error_us=800)
    assert timed == PressTime(49_900_000, "touch", error_us=800)
    assert timed.to_json() == {"t_us": 49_900_000, "from": "touch", "error_us": 800}


def test_without_a_map_the_arrival_minus_the_age() -> None:
    timed = press_time(ARRIVED, 12.5)
    assert timed.t_us == ARRIVED - 12_500 and timed.source == "arrival"
    assert said(timed) == "the phone's clock is not matched to the box's yet"
    assert timed.to_json()["why_code"] == "not-matched"


def test_a_touch_after_the_request_left_is_taken_within_the_maps_error() -> None:
    sent = ARRIVED - 30_000  # the request left 30 ms before it arrived... at the most
    # 0.5 ms after it left, with a map good to ±0.8 ms: possible, taken as the departure
    assert press_time(ARRIVED, 30, sent + 500, 800) == PressTime(sent, "touch", error_us=800)
    # 2 ms after: the map is off; the arrival minus the age, and why
    off = press_time(ARRIVED, 30, sent + 2_000, 800)
    assert (off.t_us, off.source) == (sent, "arrival")
    assert said(off) == "the phone's clock map put the touch 2 ms after the request left: it is off"


def test_a_touch_long_before_the_request_left_is_not_taken() -> None:
    sent = ARRIVED - 30_000
    # 0.9 s of transit claimed by a phone whose round trips take 2 ms: clamped to
    # 2 x 1 ms + the slack (100 ms) before the request left (issue 28, item 7)
    clamped = press_time(ARRIVED, 30, sent - 900_000, 1_000)
    assert (clamped.t_us, clamped.source, clamped.error_us) == (sent - 102_000, "touch", 1_000)
    assert said(clamped) == (
        "the touch was claimed 900 ms before the request left: the phone's round trips allow 102 ms"
    )
    assert clamped.to_json()["clamped_us"] == 798_000
    assert clamped.to_json()["why_code"] == "touch-clamped"
    off = press_time(ARRIVED, 30, sent - 1_500_000, 1_000)
    assert (off.t_us, off.source) == (sent, "arrival")
    assert said(off) == (
        "the phone's clock map put the touch 1500 ms before the request left: it is off"
    )


def test_a_backdated_press_loses_to_a_true_one_on_a_driven_clock() -> None:
    """The issue's attack: go at 10 s; the phone claims its touch 5 µs after the go,
    says the request left at once (ago 0) with a ±2 ms map, and sends it 550 ms later.
    An honest phone touched 200 ms after the go and its request arrived 20 ms later."""
    go = 10_000_000
    cheat = press_time(go + 550_000, 0, touch_us=go + 5, error_us=2_000)
    honest = press_time(go + 220_000, 20, touch_us=go + 200_000, error_us=2_000)
    assert cheat.t_us == go + 550_000 - 104_000 and cheat.clamped_us > 0
    assert honest.t_us == go + 200_000 and honest.clamped_us == 0
    assert honest.t_us < cheat.t_us


def test_a_rough_map_times_nothing() -> None:
    assert press_time(ARRIVED, 0, ARRIVED - 10_000, MAX_ERROR_US).source == "touch"
    rough = press_time(ARRIVED, 0, ARRIVED - 10_000, MAX_ERROR_US + 1)
    assert (rough.t_us, rough.source) == (ARRIVED, "arrival")
    assert said(rough) == "the phone's clock map is too rough (±50.001 ms; at most ±50 ms)"
    assert rough.to_json() == {
        "t_us": ARRIVED,
        "from": "arrival",
        "why": said(rough),
        "why_code": "map-too-rough",
    }


@pytest.mark.parametrize(
    ("ago", "touch", "error", "message"),
    [
        (-1, None, None, "ago_ms is the ms from the touch to the request: 0-2000"),
        (9000, None, None, "ago_ms is the ms from the touch to the request: 0-2000"),
        (True, None, None, "ago_ms is the ms from the touch to the request: 0-2000, not True"),
        (float("nan"), None, None, "ago_ms is the ms from the touch to the request"),
        (5, "soon", 100, "touch_us is the touch on the box's clock, in µs, not 'soon'"),
        (5, float("inf"), 100, "touch_us is the touch on the box's clock, in µs, not inf"),
        (
            5,
            10**400,
            100,
            "touch_us is the touch on the box's clock, in µs, not 100000000000000000000000$",
        ),
        (5, ARRIVED, None, "error_us is the clock map's uncertainty: µs, 0 or more, not None"),
        (5, ARRIVED, -3, "error_us is the clock map's uncertainty: µs, 0 or more, not -3"),
    ],
)
def test_times_that_are_no_numbers_are_refused_in_words(
    ago: object, touch: object, error: object, message: str
) -> None:
    with pytest.raises(PhoneTimeError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        press_time(ARRIVED, ago, touch, error)


def test_the_tables_own_pads_are_not_clamped_to_their_round_trips() -> None:
    """A virtual pad behind the admin PIN (issue 24, item 5): a request slowed on its
    way (a queue, a busy phone) does not move the press; 1 s at most, as ever."""
    sent = ARRIVED - 30_000
    slowed = press_time(ARRIVED, 30, sent - 400_000, 1_000, bound_transit=False)
    assert slowed == PressTime(sent - 400_000, "touch", error_us=1_000)
    clamped = press_time(ARRIVED, 30, sent - 400_000, 1_000)
    assert clamped.clamped_us == 400_000 - 102_000
    too_early = press_time(ARRIVED, 30, sent - 1_200_000, 1_000, bound_transit=False)
    assert too_early.source == "arrival" and "before the request left" in said(too_early)
