"""When a phone's touch happened, on the box timeline. PURE: every time is passed in.

A phone maps its own clock onto the box's over the live link (web/static/phoneclock.js:
it asks GET /api/clock now and then, NTP-style, and keeps the answer with the shortest
round trip): offset = box_us - (t_send + t_recv) / 2, give or take half that round
trip. A press then carries its touch (the event's timeStamp) already on the box
timeline (`touch_us`, give or take `error_us`) and the touch's age when the request
left (`ago_ms`, the fallback).

The box trusts the touch only where it can be true: the request left the phone
`ago_ms` after the touch and took some time to arrive, so

    arrived - ago - MAX_TRANSIT  <=  touch  <=  arrived - ago   (each ± error_us)

and the map must be fine enough (error_us <= MAX_ERROR_US). Anything else (no map yet,
a map gone wrong, a phone whose clock jumped) falls back to the arrival minus the age
(network transit not taken off) and says why.

Whatever a phone says about when it was touched (`touch_us`, `ago_ms`), the press is
never placed earlier before its arrival than the phone's own link allows, as the box
itself measured it (web/phonelinks.py: its slowest recent round trip plus half its
best, the clock map's error): a phone that claims its touch came long before its
request gains nothing beyond that; a phone whose link the box never measured gains
nothing at all (timed at its arrival). The answer says by how much it was clamped
(`clamped_us`; issue 28, item 7; issue 39, item 1). Only the table's own virtual pads,
behind the admin PIN (no guest to backdate a press), are not clamped (`link=None`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from buzzerbox.errors import Words
from buzzerbox.web.errors import PhoneTimeError
from buzzerbox.web.phonelinks import UNMEASURED, LinkBound

#: a phone's press reaches the box at most this long after the touch, or it is refused
MAX_AGO_MS = 2000
#: the longest a request may have spent between the phone and the box (µs)
MAX_TRANSIT_US = 1_000_000
#: a clock map rougher than this (µs) times no press: the arrival does, as well
MAX_ERROR_US = 50_000


UNMATCHED = Words("the phone's clock is not matched to the box's yet")
UNCERTAINTY = Words("the clock map's uncertainty: µs, 0 or more")


@dataclass(frozen=True, slots=True)
class PressTime:
    """A phone edge's time on the box timeline and how it was taken: "touch" (the
    phone's mapped touch, give or take `error_us`) or "arrival" (arrival minus the
    touch's age: later than the touch by the network's transit; `why` says why, in words
    said at the edge in the phone's language, `why_code` for machines)."""

    t_us: int
    source: Literal["touch", "arrival"]
    error_us: int | None = None
    why: Words | None = None
    why_code: str = ""
    clamped_us: int = 0  # how much earlier the phone claimed than its measured link allows
    allowed_us: int = 0  # what its link allowed before the arrival, when it was clamped

    def to_json(self, speak: Callable[[Words], str] = Words.english) -> dict[str, object]:
        """The answer's press_time; `speak` says `why` in the reader's language."""
        out: dict[str, object] = {"t_us": self.t_us, "from": self.source}
        if self.error_us is not None:
            out["error_us"] = self.error_us
        if self.why is not None:
            out["why"] = speak(self.why)
            out["why_code"] = self.why_code
        if self.clamped_us:
            out["clamped_us"] = self.clamped_us
            out["allowed_us"] = self.allowed_us
        return out


def _refused(name: str, allowed: Words, value: object) -> PhoneTimeError:
    said = {"name": name, "allowed": allowed, "value": value}
    return PhoneTimeError(Words("{name} is {allowed}, not {value!r:.24}", said), code="bad-time")


def _number(value: object, name: str, allowed: Words) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _refused(name, allowed, value)
    number = float(value) if abs(value) < 1e18 else math.inf
    if not math.isfinite(number):
        raise _refused(name, allowed, value)
    return number


def _clamped(timed: PressTime, arrived_us: int, link: LinkBound) -> PressTime:
    """`timed`, placed no earlier than `link` allows before the arrival."""
    earliest = arrived_us - link.allowed_us
    if timed.t_us >= earliest:
        return timed
    clamped = earliest - timed.t_us
    if timed.source == "arrival":  # its why says why the touch was not taken
        return replace(timed, t_us=earliest, clamped_us=clamped, allowed_us=link.allowed_us)
    said = {"ms": (arrived_us - timed.t_us) / 1000, "most": link.allowed_us / 1000}
    why = Words(
        "the touch was claimed {ms:g} ms before the press reached the box: "
        "this phone's link to the box allows {most:g} ms",
        said,
    )
    return replace(
        timed,
        t_us=earliest,
        why=why,
        why_code="touch-clamped",
        clamped_us=clamped,
        allowed_us=link.allowed_us,
    )


def press_time(
    arrived_us: int,
    ago_ms: object,
    touch_us: object = None,
    error_us: object = None,
    *,
    link: LinkBound | None = UNMEASURED,
) -> PressTime:
    """The time of a phone edge that reached the box at `arrived_us` (box timeline),
    no earlier than its measured `link` allows (UNMEASURED: its arrival).

    A press timed at its arrival over a measured link carries that link's bound as its
    error (`error_us`): its touch came before, by up to that much. Over a link never
    measured it carries none (it gains nothing: no guest can buy a tie with it).

    `link=None` (the table's own virtual pads, behind the admin PIN: no guest to
    backdate a press) takes a touch up to MAX_TRANSIT_US before the request left, not
    clamped: a request slowed on its way (a busy phone, a queue) does not move the press."""
    timed = _claimed(arrived_us, ago_ms, touch_us, error_us)
    if link is None:
        return timed
    timed = _clamped(timed, arrived_us, link)
    if timed.source == "arrival" and link.allowed_us:
        # the touch came before: by up to what the measured link allows (issue 41)
        return replace(timed, error_us=link.allowed_us)
    return timed


def _claimed(arrived_us: int, ago_ms: object, touch_us: object, error_us: object) -> PressTime:
    """The time the phone's own words give its edge, where they can be true."""
    ago_words = Words("the ms from the touch to the request: 0-{most}", {"most": MAX_AGO_MS})
    ago = _number(ago_ms, "ago_ms", ago_words)
    if not 0 <= ago <= MAX_AGO_MS:
        out_of = Words("{name} is {allowed}", {"name": "ago_ms", "allowed": ago_words})
        raise PhoneTimeError(out_of, code="bad-time")
    sent_us = arrived_us - round(ago * 1000)  # the touch, if the network took no time
    if touch_us is None:
        return PressTime(sent_us, "arrival", why=UNMATCHED, why_code="not-matched")
    touch = round(_number(touch_us, "touch_us", Words("the touch on the box's clock, in µs")))
    error = _number(error_us, "error_us", UNCERTAINTY)
    if error < 0:
        raise _refused("error_us", UNCERTAINTY, error_us)
    err = round(error)
    if err > MAX_ERROR_US:
        said = {"error": err / 1000, "most": MAX_ERROR_US // 1000}
        why = Words("the phone's clock map is too rough (±{error:g} ms; at most ±{most} ms)", said)
        return PressTime(sent_us, "arrival", why=why, why_code="map-too-rough")
    if touch > sent_us + err:
        said = {"ms": (touch - sent_us) / 1000}
        why = Words(
            "the phone's clock map put the touch {ms:g} ms after the request left: it is off",
            said,
        )
        return PressTime(sent_us, "arrival", why=why, why_code="touch-after-request")
    if touch < sent_us - MAX_TRANSIT_US - err:
        said = {"ms": (sent_us - touch) / 1000}
        why = Words(
            "the phone's clock map put the touch {ms:g} ms before the request left: it is off",
            said,
        )
        return PressTime(sent_us, "arrival", why=why, why_code="touch-before-request")
    return PressTime(min(touch, sent_us), "touch", error_us=err)
