"""A phone press's time on the box timeline (web/phonetime.py), with explicit numbers:
the touch mapped by the phone where it can be true, else the arrival minus the touch's
age, and why; never earlier than the phone's measured link allows (web/phonelinks.py)."""

from __future__ import annotations

import pytest
from buzzerbox.web.errors import PhoneTimeError
from buzzerbox.web.phonelinks import UNMEASURED, LinkBound
from buzzerbox.web.phonetime import MAX_ERROR_US, PressTime, press_time

ARRIVED = 50_000_000  # the request reached the box 50 s into its timeline
#: a phone whose round trips the box measured at 2-100 ms: 101 ms allowed
WIFI = LinkBound(worst_us=100_000, best_us=2_000)


def said(timed: PressTime) -> str:
    """Why, in English (the msgids)."""
    assert timed.why is not None
    return timed.why.english()


def test_the_mapped_touch_is_the_press_time() -> None:
    # touched at 49.900 s, the request left 30 ms later and took 70 ms: arrival 50 s
    timed = press_time(ARRIVED, 30, touch_us=49_900_000, error_us=800, link=WIFI)
    assert timed == PressTime(49_900_000, "touch", error_us=800)
    assert timed.to_json() == {"t_us": 49_900_000, "from": "touch", "error_us": 800}


def test_without_a_map_the_arrival_minus_the_age() -> None:
    timed = press_time(ARRIVED, 12.5, link=WIFI)
    assert timed.t_us == ARRIVED - 12_500 and timed.source == "arrival"
    assert said(timed) == "the phone's clock is not matched to the box's yet"
    assert timed.to_json()["why_code"] == "not-matched"
    assert timed.clamped_us == 0


def test_the_age_is_clamped_to_the_measured_link() -> None:
    """Issue 39, item 1: with no touch_us, ago_ms 1000 logged the press 996 ms early and a
    cheater's 814 ms beat a press 500 ms before his. Now the age buys no more than the
    phone's link, as the box measured it, and none at all with no link measured."""
    for ago in (814, 1000, 2000):
        timed = press_time(ARRIVED, ago, link=WIFI)
        assert timed.t_us == ARRIVED - 101_000, ago
        assert timed.to_json() == {
            "t_us": ARRIVED - 101_000,
            "from": "arrival",
            "error_us": 101_000,  # the touch came before, by up to what the link allows
            "why": "the phone's clock is not matched to the box's yet",
            "why_code": "not-matched",
            "clamped_us": ago * 1000 - 101_000,
            "allowed_us": 101_000,
        }
        unmeasured = press_time(ARRIVED, ago)  # the default: no link measured
        assert (unmeasured.t_us, unmeasured.clamped_us) == (ARRIVED, ago * 1000)
        assert unmeasured.error_us is None  # no measure: it gains nothing, no tie either
        assert press_time(ARRIVED, ago, link=UNMEASURED) == unmeasured
    honest = press_time(ARRIVED - 500_000, 0, link=WIFI)  # pressed 0.5 s before, no claim
    cheat = press_time(ARRIVED, 814, link=WIFI)
    assert honest.t_us < cheat.t_us


def test_a_touch_after_the_request_left_is_taken_within_the_maps_error() -> None:
    sent = ARRIVED - 30_000  # the request left 30 ms before it arrived... at the most
    # 0.5 ms after it left, with a map good to ±0.8 ms: possible, taken as the departure
    taken = press_time(ARRIVED, 30, sent + 500, 800, link=WIFI)
    assert taken == PressTime(sent, "touch", error_us=800)
    # 2 ms after: the map is off; the arrival minus the age, and why
    off = press_time(ARRIVED, 30, sent + 2_000, 800, link=WIFI)
    assert (off.t_us, off.source) == (sent, "arrival")
    assert said(off) == "the phone's clock map put the touch 2 ms after the request left: it is off"


def test_a_touch_long_before_the_request_left_is_not_taken() -> None:
    sent = ARRIVED - 30_000
    # 0.9 s of transit claimed by a phone whose link allows 101 ms: clamped to that
    # before its arrival (issue 28, item 7; issue 39, item 1)
    clamped = press_time(ARRIVED, 30, sent - 900_000, 1_000, link=WIFI)
    assert (clamped.t_us, clamped.source, clamped.error_us) == (ARRIVED - 101_000, "touch", 1_000)
    assert said(clamped) == (
        "the touch was claimed 930 ms before the press reached the box: "
        "this phone's link to the box allows 101 ms"
    )
    assert clamped.to_json()["clamped_us"] == 829_000
    assert clamped.to_json()["why_code"] == "touch-clamped"
    off = press_time(ARRIVED, 30, sent - 1_500_000, 1_000, link=WIFI)
    assert (off.t_us, off.source, off.clamped_us) == (sent, "arrival", 0)
    assert said(off) == (
        "the phone's clock map put the touch 1500 ms before the request left: it is off"
    )


def test_a_backdated_press_loses_to_a_true_one_on_a_driven_clock() -> None:
    """Issue 28's attack: go at 10 s; the phone claims its touch 5 µs after the go,
    says the request left at once (ago 0) with a ±2 ms map, and sends it 550 ms later.
    An honest phone touched 200 ms after the go and its request arrived 20 ms later.
    Both links measured at 2-100 ms."""
    go = 10_000_000
    cheat = press_time(go + 550_000, 0, touch_us=go + 5, error_us=2_000, link=WIFI)
    honest = press_time(go + 220_000, 20, touch_us=go + 200_000, error_us=2_000, link=WIFI)
    assert cheat.t_us == go + 550_000 - 101_000 and cheat.clamped_us > 0
    assert honest.t_us == go + 200_000 and honest.clamped_us == 0
    assert honest.t_us < cheat.t_us


def test_a_phone_with_no_measured_link_is_timed_at_its_arrival() -> None:
    """A mapped touch with no link the box measured buys nothing: the arrival."""
    timed = press_time(ARRIVED, 3, ARRIVED - 20_000, 500)
    assert (timed.t_us, timed.source, timed.clamped_us) == (ARRIVED, "touch", 20_000)
    assert said(timed) == (
        "the touch was claimed 20 ms before the press reached the box: "
        "this phone's link to the box allows 0 ms"
    )


def test_a_rough_map_times_nothing() -> None:
    assert press_time(ARRIVED, 0, ARRIVED - 10_000, MAX_ERROR_US, link=WIFI).source == "touch"
    rough = press_time(ARRIVED, 0, ARRIVED - 10_000, MAX_ERROR_US + 1, link=WIFI)
    assert (rough.t_us, rough.source) == (ARRIVED, "arrival")
    assert said(rough) == "the phone's clock map is too rough (±50.001 ms; at most ±50 ms)"
    assert rough.to_json() == {
        "t_us": ARRIVED,
        "from": "arrival",
        "error_us": WIFI.allowed_us,  # the touch came before, by up to what the link allows
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
    slowed = press_time(ARRIVED, 30, sent - 400_000, 1_000, link=None)
    assert slowed == PressTime(sent - 400_000, "touch", error_us=1_000)
    clamped = press_time(ARRIVED, 30, sent - 400_000, 1_000, link=WIFI)
    assert clamped.clamped_us == 430_000 - 101_000
    too_early = press_time(ARRIVED, 30, sent - 1_200_000, 1_000, link=None)
    assert too_early.source == "arrival" and "before the request left" in said(too_early)
