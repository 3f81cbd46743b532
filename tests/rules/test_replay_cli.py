"""`buzzerbox replay FILE` as a user runs it: one JSON object out, exit 0 or 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import buzzerbox
import pytest
from buzzerbox.rules import replay_state

EXAMPLES = Path(buzzerbox.__file__).parent / "examples"
GOLDEN = Path(__file__).parent / "golden"
KIDS = '{"type": "game", "game": "kids", "players": ["Lea", "Tim"]}'


def replay(path: Path | str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "buzzerbox", "replay", str(path)],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )


def printed_state(result: subprocess.CompletedProcess[bytes]) -> dict[str, Any]:
    """The one JSON object on stdout of a run that exited 0 and said nothing on stderr."""
    assert result.returncode == 0, result.stderr.decode()
    assert result.stderr == b""
    out = result.stdout.decode("utf-8")
    assert out.endswith("\n") and out.count("\n") == 1, "one JSON object on one line"
    state = json.loads(out)
    assert isinstance(state, dict)
    return state


def one_line_error(result: subprocess.CompletedProcess[bytes]) -> str:
    """The message of a run that exited 2: one line on stderr, nothing on stdout."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stdout == b""
    err = result.stderr.decode("utf-8")
    assert err.endswith("\n") and err.count("\n") == 1, f"one line on stderr: {err!r}"
    assert err.startswith("buzzerbox replay: ")
    return err


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.jsonl")))
def test_each_shipped_example_replays_to_a_finished_game(example: str) -> None:
    state = printed_state(replay(EXAMPLES / example))
    assert state["game"] == example.removesuffix(".jsonl")
    assert state["phase"] == "finished"
    assert state["winners"]
    assert set(state["winners"]) <= {p["name"] for p in state["players"]}
    for key in ("round", "players", "rejected"):
        assert key in state


def test_all_four_games_have_a_shipped_example() -> None:
    names = {p.name for p in EXAMPLES.glob("*.jsonl")}
    assert {"ligretto.jsonl", "twist.jsonl", "kids.jsonl", "twinit.jsonl"} <= names


def test_state_object_has_the_documented_keys(tmp_path: Path) -> None:
    log = tmp_path / "twist.jsonl"
    log.write_text(
        '{"type": "game", "game": "twist", "players": ["Mia", "Noah"]}\n'
        '{"type": "round"}\n{"type": "go", "t_us": 1000}\n'
        '{"type": "press", "seat": 1, "pad": "pile", "pile": 3, "t_us": 2000}\n',
        encoding="utf-8",
    )
    state = printed_state(replay(log))
    assert {"game", "round", "phase", "players", "winners", "rejected"} <= set(state)
    assert (state["game"], state["round"], state["phase"]) == ("twist", 1, "playing")
    mia, noah = state["players"]
    assert {"name", "total", "left", "fouls"} <= set(mia)
    assert (mia["left"], noah["left"], noah["fouls"]) == (40, 39, 0)


def test_exit_0_with_rejected_lines(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    log.write_text(
        f'{KIDS}\n{{"type": "go", "t_us": 5}}\nnot json\n\n{{"type": "round"}}\n',
        encoding="utf-8",
    )
    state = printed_state(replay(log))
    assert [r["line"] for r in state["rejected"]] == [2, 3]
    assert all(isinstance(r["reason"], str) and r["reason"] for r in state["rejected"])
    assert (state["round"], state["phase"]) == (1, "countdown")


def test_a_line_that_is_not_utf8_is_rejected(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    log.write_bytes(KIDS.encode() + b'\n{"type": "round", "note": "\xff\xfe"}\n{"type": "round"}\n')
    state = printed_state(replay(log))
    assert state["rejected"] == [{"line": 2, "reason": "this line is not UTF-8 text"}]
    assert state["round"] == 1


def test_windows_line_ends_are_read(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    log.write_bytes(
        f'{KIDS}\r\n{{"type": "round"}}\r\n\r\n{{"type": "go", "t_us": 9}}\r\n'.encode()
    )
    state = printed_state(replay(log))
    assert (state["phase"], state["rejected"]) == ("playing", [])


def test_standard_input_with_dash() -> None:
    state = printed_state(replay("-", stdin=(EXAMPLES / "kids.jsonl").read_bytes()))
    assert state["phase"] == "finished"


def test_prints_what_the_engine_says() -> None:
    for case in (
        "ligretto_tie_at_top_plays_on",
        "twist_third_hand_foul",
        "twinit_steal_moves_a_take_of_3",
    ):
        path = GOLDEN / f"{case}.jsonl"
        assert printed_state(replay(path)) == replay_state(path.read_bytes().splitlines())


@pytest.mark.parametrize(
    ("first_line", "message"),
    [
        ('{"type": "game", "game": "poker", "players": ["Lea", "Tim"]}', "'poker' is unknown"),
        ('{"type": "game", "game": "ligretto", "players": ["Ann"]}', "2 to 12 players"),
        ('{"type": "game", "game": "twist", "players": ["A", "B", "C", "D", "E"]}', "2 to 4"),
        ('{"type": "game", "game": "kids", "players": ["A", "B", "C", "D", "E", "F"]}', "2 to 5"),
        ('{"type": "game", "game": "twinit", "players": ["Eva"]}', "players"),
        ('{"type": "game", "game": "kids", "players": ["Lea", "Tim", "Lea"]}', "named twice"),
        ('{"type": "game", "game": "ligretto", "players": ["A", "B"], "target": 42}', "42"),
        ('{"type": "game", "game": "ligretto", "players": ["A", "B"], "target": 100}', "50, 99"),
        ('{"type": "game", "game": "ligretto", "players": ["A", "B"], "rounds": 0}', "rounds 0"),
        ('{"type": "game", "game": "ligretto", "players": ["A", "B"], "rounds": 5e0}', "5e0"),
        ('{"type": "game", "game": "twinit", "players": ["A", "B"], "first": 5}', "first 5"),
        ('{"type": "game", "game": "twinit", "players": ["A", "B", "C", "D", "E", "F", "G"]}', "6"),
        ('{"type": "game", "game": "twist", "players": ["A", "B"], "target": 50}', "not to a"),
        ('{"type": "game", "game": "kids", "players": ["A", "B"], "variants": "fast"}', "variants"),
        ('{"type": "game", "game": "kids", "players": ["A", "B"], "game": "kids"}', "twice"),
        ('{"type": "round"}', "'game' line"),
        ("not json at all", "not JSON"),
        ('["game", "kids"]', "'game' line"),
    ],
)
def test_exit_2_when_the_first_line_is_no_valid_game(
    tmp_path: Path, first_line: str, message: str
) -> None:
    log = tmp_path / "game.jsonl"
    log.write_text(f'\n{first_line}\n{{"type": "round"}}\n', encoding="utf-8")
    assert message in one_line_error(replay(log))


@pytest.mark.parametrize("content", [b"", b"\n  \n\n", b"\xff\xfe{}\n"])
def test_exit_2_for_an_empty_or_unreadable_log(tmp_path: Path, content: bytes) -> None:
    log = tmp_path / "game.jsonl"
    log.write_bytes(content)
    one_line_error(replay(log))


def test_exit_2_when_the_file_cannot_be_read(tmp_path: Path) -> None:
    assert "cannot read" in one_line_error(replay(tmp_path / "missing.jsonl"))
    assert "cannot read" in one_line_error(replay(tmp_path))


def test_the_contracts_ship_with_the_rules_and_the_help_points_at_them() -> None:
    from buzzerbox.rules.events import _TYPES

    contracts = Path(buzzerbox.__file__).parent / "rules"
    log_md = (contracts / "game-log.md").read_text(encoding="utf-8")
    games_md = (contracts / "games.md").read_text(encoding="utf-8")
    assert log_md.startswith("# Game log, version 1.1")
    for kind in _TYPES.values():
        assert f"| `{kind}` |" in log_md, f"game-log.md does not list {kind}"
    for title in ("Ligretto (classic)", "Ligretto Twist", "Ligretto Kids", "Twin It!"):
        assert title in games_md
    result = subprocess.run(
        [sys.executable, "-m", "buzzerbox", "replay", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    help_text = " ".join(result.stdout.split())
    assert "rules/game-log.md" in help_text.replace(" ", "")
    assert "rules/games.md" in help_text.replace(" ", "")
    assert "version 1.1" in help_text
