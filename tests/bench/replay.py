"""Replay speed: events/s through the rules engine on one core.

    python3 tests/bench/replay_command.py [--rounds N] [--repeat K]

Generates long games (tests/rules/gamegen.py, game log v1.1: ties, voids,
amends and undos among the pad events) of each kind, serialises them as
game-log lines and replays them with `buzzerbox.rules.replay_state`, the same
path `buzzerbox replay` takes (JSON parsing included). Each run replays all four
games; the figure is the MEDIAN of K runs, measured in CPU time of this process
(time.process_time: one core's work, also on a machine other processes share),
with the wall-clock median beside it. The goal is at least 150,000 events/s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from buzzerbox.rules import replay_state

from tests.rules.gamegen import GAMES, generate

GOAL = 150_000


def long_game(game: str, rounds: int, seed: int) -> list[str]:
    return [json.dumps(event) for event in generate(game, rounds, seed)]


def one_run(games: dict[str, list[str]]) -> tuple[dict[str, float], float]:
    """CPU seconds per game, and the wall-clock seconds of the whole run."""
    cpu: dict[str, float] = {}
    wall = time.perf_counter()
    for game, lines in games.items():
        start = time.process_time()
        state = replay_state(lines)
        cpu[game] = time.process_time() - start
        assert state["rejected"] == [], state["rejected"]
    return cpu, time.perf_counter() - wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300, help="rounds (claims for Twin It!)")
    parser.add_argument("--repeat", type=int, default=7, help="runs; the median counts")
    args = parser.parse_args()
    games = {game: long_game(game, args.rounds, seed=1) for game in GAMES}
    runs = [one_run(games) for _ in range(args.repeat)]
    build = " ".join(sys.version.split())  # the Python build: it moves the figure by 1.3x
    print(f"# {sys.implementation.name} {build} ({sys.executable})")
    print(f"{'game':<10} {'events':>9} {'events/s':>12}  (median of {args.repeat} runs, CPU time)")
    for game, lines in games.items():
        rate = statistics.median(len(lines) / cpu[game] for cpu, _ in runs)
        print(f"{game:<10} {len(lines):>9,} {rate:>12,.0f}")
    total = sum(len(lines) for lines in games.values())
    overall = statistics.median(total / sum(cpu.values()) for cpu, _ in runs)
    wall = statistics.median(total / seconds for _, seconds in runs)
    verdict = "meets" if overall >= GOAL else "MISSES"
    print(f"{'all':<10} {total:>9,} {overall:>12,.0f}  {verdict} the goal of {GOAL:,}/s")
    print(f"{'':<10} {'':>9} {wall:>12,.0f}  wall clock (median), load {_load()}")
    return 0


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
