"""Issue 15, items 5 and 7: what a guest or a hostile file sends is a 400 that says
why, never a 500; CSV exports run no formulas; imports are capped, and a file the
rules mostly refuse replaces nothing."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import buzzerbox
import pytest
from buzzerbox.box import Box
from buzzerbox.box.checks import MAX_IMPORT_CHARS, REJECTED_SHOWN
from buzzerbox.server.auth import LoginLimiter
from buzzerbox.store.eventlog import EventLog
from buzzerbox.store.export import cell
from buzzerbox.web import create_app
from flask.testing import FlaskClient

PIN = "24681357"
JSON = {"Content-Type": "application/json"}
GAME = '{"type":"game","game":"ligretto","players":["Ann","Ben","Cem"],"target":99}\n'


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    box = Box(EventLog(tmp_path / "buzzerbox.db"))
    yield box
    box.close()


@pytest.fixture
def client(box: Box) -> FlaskClient:
    config: dict[str, Any] = {"ADMIN_PIN": PIN, "LOGIN_LIMITER": LoginLimiter(free=10**6)}
    return create_app(box, config).test_client()


@pytest.fixture
def admin(client: FlaskClient) -> FlaskClient:
    reply = client.post("/api/login", json={"pin": PIN})
    client.environ_base["HTTP_X_CSRF_TOKEN"] = reply.json["csrf"]  # type: ignore[index]
    return client


def refused(reply: Any, status: int = 400) -> str:
    assert reply.status_code == status, (reply.status_code, reply.get_data(as_text=True)[:300])
    message: str = reply.json["error"]
    return message


def test_json_nested_2000_deep_is_a_400(admin: FlaskClient) -> None:
    deep = "[" * 2000 + "]" * 2000
    assert "nests" in refused(admin.post("/api/event", data=deep, headers=JSON))
    small = "[" * 400 + "]" * 400  # a login is at most 1 KiB (limits.py): 2000 deep is 413
    assert "nests" in refused(admin.post("/api/login", data='{"pin":' + small + "}", headers=JSON))
    assert "nests" in refused(admin.post("/api/game", data='{"game":' + deep + "}", headers=JSON))


def test_a_lone_surrogate_in_a_pin_or_a_name_is_a_400(admin: FlaskClient) -> None:
    assert "surrogate" in refused(admin.post("/api/login", data='{"pin":"\\ud800"}', headers=JSON))
    body = '{"game":"ligretto","players":["\\ud800","Ben","Cem"]}'
    assert "surrogate" in refused(admin.post("/api/game", data=body, headers=JSON))
    line = '{"type":"game","game":"ligretto","players":["\\ud800x","Ben","Cem"],"target":99}'
    assert "surrogate" in refused(admin.post("/api/import", data=line))
    assert admin.get("/api/games").json == []


@pytest.mark.parametrize("digits", ["²", "١٢", "①", "12³"])
def test_digits_that_are_not_ascii_are_a_400_or_ignored(client: FlaskClient, digits: str) -> None:
    assert "not a game id" in refused(client.get(f"/api/export/csv?game={digits}"))
    assert "not a game id" in refused(client.get(f"/api/export/log?game={digits}"))
    reply = client.get("/api/events", headers={"Last-Event-ID": digits}, buffered=False)
    assert reply.status_code == 200  # the stream starts with the whole state
    reply.close()


def test_a_csv_export_runs_no_formulas(admin: FlaskClient) -> None:
    names = ["=HYPERLINK(1)", "+1", "-2", "@SUM(A1)", "Ann"]
    admin.post("/api/game", json={"game": "ligretto", "players": names, "rounds": 1})
    admin.post("/api/event", json={"type": "round"})
    admin.post("/api/pads/press", json={"seat": 4, "pad": "stop"})
    counts = {n: {"middle": 1, "stack": 0} for n in names}
    admin.post("/api/event", json={"type": "stacks", "counts": counts})
    state = admin.post("/api/event", json={"type": "finish"}).get_json()
    assert state["phase"] == "finished", state
    text = admin.get("/api/export/csv").get_data(as_text=True)
    header = next(csv.reader(io.StringIO(text)))
    assert header[2:] == ["'=HYPERLINK(1)", "'+1", "'-2", "'@SUM(A1)", "Ann"]
    assert [cell("\tx"), cell("\rx"), cell(-5), cell("x=1")] == ["'\tx", "'\rx", -5, "x=1"]


def test_an_import_is_capped_in_size(admin: FlaskClient) -> None:
    text = GAME + '{"type":"round"}\n' * (MAX_IMPORT_CHARS // 16)
    assert "nothing was imported" in refused(admin.post("/api/import", data=text))


def test_a_mostly_refused_file_replaces_nothing(admin: FlaskClient, box: Box) -> None:
    admin.post("/api/game", json={"game": "kids", "players": ["Ann", "Ben"]})
    before = admin.get("/api/state").get_json()
    text = GAME + '{"type":"caller","seat":9}\n' * 5000
    assert "5,000 of 5,000 lines are refused" in refused(admin.post("/api/import", data=text))
    after = admin.get("/api/state").get_json()
    assert after["game"] == "kids" and after["box"]["seq"] == before["box"]["seq"]
    assert len(admin.get("/api/games").get_json()) == 1


def test_the_state_carries_the_first_refused_lines_and_their_count(admin: FlaskClient) -> None:
    good = (Path(buzzerbox.__file__).parent / "examples" / "twinit.jsonl").read_text()
    bad = '{"type":"caller","seat":9}\n' * 40
    state = admin.post("/api/import", data=good + bad).get_json()
    assert state["rejected_count"] == 40
    assert len(state["rejected"]) == REJECTED_SHOWN


def test_a_number_no_phone_reads_exactly_is_refused_and_the_clock_stays_readable(
    admin: FlaskClient,
) -> None:
    """Issue 39, item 8: a go at 10^4000 - 1 was taken, and /api/clock answered 4,001
    digits for good (a phone reads Infinity). Every whole number kept fits 2^53 - 1."""
    big = 10**4000 - 1
    lines = [GAME, '{"type":"round"}\n', f'{{"type":"go","t_us":{big}}}\n', '{"type":"round"}\n']
    state = admin.post("/api/import", data="".join(lines)).json
    assert state is not None, "the import was refused whole"
    assert state["rejected"][0]["reason"] == (
        "t_us has 4000 digits: at most 9007199254740991, what a phone reads exactly"
    )
    now = admin.get("/api/clock").json["now_us"]  # type: ignore[index]
    assert 0 <= now <= 2**53 - 1
    assert admin.post("/api/event", json={"type": "go", "t_us": 2**53}).status_code == 400
