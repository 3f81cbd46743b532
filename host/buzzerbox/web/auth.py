"""The admin session: a PIN, a signed session cookie, CSRF tokens, rate-limited tries.

Viewers read; every change needs the admin session and the header X-CSRF-Token with
the session's token. The PIN is compared in constant time (hmac.compare_digest); wrong
tries are limited per client address and in total. The session remembers a tag of the
PIN (an HMAC under the app's secret), so a new PIN logs every old session out.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, TypeVar, cast

from flask import Blueprint, jsonify, request, session
from flask.typing import ResponseReturnValue

CSRF_HEADER = "X-CSRF-Token"
F = TypeVar("F", bound=Callable[..., ResponseReturnValue])


def new_pin(digits: int = 4) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(digits))


@dataclass
class LoginLimiter:
    """Wrong PINs allowed per client and in total within a sliding window."""

    per_client: int = 5
    total: int = 50
    window_s: float = 60.0
    clock: Callable[[], float] = time.monotonic
    max_clients: int = 10_000
    _failures: dict[str, deque[float]] = field(default_factory=dict)
    _all: deque[float] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def retry_after(self, client: str) -> float:
        """Seconds until `client` may try again (0: now)."""
        with self._lock:
            now = self.clock()
            self._prune(now)
            waits = [0.0]
            tries = self._failures.get(client)
            if tries is not None and len(tries) >= self.per_client:
                waits.append(tries[0] + self.window_s - now)
            if len(self._all) >= self.total:
                waits.append(self._all[0] + self.window_s - now)
            return max(waits)

    def failed(self, client: str) -> None:
        with self._lock:
            now = self.clock()
            if client not in self._failures and len(self._failures) >= self.max_clients:
                client = "*"  # bounded memory: the rest share one entry
            self._failures.setdefault(client, deque()).append(now)
            self._all.append(now)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)

    def _prune(self, now: float) -> None:
        cutoff = now - self.window_s
        while self._all and self._all[0] <= cutoff:
            self._all.popleft()
        for client in [c for c, q in self._failures.items() if not q or q[-1] <= cutoff]:
            del self._failures[client]
        for tries in self._failures.values():
            while tries and tries[0] <= cutoff:
                tries.popleft()


class Auth:
    """The admin PIN of one app and the checks that guard its changes."""

    def __init__(self, pin: str, secret: bytes, limiter: LoginLimiter | None = None) -> None:
        self.pin = pin
        self.limiter = limiter or LoginLimiter()
        self._tag = hmac.new(secret, b"admin-pin:" + pin.encode(), hashlib.sha256).hexdigest()

    def is_admin(self) -> bool:
        tag = session.get("admin")
        return isinstance(tag, str) and hmac.compare_digest(tag, self._tag)

    def csrf_ok(self) -> bool:
        token = session.get("csrf")
        given = request.headers.get(CSRF_HEADER, "")
        return isinstance(token, str) and hmac.compare_digest(token.encode(), given.encode())

    def check_admin(self) -> ResponseReturnValue | None:
        """None when the request may change things; otherwise the 403 to answer."""
        if not self.is_admin():
            return refuse(403, "this needs the admin: log in with the PIN shown on the box")
        if not self.csrf_ok():
            return refuse(403, f"the {CSRF_HEADER} header is missing or wrong: log in again")
        return None

    def admin_only(self, view: F) -> F:
        @wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> ResponseReturnValue:
            refusal = self.check_admin()
            return refusal if refusal is not None else view(*args, **kwargs)

        return cast(F, guarded)

    def log_in(self, given: object, client: str) -> ResponseReturnValue:
        wait = self.limiter.retry_after(client)
        if wait > 0:
            seconds = max(1, round(wait))
            response = jsonify(error=f"too many wrong PINs: try again in {seconds} s")
            response.status_code = 429
            response.headers["Retry-After"] = str(seconds)
            return response
        if not isinstance(given, str) or not hmac.compare_digest(
            given.strip().encode(), self.pin.encode()
        ):
            self.limiter.failed(client)
            return refuse(403, "wrong PIN: the PIN is shown on the box's console at start")
        self.limiter.succeeded(client)
        session.clear()
        session.permanent = True
        session["admin"] = self._tag
        session["csrf"] = secrets.token_urlsafe(32)
        return jsonify(csrf=session["csrf"])


def refuse(
    status: int, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> ResponseReturnValue:
    """A JSON refusal: {"error": message, ...extra} with the status."""
    response = jsonify(error=message, **extra)
    response.status_code = status
    response.headers.update(headers or {})
    return response


def auth_blueprint(auth: Auth) -> Blueprint:
    """/api/login, /api/logout, /api/session."""
    bp = Blueprint("auth", __name__, url_prefix="/api")

    @bp.post("/login")
    def login() -> ResponseReturnValue:
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or "pin" not in body:
            return refuse(400, 'a login is a JSON object with the PIN: {"pin": "1234"}')
        return auth.log_in(body["pin"], request.remote_addr or "?")

    @bp.post("/logout")
    def logout() -> ResponseReturnValue:
        session.clear()
        return jsonify(admin=False, csrf=None)

    @bp.get("/session")
    def current() -> ResponseReturnValue:
        admin = auth.is_admin()
        return jsonify(admin=admin, csrf=session.get("csrf") if admin else None)

    return bp
