"""A final pad edge, as the arbiter hands one on (`PadFeed` to `Box.pad_edge`), for a test
that plays a wired pad without boards: `box.pad_edge(pad_edge("north", True, clock.now))`."""

from __future__ import annotations

from buzzerbox.pads.timeline.arbiter import Edge


def pad_edge(pad_id: str, pressed: bool, t_us: int, *, board: str = "test", ch: int = 0) -> Edge:
    """The arbiter's final edge of pad `pad_id` at `t_us` (host timeline); the box reads
    its pad, its state and its time."""
    return Edge(board, ch, pad_id, 1 if pressed else 0, t_us)
