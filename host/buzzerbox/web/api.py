"""The JSON API of the game: its state, new games, table entries, virtual pads, imports,
and the enrolment of real pads (which pad is whose, see buzzerbox/box/enrol.py).

Viewers read; every change needs the admin session (see auth.py), except virtual pad
presses when the box was started with --open-pads. A refusal is a 4xx with the rules'
own words and changes nothing (see errors.py).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, jsonify, request
from flask.typing import ResponseReturnValue

from buzzerbox.box import Box
from buzzerbox.box.boxjson import BoxStateJson
from buzzerbox.box.checks import table_entry
from buzzerbox.box.phones import PhoneSeats
from buzzerbox.errors import BuzzerboxError, Words
from buzzerbox.i18n import say
from buzzerbox.rules.eventjson import parse_edge
from buzzerbox.server.address import address_key
from buzzerbox.server.auth import Auth, refuse
from buzzerbox.server.bodies import read_json, whole
from buzzerbox.server.errors import BadBodyError
from buzzerbox.server.language import language
from buzzerbox.web.fields import check_entry_fields
from buzzerbox.web.phonelinks import PhoneLinks
from buzzerbox.web.phonetime import PressTime, press_time
from buzzerbox.web.rates import PressRates, SeatOwners

__all__ = ["BadBodyError", "api_blueprint", "body_object", "state_response"]

GAME_FIELDS = ("game", "players", "target", "rounds", "variants", "first")
MAX_NAME = 40

#: public(state, is_admin) -> the state object a phone gets
Public = Callable[[BoxStateJson, bool], BoxStateJson]


def body_object(what: Words) -> dict[str, Any]:
    """The request's JSON object, or a 400 (BadBodyError) saying what was expected."""
    body = read_json()
    if not isinstance(body, dict):
        words = Words("{what} is a JSON object (Content-Type: application/json)", {"what": what})
        raise BadBodyError(words, code="not-a-json-object")
    return body


#: how long an answer to what the table types waits for its event to reach the disk
#: (an SD card's fsync takes a few ms; a stall longer than this is answered unsaved)
SAVE_WAIT_S = 10.0


def state_response(state: BoxStateJson, durable_seq: int | None = None) -> Response:
    """The state as an answer; with `durable_seq` (the log's), its `box.saved` says whether
    everything it shows is on the disk (false: a power cut now could take it back)."""
    if durable_seq is not None:
        box = state["box"]
        state = {**state, "box": {**box, "saved": durable_seq >= box["seq"]}}
    response = Response(json.dumps(state, ensure_ascii=False), mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


def said_time(timed: PressTime) -> dict[str, object]:
    """A press's time for its answer, its `why` in the request's language (the phone
    shows it: "Timed when it reached the box: ...")."""
    return timed.to_json(lambda words: say(words, language()))


def edge_taken(state: BoxStateJson, durable_seq: int, **extra: object) -> Response:
    """The answer to a pad edge: its seq, and whether it is on the disk yet (`saved`;
    false: it was answered after the log's short wait for its fsync, and a power cut
    could still take it back). A press is the hot path (ten a second in a Twist round):
    the state it made reaches every phone, this one too, on the live stream, so the
    answer does not carry it again (GET /api/state has it)."""
    seq = state["box"]["seq"]
    saved = durable_seq >= seq
    if extra:
        response = jsonify(seq=seq, saved=saved, **extra)
    else:
        body = b'{"seq":%d,"saved":%s}' % (seq, b"true" if saved else b"false")
        response = Response(body, mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


def api_blueprint(
    box: Box, auth: Auth, public: Public, *, open_pads: bool, rates: PressRates | None = None
) -> Blueprint:
    bp = Blueprint("api", __name__, url_prefix="/api")
    rates = rates or PressRates()  # presses a seat, an address may make (rates.py)
    owners = SeatOwners()
    links = PhoneLinks()  # each phone's link, as its clock exchanges measured it

    def client() -> str:
        return address_key(request.remote_addr or "")

    def holds_seat(token: str) -> bool:
        try:
            box.phone_seat(token)
        except BuzzerboxError:
            return False
        return True

    def reply() -> Response:
        return state_response(public(box.state(), auth.is_admin()))

    def reply_saved() -> Response:
        """The answer to what the table types (a game, counts, undo, void, amend, an
        import): given once it is on the disk, or after SAVE_WAIT_S; `box.saved` says
        which (a state read or streamed says it by `box.unsaved`)."""
        box.log.wait_durable(box.state()["box"]["seq"], SAVE_WAIT_S)
        return state_response(public(box.state(), auth.is_admin()), box.log.durable_seq)

    @bp.get("/state")
    def state() -> ResponseReturnValue:
        return reply()

    @bp.get("/qr/pin.svg")
    def pin_qr() -> ResponseReturnValue:
        """The admin PIN as a QR code, for a second scorekeeper's phone: admin only."""
        if not auth.is_admin():
            words = Words("the PIN's code is for the table's scorekeeper: log in first")
            return refuse(403, words, code="admin-only")
        import segno  # here: the box starts without it (exports.py does the same)

        out = io.BytesIO()
        segno.make(auth.pin, micro=False).save(out, kind="svg", scale=8, border=2, xmldecl=False)
        response = Response(out.getvalue(), mimetype="image/svg+xml")
        response.headers["Cache-Control"] = "no-store"
        return response

    @bp.get("/games")
    def games() -> ResponseReturnValue:
        return jsonify(box.archive.games())

    @bp.post("/game")
    @auth.admin_only
    def new_game() -> ResponseReturnValue:
        body = body_object(Words("a new game"))
        names = body.get("players")
        if isinstance(names, list) and any(isinstance(n, str) and len(n) > MAX_NAME for n in names):
            words = Words("a name is too long: at most {most} characters", {"most": MAX_NAME})
            return refuse(400, words, field="players", code="name-too-long")
        box.new_game({k: body[k] for k in GAME_FIELDS if k in body})
        return reply_saved()

    @bp.post("/rematch")
    @auth.admin_only
    def rematch() -> ResponseReturnValue:
        box.rematch()
        return reply_saved()

    @bp.post("/event")
    @auth.admin_only
    def event() -> ResponseReturnValue:
        entry = body_object(Words("a table entry"))
        check_entry_fields(entry)
        box.submit(table_entry(entry))
        return reply_saved()

    def pad_edge(released: bool) -> ResponseReturnValue:
        """A virtual pad's edge: timed at the key or the tap when the page says when
        that was on the box's clock (touch_us, as a phone's press: web/phonetime.py),
        else at the request's arrival (minus ago_ms)."""
        arrived = box.now_us()
        if not open_pads:
            refusal = auth.check_admin()
            if refusal is not None:
                return refusal
        if not box.is_simulated:
            words = Words("this box reads real pads: virtual pads are for a simulated box")
            return refuse(409, words, code="real-pads")
        body = body_object(Words("a pad press"))
        if open_pads:
            rates.check(body.get("seat") if isinstance(body.get("seat"), int) else None, client())
        pile = body.get("pile")
        # the table's own pads (admin) are not clamped to their link; open pads, which
        # any guest may press, are, as a phone's press is
        timed = press_time(
            arrived,
            body.get("ago_ms", 0),
            body.get("touch_us"),
            body.get("error_us"),
            link=links.bound(body.get("link"), client()) if open_pads else None,
        )
        seat, pad, t_us = body.get("seat"), body.get("pad"), max(timed.t_us, 0)
        edge = parse_edge(not released, seat, pad, t_us, pile, timed.error_us)
        state = box.play(edge)
        if "ago_ms" in body or "touch_us" in body:
            return edge_taken(state, box.log.durable_seq, press_time=said_time(timed))
        return edge_taken(state, box.log.durable_seq)

    @bp.post("/pads/press")
    def press() -> ResponseReturnValue:
        return pad_edge(released=False)

    @bp.post("/pads/release")
    def release() -> ResponseReturnValue:
        return pad_edge(released=True)

    # -- phones as pads: the host switches them on, a guest's phone takes a seat --------

    @bp.post("/phones")
    @auth.admin_only
    def phones() -> ResponseReturnValue:
        body = body_object(Words('phones as pads: {{"on": true}} or {{"on": false}}'))
        box.change_phones(lambda phones, _: phones.switch(body.get("on")))
        return reply()

    @bp.post("/phones/free")
    @auth.admin_only
    def free_seat() -> ResponseReturnValue:
        body = body_object(Words('the seat to free: {{"seat": 0}}'))
        seat = whole(body, "seat", Words("the seat to free is a whole number from 0"))
        box.change_phones(lambda phones, _: phones.free(seat))
        return reply()

    @bp.post("/phones/seat")
    def take_seat() -> ResponseReturnValue:
        body = body_object(Words('a seat for this phone: {{"seat": 0, "token": "..."}}'))
        owners.check(client(), body.get("token"), holds_seat)
        box.change_phones(lambda phones, n: phones.take(body.get("token"), body.get("seat"), n))
        return reply()

    @bp.post("/phones/here")
    def phone_here() -> ResponseReturnValue:
        """A seat's phone is there (every few seconds): its seat is not offline. The answer
        names its seat in the current game (a rematch keeps it: the phone learns it here),
        `null` when it holds none: a new game freed every seat, and each phone that held
        one asks; that is an answer, not a refusal (issue 41: every phone had a 409)."""
        now = box.now_us()
        body = body_object(Words('a phone that is there: {{"token": "..."}}'))
        rates.check_here(client())
        seats: list[int | None] = []

        def here(phones: PhoneSeats, _: int) -> bool:
            seats.append(phones.held_by(body.get("token")))
            return seats[0] is not None and phones.heard(body.get("token"), now)

        state = box.change_phones(here)
        game_id = state["box"]["game_id"]
        return edge_taken(state, box.log.durable_seq, seat=seats[0], game_id=game_id)

    @bp.get("/clock")
    def clock() -> ResponseReturnValue:
        """The box's clock (µs), for a phone to map its own onto it (phoneclock.js), and
        the id of the phone's link, whose round trips the box measures (phonelinks.py)."""
        now = box.now_us()
        follows = request.args.get("follows") == "1"  # asked as soon as the last was answered
        link = links.asked(request.args.get("link"), client(), now, follows=follows)
        response = jsonify(now_us=now, link=link)
        response.headers["Cache-Control"] = "no-store"
        return response

    def phone_edge(released: bool) -> ResponseReturnValue:
        """A phone's press or release, timed at the touch (web/phonetime.py): the reply
        is the state, and under "press_time" how the time was taken."""
        arrived = box.now_us()
        body = body_object(
            Words(
                'a phone press: {{"token": "...", "pad": "stop", "ago_ms": 12, '
                '"touch_us": 123456789, "error_us": 800, "link": "..."}}'
            )
        )
        seat = box.phone_seat(body.get("token"))
        rates.check(seat, client())
        box.change_phones(lambda phones, _: phones.heard(body.get("token"), arrived))
        timed = press_time(
            arrived,
            body.get("ago_ms", 0),
            body.get("touch_us"),
            body.get("error_us"),
            link=links.bound(body.get("link"), client()),
        )
        pad, pile = body.get("pad"), body.get("pile")
        edge = parse_edge(not released, seat, pad, max(timed.t_us, 0), pile, timed.error_us)
        state = box.play(edge)
        return edge_taken(state, box.log.durable_seq, press_time=said_time(timed))

    @bp.post("/phones/press")
    def phone_press() -> ResponseReturnValue:
        return phone_edge(released=False)

    @bp.post("/phones/release")
    def phone_release() -> ResponseReturnValue:
        return phone_edge(released=True)

    @bp.post("/enrol")
    @auth.admin_only
    def enrol() -> ResponseReturnValue:
        body = body_object(
            Words('an enrolment: {{"seat": 0}}, {{"seat": null}} or {{"reset": true}}')
        )
        reset = body.get("reset", False)
        if type(reset) is not bool:
            said = {"value": json.dumps(reset)[:24]}
            words = Words("reset {value} is not allowed: true or false", said)
            raise BadBodyError(words, subject="reset", code="field-not-allowed")
        if reset:
            box.enrol(None, reset=True)
        elif "seat" not in body:
            words = Words('an enrolment names the seat: {{"seat": 0}} ({{"seat": null}} cancels)')
            raise BadBodyError(words, subject="seat", code="field-missing")
        elif body["seat"] is None:
            box.enrol(None)
        else:
            box.enrol(whole(body, "seat", Words("the seat to enrol is a whole number from 0")))
        return reply()

    @bp.post("/import")
    @auth.admin_only
    def import_log() -> ResponseReturnValue:
        text = request.get_data(cache=False, as_text=True)
        box.import_log(text)
        return reply_saved()

    return bp
