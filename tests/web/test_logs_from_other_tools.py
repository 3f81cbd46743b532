"""Game logs written by other tools (issue 26, item 6), read as game-log.md's reading
says: a file may start with a UTF-8 byte-order mark (a Windows editor's save) and
replays the same, by `buzzerbox replay`, the box's import and the rules' reading; the
numbers are JSON integers (2.0 is refused, as it always was) and `t_us` is never
negative."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from buzzerbox.rules import replay_state
from buzzerbox.store.restore import load_lines
from flask.testing import FlaskClient

BOM = "\ufeff"
LOG = "\n".join(
    [
        '{"type": "game", "game": "kids", "players": ["Lea", "Tim"]}',
        '{"type": "round"}',
        '{"type": "go", "t_us": 3000000}',
        '{"type": "press", "seat": 1, "pad": "stop", "t_us": 4000000}',
        '{"type": "left", "counts": {"Lea": 4, "Tim": 0}}',
    ]
)


def test_the_rules_read_a_log_that_starts_with_a_bom() -> None:
    plain = replay_state(LOG.splitlines())
    assert plain["rejected"] == [] and plain["phase"] != "lobby"
    assert replay_state((BOM + LOG).splitlines()) == plain
    assert replay_state((BOM + LOG).encode("utf-8").splitlines()) == plain
    assert replay_state(("\n" + LOG).encode().splitlines()) == plain  # a blank first line too
    assert [n for n, _ in load_lines(BOM + LOG)] == [1, 2, 3, 4, 5]


def test_only_the_first_line_may_carry_a_bom() -> None:
    state = replay_state((BOM + LOG + "\n" + BOM + '{"type": "finish"}').splitlines())
    assert [r["line"] for r in state["rejected"]] == [6]


def test_buzzerbox_replay_takes_a_file_with_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "saved-by-notepad.jsonl"
    path.write_bytes((BOM + LOG + "\r\n").encode("utf-8"))
    done = subprocess.run(
        [sys.executable, "-m", "buzzerbox", "replay", str(path)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout) == replay_state(LOG.splitlines())


def test_the_box_imports_a_file_with_a_bom(admin: FlaskClient) -> None:
    reply = admin.post("/api/import", data=(BOM + LOG).encode("utf-8"))
    assert reply.status_code == 200, reply.json
    assert reply.json is not None and reply.json["rejected"] == []
    assert reply.json["players"] == replay_state(LOG.splitlines())["players"]


@pytest.mark.parametrize(
    "line",
    [
        '{"type": "go", "t_us": 3000000.0}',
        '{"type": "go", "t_us": 3e6}',
        '{"type": "go", "t_us": -1}',
        '{"type": "press", "seat": 1.0, "pad": "stop", "t_us": 4000000}',
        '{"type": "press", "seat": 1, "pad": "stop", "t_us": -4000000}',
        '{"type": "press", "seat": 1, "pad": "stop", "t_us": 4000000.0}',
        '{"type": "void", "seat": 1, "t_us": -1}',
    ],
)
def test_numbers_are_json_integers_and_time_starts_at_0(line: str) -> None:
    lines = LOG.splitlines()
    state = replay_state([*lines[:2], line])
    assert [r["line"] for r in state["rejected"]] == [3], state["rejected"]
    reason = state["rejected"][0]["reason"]
    assert "is not allowed" in reason, reason
