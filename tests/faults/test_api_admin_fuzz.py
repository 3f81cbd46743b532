"""The whole API fuzzed by schemathesis with the admin session (its cookie and its
X-CSRF-Token on every request): nothing gets a 5xx, and a refused request (4xx) changes
nothing: the state a phone reads before and after it is the same, log seq included.

tests/web/test_openapi.py checks the answers against the document; this one checks what
a refusal leaves behind. The box runs on a clock the test drives: between two requests
a countdown may end (so the game gets to play), never during one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from buzzerbox.box import Box
from buzzerbox.box.checks import table_entry
from buzzerbox.store.eventlog import EventLog
from buzzerbox.testing import ManualClock
from flask import Flask
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from web.fuzz_setup import admin_auth_of, api_of, fuzzed_app_of  # type: ignore[import-not-found]

PIN = "9731"


@pytest.fixture(scope="module")
def clock() -> ManualClock:
    return ManualClock(now=5_000_000)


@pytest.fixture(scope="module")
def fuzzed_app(tmp_path_factory: pytest.TempPathFactory, clock: ManualClock) -> Flask:
    box = Box(EventLog(Path(tmp_path_factory.mktemp("admin-fuzz")) / "box.db"), clock=clock)
    box.new_game({"game": "twist", "players": ["Ann", "Ben", "Cem"], "rounds": 2})
    box.submit(table_entry({"type": "round"}))
    clock.advance(box.countdown_us)  # playing: presses, callers and scores are all open
    return fuzzed_app_of(box, PIN, b"f" * 32)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def admin_auth(fuzzed_app: Flask) -> dict[str, Any]:
    return admin_auth_of(fuzzed_app, PIN)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def api(fuzzed_app: Flask) -> Any:
    return api_of(fuzzed_app)


#: what may change when a request is refused: the clock's now, and the pad test, which
#: shows every edge as it comes, a refused one with its reason (box/enrol.py)
MAY_CHANGE = ("now_us", "pad_test")


def seen(app: Flask) -> dict[str, Any]:
    """What a phone reads: the state (log seq included), without what may change."""
    state: dict[str, Any] = app.test_client().get("/api/state").json  # type: ignore[assignment]
    state["box"] = {k: v for k, v in state["box"].items() if k not in MAY_CHANGE}
    return state


schema = schemathesis.pytest.from_fixture("api").exclude(path="/api/events")


@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_with_the_admin_session_nothing_is_a_5xx_and_a_refusal_changes_nothing(
    case: Any, fuzzed_app: Flask, admin_auth: dict[str, Any], clock: ManualClock
) -> None:
    before = seen(fuzzed_app)
    response = case.call_and_validate(
        headers=admin_auth["headers"], cookies=admin_auth["cookies"], checks=[not_a_server_error]
    )
    if 400 <= response.status_code < 500:
        assert seen(fuzzed_app) == before, f"{case.method} {case.path} {response.status_code}"
    clock.advance(1_000_000)
