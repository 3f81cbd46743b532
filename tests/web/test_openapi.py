"""The API against its own OpenAPI document, fuzzed by schemathesis: no request, valid
or not, gets a 5xx, and every answer matches what the document says (status codes,
content types, response schemas). The live stream is left out: it never ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from buzzerbox.box import Box
from buzzerbox.store.eventlog import EventLog
from flask import Flask
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .fuzz_setup import admin_auth_of, api_of, fuzzed_app_of
from .web_fakes import PIN, ManualClock

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def fuzzed_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    box = Box(EventLog(Path(tmp_path_factory.mktemp("openapi")) / "box.db"), clock=ManualClock())
    box.new_game({"game": "ligretto", "players": ["Ann", "Ben", "Cem"]})
    return fuzzed_app_of(box, PIN, b"s" * 32)


@pytest.fixture(scope="module")
def admin_auth(fuzzed_app: Flask) -> dict[str, Any]:
    return admin_auth_of(fuzzed_app, PIN)


@pytest.fixture(scope="module")
def api(fuzzed_app: Flask) -> Any:
    return api_of(fuzzed_app)


schema = schemathesis.pytest.from_fixture("api").exclude(path="/api/events")


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_no_request_gets_a_5xx_and_every_answer_is_as_documented(
    case: Any, admin_auth: dict[str, Any]
) -> None:
    case.call_and_validate(
        headers=admin_auth["headers"], cookies=admin_auth["cookies"], checks=CHECKS
    )


def test_the_document_names_every_endpoint(fuzzed_app: Flask) -> None:
    document = fuzzed_app.test_client().get("/api/openapi.json").json
    assert document is not None and document["openapi"].startswith("3.1")
    routes = {r.rule for r in fuzzed_app.url_map.iter_rules() if r.rule.startswith("/api/")}
    assert routes - set(document["paths"]) == {"/api/openapi.json"}
