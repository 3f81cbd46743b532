"""Benchmark: cross-board order on emulated boards with a realistic USB link, SYNC
round trips only vs the sync wire. A script (not collected by pytest); prints figures.

    python tests/bench/fairness.py [--boards 4] [--pairs 100] [--seed 1]

Each board (pads/fakes/usb.py) has its own clock offset, a drift of up to ±50 ppm and
its own USB asymmetry (OUT 40-250 µs, IN polled once per 1 ms frame then 60-400 µs to
the host program, SYNC stamped 5-50 µs after its line, EDGE out 50-900 µs after the
contact). The same boards, presses and seed run three times on a driven clock: SYNC
round trips only; the sync wire pulsed and stamped by the host (4 µs write); the
sync wire pulsed by an outside pulser (boards lined up by common pulses).
For every spacing, `--pairs` pairs of presses on two different boards, that far
apart in a random order, each pair 40 ms after the last: how many came out in the
wrong order; |mapped time - true contact time| over every press; and how far the
mapped spacing of each pair is from the true one (what the order rests on).
Goals: with the wire p95 <= 10 µs and no misorder at >= 20 µs; SYNC only p95 <= 300 µs.
"""

from __future__ import annotations

import argparse
import random
import statistics
from typing import Literal

from buzzerbox.pads.fakes.usb import UsbRig, UsbTiming
from buzzerbox.testing import START_US, ManualClock

SPACINGS = (20, 50, 100, 300, 1000)
SYNC_CH = 7
Mode = Literal["host", "external"] | None


Result = tuple[dict[int, int], list[float], list[float]]


def run(mode: Mode, boards: int, pairs: int, seed: int) -> Result:
    """Misordered pairs per spacing, every press's |mapped - true| error (µs), and every
    pair's |mapped spacing - true spacing| (µs)."""
    rng = random.Random(seed)
    clock = ManualClock(START_US)
    rig = UsbRig(clock, wire=mode, seed=seed, silence_us=60_000_000)
    links = [
        rig.add_board(
            f"pico-{i}",
            offset_us=rng.randrange(1, 600_000_000),
            drift_ppm=rng.uniform(-50, 50),
            timing=UsbTiming.random(rng),
            sync_ch=SYNC_CH,
        )
        for i in range(boards)
    ]
    rig.run(6_000_000)  # SYNC bursts, then pulses: both maps settle
    start = len(rig.edges())
    plan: list[tuple[int, int, int, int]] = []  # spacing, first board, second board, t
    t = clock() + 10_000
    for spacing in SPACINGS:
        for _ in range(pairs):
            a, b = rng.sample(range(boards), 2)
            t += 40_000 + rng.randrange(1000)
            ch = rng.randrange(SYNC_CH)
            rig.press(links[a], ch, t)
            rig.press(links[b], ch, t + spacing)
            plan.append((spacing, a, b, t))
    rig.run(t - clock() + 2_000_000)
    presses = [e for e in rig.edges()[start:] if e.state == 1]
    truth = {}
    for i, link in enumerate(links):
        for ch, state, at in link.truth:
            if state == 1 and ch != SYNC_CH:
                truth[(i, at)] = ch
    got: dict[tuple[int, int], tuple[int, int]] = {}  # (board, true time) -> (order, t_us)
    by_board: dict[int, list[tuple[int, int]]] = {}
    for order, e in enumerate(presses):
        by_board.setdefault(int(e.board.split("-")[1]), []).append((order, e.t_us))
    for i, link in enumerate(links):
        trues = sorted(at for ch, state, at in link.truth if state == 1 and ch != SYNC_CH)
        for at, seen in zip(trues, by_board.get(i, []), strict=True):
            got[(i, at)] = seen
    errors: list[float] = [abs(t_us - at) for (i, at), (_, t_us) in got.items()]
    wrong = {s: 0 for s in SPACINGS}
    gaps: list[float] = []
    for spacing, a, b, at in plan:
        (first, t_first), (second, t_second) = got[(a, at)], got[(b, at + spacing)]
        if first > second:
            wrong[spacing] += 1
        gaps.append(abs(t_second - t_first - spacing))
    return wrong, errors, gaps


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=4)
    ap.add_argument("--pairs", type=int, default=100, help="pairs per spacing")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    modes: list[tuple[str, Mode]] = [
        ("SYNC only", None),
        ("wire, host", "host"),
        ("wire, external", "external"),
    ]
    results = {name: run(mode, args.boards, args.pairs, args.seed) for name, mode in modes}
    print(f"{args.boards} boards, {args.pairs} pairs per spacing, seed {args.seed}")
    print(f"{'misordered pairs':<24}" + "".join(f"{name:>16}" for name, _ in modes))
    for s in SPACINGS:
        row = "".join(f"{f'{results[n][0][s]}/{args.pairs}':>16}" for n, _ in modes)
        print(f"{f'  at {s} µs':<24}{row}")
    print(f"{'|mapped time error| µs':<24}")
    for label, q in (("  p50", 50.0), ("  p95", 95.0), ("  max", 100.0)):
        cells = []
        for name, _ in modes:
            errs = results[name][1]
            cells.append(max(errs) if q == 100.0 else pct(errs, q))
        print(f"{label:<24}" + "".join(f"{c:>16.0f}" for c in cells))
    print(f"{'|pair spacing error| µs':<24}")
    for label, q in (("  p95", 95.0), ("  max", 100.0)):
        cells = [max(r[2]) if q == 100.0 else pct(r[2], q) for r in results.values()]
        print(f"{label:<24}" + "".join(f"{c:>16.0f}" for c in cells))


if __name__ == "__main__":
    main()
