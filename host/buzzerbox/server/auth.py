"""The admin session: a PIN, a session kept by the box, CSRF tokens, rate-limited tries.

Viewers read; every change needs the admin session and the header X-CSRF-Token with
the session's token. The PIN is compared in constant time (hmac.compare_digest).
Wrong tries are limited per client address (an IPv6 /64 counts as one), never for
all at once: a few are free, then each address waits twice as long after each wrong
try, up to `max_wait_s` (15 min). So the right PIN is never locked out by others, and
the default PIN (8 digits) takes years to guess (`guess_days`; tests/bench/README.md).

The cookie holds a session id only; the session (its CSRF token, a tag of the PIN it
was opened with) is the box's (sessions.py): a logout ends it, a new PIN ends all.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, TypeVar, cast

from flask import Blueprint, jsonify, request, session
from flask.typing import ResponseReturnValue

from buzzerbox.errors import Words
from buzzerbox.i18n import say
from buzzerbox.server.address import address_key
from buzzerbox.server.bodies import read_json
from buzzerbox.server.language import language
from buzzerbox.server.sessions import AdminSession, Sessions

CSRF_HEADER = "X-CSRF-Token"
HEADER = {"header": CSRF_HEADER}
#: where the box shows its PIN, for the refusals of a login
CONSOLE = Words("the box's console")
PIN_DIGITS = 8
F = TypeVar("F", bound=Callable[..., ResponseReturnValue])


def new_pin(digits: int = PIN_DIGITS) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def clean_pin(given: object) -> str | None:
    """The PIN as typed, without spaces; None if it is no text a PIN can be."""
    if not isinstance(given, str) or len(given) > 64:
        return None
    text = "".join(given.split())
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\\ud800")
        return None
    return text


@dataclass
class LoginLimiter:
    """Wrong PINs per client address: `free` tries, then a wait that doubles after each
    wrong try, from `base_s` up to `max_wait_s`. An address is forgotten `forget_s`
    after its last wrong try, or when it gets the PIN right."""

    free: int = 3
    base_s: float = 1.0
    max_wait_s: float = 900.0
    forget_s: float = 86_400.0
    clock: Callable[[], float] = time.monotonic
    max_clients: int = 100_000
    _failures: dict[str, tuple[int, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_after(self, failures: int) -> float:
        if failures < self.free:
            return 0.0
        return float(min(self.base_s * 2 ** min(failures - self.free, 60), self.max_wait_s))

    def attempt(self, client: str) -> float:
        """0 and the try counted as wrong (until `succeeded`), or the seconds to wait."""
        key = address_key(client)
        with self._lock:
            now = self.clock()
            count, last = self._failures.get(key, (0, now))
            if now - last > self.forget_s:
                count = 0
            wait = last + self.wait_after(count) - now if count else 0.0
            if wait > 0:
                return wait
            if key not in self._failures and len(self._failures) >= self.max_clients:
                self._prune(now)
            self._failures[key] = (count + 1, now)
            return 0.0

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(address_key(client), None)

    def _prune(self, now: float) -> None:
        for key in [k for k, (_, last) in self._failures.items() if now - last > self.forget_s]:
            del self._failures[key]


def tries_a_day(limiter_factory: Callable[[Callable[[], float]], LoginLimiter]) -> float:
    """How many tries one address gets a day at most, from the limiter's own code: an
    address that tries whenever it may, for 30 simulated days."""
    now = [0.0]
    limiter = limiter_factory(lambda: now[0])
    tries, days = 0, 30
    while now[0] < days * 86_400:
        wait = limiter.attempt("10.0.0.1")
        if wait > 0:
            now[0] += wait
        else:
            tries += 1
    return tries / days


def guess_days(addresses: int, digits: int = PIN_DIGITS) -> float:
    """Days to guess a random `digits`-digit PIN from `addresses` addresses trying at
    the allowed rate, on average (half the PINs)."""
    per_day = tries_a_day(lambda clock: LoginLimiter(clock=clock)) * addresses
    return math.ldexp(10**digits, -1) / per_day


def duration_words(days: float) -> str:
    if days < 2:
        return f"{days * 24:.1f} h"
    if days < 365.25 * 2:
        return f"{days:.0f} days"
    return f"{days / 365.25:.0f} years"


def pin_warning(pin: str, addresses: int = 254) -> str | None:
    """What a PIN shorter than the default costs a guest to guess from `addresses`
    addresses (a /24) at the login limiter's rate, on average; None for a long one."""
    if len(pin) >= PIN_DIGITS:
        return None
    short, default = guess_days(addresses, len(pin)), guess_days(addresses)
    return (
        f"a PIN of {len(pin)} digits is guessed in {duration_words(short)} on average by a "
        f"guest with {addresses} addresses (a /24) at the rate the box allows; "
        f"{PIN_DIGITS} digits take {duration_words(default)}"
    )


class Auth:
    """The admin PIN of one app, its sessions, and the checks that guard its changes."""

    def __init__(
        self,
        pin: str,
        secret: bytes,
        limiter: LoginLimiter | None = None,
        sessions: Sessions | None = None,
        *,
        shown_on: str | Words = CONSOLE,
    ) -> None:
        self.pin = "".join(pin.split())
        self.shown_on = shown_on  # where the PIN is shown, for the refusals
        self.limiter = limiter or LoginLimiter()
        self.sessions = sessions or Sessions()
        self._tag = hmac.new(secret, b"admin-pin:" + self.pin.encode(), hashlib.sha256).hexdigest()

    def current(self) -> AdminSession | None:
        """This request's admin session, if it has one that is open."""
        return self.sessions.get(session.get("sid"), self._tag)

    def is_admin(self) -> bool:
        return self.current() is not None

    def has_session(self, sid: object) -> bool:
        """Whether `sid` (from a session cookie) is an open admin session of this PIN."""
        return isinstance(sid, str) and self.sessions.get(sid, self._tag) is not None

    def csrf_ok(self, current: AdminSession | None = None) -> bool:
        current = current or self.current()
        given = request.headers.get(CSRF_HEADER, "")
        return current is not None and hmac.compare_digest(
            current.csrf.encode(), given.encode("utf-8", "replace")
        )

    def check_admin(self) -> ResponseReturnValue | None:
        """None when the request may change things; otherwise the 403 to answer."""
        current = self.current()
        if current is None:
            words = Words("This needs the admin: log in with the admin PIN.")
            return refuse(403, words, code="admin-only")
        if not self.csrf_ok(current):
            words = Words("the {header} header is missing or wrong: log in again", HEADER)
            return refuse(403, words, code="csrf")
        return None

    def admin_only(self, view: F) -> F:
        @wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> ResponseReturnValue:
            refusal = self.check_admin()
            return refusal if refusal is not None else view(*args, **kwargs)

        return cast(F, guarded)

    def log_in(self, given: object, client: str) -> ResponseReturnValue:
        pin = clean_pin(given)
        if pin is None:
            words = Words("a PIN is text: the digits shown on {where}", {"where": self.shown_on})
            return refuse(400, words, code="pin-not-text")
        wait = self.limiter.attempt(client)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            words = Words("too many wrong PINs from here: try again in {s} s", {"s": seconds})
            return refuse(429, words, {"Retry-After": str(seconds)}, code="too-many-pins")
        if not hmac.compare_digest(pin.encode(), self.pin.encode()):
            words = Words(
                "wrong PIN: the PIN is shown on {where} at start", {"where": self.shown_on}
            )
            return refuse(403, words, code="wrong-pin")
        self.limiter.succeeded(client)
        self.sessions.end(session.get("sid"))
        session.clear()
        session.permanent = True
        sid, opened = self.sessions.open(self._tag)
        session["sid"] = sid
        return jsonify(csrf=opened.csrf)

    def log_out(self) -> ResponseReturnValue:
        current = self.current()
        if current is not None and not self.csrf_ok(current):
            words = Words("a logout needs the {header} header of the session", HEADER)
            return refuse(403, words, code="csrf")
        self.sessions.end(session.get("sid"))
        session.clear()
        return jsonify(admin=False, csrf=None)


def refuse(
    status: int, message: str | Words, headers: dict[str, str] | None = None, **extra: Any
) -> ResponseReturnValue:
    """A JSON refusal: {"error": message, ...extra} with the status; a message given as
    Words is said in the request's language (server/language.py), `code` names it."""
    if isinstance(message, Words):
        message = say(message, language())
    response = jsonify(error=message, **extra)
    response.status_code = status
    response.headers.update(headers or {})
    return response


def auth_blueprint(auth: Auth) -> Blueprint:
    """/api/login, /api/logout, /api/session."""
    bp = Blueprint("auth", __name__, url_prefix="/api")

    @bp.post("/login")
    def login() -> ResponseReturnValue:
        body = read_json()
        if not isinstance(body, dict) or "pin" not in body:
            words = Words('a login is a JSON object with the PIN: {{"pin": "1234"}}')
            return refuse(400, words, code="bad-login")
        return auth.log_in(body["pin"], request.remote_addr or "?")

    @bp.post("/logout")
    def logout() -> ResponseReturnValue:
        return auth.log_out()

    @bp.get("/session")
    def current() -> ResponseReturnValue:
        opened = auth.current()
        return jsonify(admin=opened is not None, csrf=opened.csrf if opened else None)

    return bp
