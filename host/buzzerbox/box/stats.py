"""Players across games, from the event log: games, wins, reactions after the go.

Pure: game summaries and event bodies in, figures out. A reaction is a player's first
press in a round after its `go` (µs); a voided press is not counted. The fastest stop
is the quickest reaction that was a stop press.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def player_stats(
    games: Iterable[tuple[Sequence[str], Sequence[str], Iterable[Mapping[str, Any]]]],
) -> list[dict[str, Any]]:
    """Per player name, most wins first: [{name, games, wins, reactions, mean_us, best_us,
    fastest_stop_us}]. Each game is (players, winners, its event bodies in order)."""
    out: dict[str, dict[str, Any]] = {}
    for players, winners, events in games:
        for name in players:
            row = out.setdefault(name, {"name": name, "games": 0, "wins": 0, "_r": [], "_s": []})
            row["games"] += 1
            row["wins"] += name in winners
        go: int | None = None
        pressed: dict[int, tuple[int, str]] = {}
        bodies = list(events)
        voided = {(b.get("seat"), b.get("t_us")) for b in bodies if b.get("type") == "void"}
        for body in bodies:
            kind = body.get("type")
            if kind == "round":
                go, pressed = None, {}
            elif kind == "go":
                go = body.get("t_us")
            elif kind == "press" and go is not None:
                seat, t = body.get("seat"), body.get("t_us")
                if (seat, t) in voided or not isinstance(seat, int) or not isinstance(t, int):
                    continue
                if seat not in pressed and t >= go and 0 <= seat < len(players):
                    pressed[seat] = (t - go, str(body.get("pad")))
                    row = out[players[seat]]
                    row["_r"].append(t - go)
                    if body.get("pad") == "stop":
                        row["_s"].append(t - go)
    result = []
    for row in out.values():
        reactions, stops = row.pop("_r"), row.pop("_s")
        row["reactions"] = len(reactions)
        row["mean_us"] = round(sum(reactions) / len(reactions)) if reactions else None
        row["best_us"] = min(reactions) if reactions else None
        row["fastest_stop_us"] = min(stops) if stops else None
        result.append(row)
    return sorted(result, key=lambda r: (-r["wins"], -r["games"], r["name"]))
