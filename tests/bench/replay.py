"""Replay speed: events/s through the rules engine on one core.

    python3 tests/bench/replay.py [--rounds N] [--repeat K]

Generates long games (tests/rules/gamegen.py) of each kind, serialises them as
game-log lines and replays them with `buzzerbox.rules.replay_state`, the same
path `buzzerbox replay` takes (JSON parsing included). Prints events/s per game
and overall; the goal is at least 100,000 events/s.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from buzzerbox.rules import replay_state

from tests.rules.gamegen import generate

GOAL = 100_000


def long_game(game: str, rounds: int, seed: int) -> list[str]:
    return [json.dumps(event) for event in generate(game, rounds, seed)]


def best_rate(lines: list[str], repeat: int) -> tuple[float, dict[str, object]]:
    best = 0.0
    state: dict[str, object] = {}
    for _ in range(repeat):
        start = time.perf_counter()
        state = replay_state(lines)
        elapsed = time.perf_counter() - start
        best = max(best, len(lines) / elapsed)
    return best, state


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60, help="rounds (claims for Twin It!)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per game; the best counts")
    args = parser.parse_args()
    total_lines = 0
    total_time = 0.0
    print(f"{'game':<10} {'events':>9} {'events/s':>12}  state")
    for game in ("ligretto", "twist", "kids", "twinit"):
        lines = long_game(game, args.rounds, seed=1)
        rate, state = best_rate(lines, args.repeat)
        rejected = state["rejected"]
        assert isinstance(rejected, list) and not rejected, rejected
        total_lines += len(lines)
        total_time += len(lines) / rate
        where = f"{state['phase']}, round {state['round']}"
        print(f"{game:<10} {len(lines):>9,} {rate:>12,.0f}  {where}")
    overall = total_lines / total_time
    verdict = "meets" if overall >= GOAL else "MISSES"
    print(f"{'all':<10} {total_lines:>9,} {overall:>12,.0f}  {verdict} the goal of {GOAL:,}/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
