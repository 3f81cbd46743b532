"""The admin sessions the box keeps (server/sessions.py) and the PIN's guess time
(server/auth.py): a session ends on logout, on its time, with a new PIN; a file keeps
them across a restart; the default PIN takes over a year to guess at the allowed rate."""

from __future__ import annotations

from pathlib import Path

from buzzerbox.server.auth import LoginLimiter, guess_days, tries_a_day
from buzzerbox.server.sessions import MAX_SESSIONS, Sessions


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_ends_on_logout_on_its_time_and_with_another_pin() -> None:
    clock = Clock()
    sessions = Sessions(lifetime_s=60, clock=clock)
    sid, opened = sessions.open("tag")
    assert sessions.get(sid, "tag") == opened
    assert sessions.get(sid, "another PIN's tag") is None
    assert sessions.get(sid + "x", "tag") is None and sessions.get(None, "tag") is None
    clock.now += 61
    assert sessions.get(sid, "tag") is None
    sid, _ = sessions.open("tag")
    sessions.end(sid)
    assert sessions.get(sid, "tag") is None


def test_a_file_keeps_sessions_across_a_restart_and_an_end_too(tmp_path: Path) -> None:
    first = Sessions(tmp_path / "sessions.db")
    kept, _ = first.open("tag")
    ended, _ = first.open("tag")
    first.end(ended)
    first.close()
    again = Sessions(tmp_path / "sessions.db")
    assert again.get(kept, "tag") is not None
    assert again.get(ended, "tag") is None
    again.close()


def test_at_most_so_many_sessions_are_kept_the_oldest_end_first() -> None:
    clock = Clock()
    sessions = Sessions(clock=clock)
    ids = []
    for _ in range(MAX_SESSIONS + 1):
        clock.now += 1
        ids.append(sessions.open("tag")[0])
    assert sessions.get(ids[0], "tag") is None
    assert all(sessions.get(sid, "tag") is not None for sid in ids[1:])


def test_the_default_pin_takes_over_a_year_to_guess_from_a_whole_ipv4_24() -> None:
    per_day = tries_a_day(lambda clock: LoginLimiter(clock=clock))
    assert 90 <= per_day <= 100  # 15 min apart once the wait has grown
    assert guess_days(254) / 365.25 >= 1.0
