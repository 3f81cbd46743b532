"""Arbitration: true order across sources, watermarks, silence, late edges."""

from __future__ import annotations

from buzzerbox.pads.fakes.wires import edges
from buzzerbox.pads.timeline.arbiter import UNREAD_GRACE, Arbiter, BoardStatusChanged, Edge

T0 = 1_000_000


def edge(board: str, ch: int, t_us: int, state: int = 1) -> Edge:
    return Edge(board, ch, f"{board}:{ch}", state, t_us)


def two_boards(silence_us: int = 500_000) -> Arbiter:
    arb = Arbiter(silence_us=silence_us)
    arb.add_source("a", T0)
    arb.add_source("b", T0)
    return arb


def test_nothing_is_final_until_every_live_source_is_past_it() -> None:
    arb = two_boards()
    arb.edge(edge("a", 1, T0 + 100), T0)
    assert edges(arb.advance(T0)) == []  # b has said nothing yet
    arb.report("b", T0 + 100, T0)
    assert edges(arb.advance(T0)) == []  # b not *past* it: it may still send one at T0+100
    arb.report("b", T0 + 101, T0)
    assert edges(arb.advance(T0)) == []  # a itself may still send another at T0+100
    arb.report("a", T0 + 101, T0)
    assert edges(arb.advance(T0)) == [edge("a", 1, T0 + 100)]


def test_order_is_by_time_never_by_arrival() -> None:
    arb = two_boards()
    arb.edge(edge("b", 2, T0 + 30), T0)
    arb.edge(edge("a", 5, T0 + 50), T0)
    arb.edge(edge("a", 4, T0 + 10), T0)  # arrives last, happened first
    arb.edge(edge("b", 0, T0 + 20), T0)
    arb.report("a", T0 + 60, T0)
    arb.report("b", T0 + 60, T0)
    assert [(e.board, e.t_us) for e in edges(arb.advance(T0))] == [
        ("a", T0 + 10),
        ("b", T0 + 20),
        ("b", T0 + 30),
        ("a", T0 + 50),
    ]


def test_equal_times_order_by_board_then_channel() -> None:
    arb = two_boards()
    for e in (edge("b", 0, T0), edge("a", 7, T0), edge("a", 2, T0)):
        arb.edge(e, T0)
    arb.report("a", T0 + 1, T0)
    arb.report("b", T0 + 1, T0)
    assert [(e.board, e.ch) for e in edges(arb.advance(T0))] == [("a", 2), ("a", 7), ("b", 0)]


def test_silent_source_is_marked_and_not_waited_for() -> None:
    arb = two_boards()
    arb.edge(edge("a", 1, T0 + 10), T0)
    arb.report("a", T0 + 20, T0)
    assert arb.advance(T0 + 500_000) == []  # b silent exactly 500 ms: still waited for
    for t in range(T0 + 100_000, T0 + 500_001, 100_000):
        arb.report("a", t, t)
    out = arb.advance(T0 + 500_001)
    assert out == [BoardStatusChanged("b", "silent"), edge("a", 1, T0 + 10)]


def test_silent_source_speaks_again_and_its_old_edge_is_late() -> None:
    arb = two_boards()
    arb.report("a", T0 + 800_000, T0 + 600_000)
    arb.edge(edge("a", 1, T0 + 900_000), T0 + 600_000)
    assert arb.advance(T0 + 600_000) == [BoardStatusChanged("b", "silent")]
    arb.report("a", T0 + 1_000_001, T0 + 600_000)
    assert edges(arb.advance(T0 + 600_001)) == [edge("a", 1, T0 + 900_000)]
    arb.edge(edge("b", 3, T0 + 400_000), T0 + 700_000)  # from before the decision
    out = arb.advance(T0 + 700_000)
    assert out == [
        BoardStatusChanged("b", "online"),
        Edge("b", 3, "b:3", 1, T0 + 400_000, late=True),
    ]
    arb.edge(edge("b", 3, T0 + 950_000, 0), T0 + 700_000)  # newer than decided: in order
    arb.report("b", T0 + 950_001, T0 + 700_000)
    assert edges(arb.advance(T0 + 700_000)) == [edge("b", 3, T0 + 950_000, 0)]


def test_a_source_with_bytes_unread_on_the_host_is_not_silent_and_its_edge_not_late() -> None:
    """A starved reader is not a silent board (issue 40's bench, load 12: a board's
    press and release sat in its pty while the other board's line marked it silent,
    then came late and the box refused them as out of order)."""
    arb = two_boards()
    arb.report("a", T0 + 800_000, T0 + 600_000)
    arb.edge(edge("a", 1, T0 + 900_000), T0 + 600_000)
    arb.report("a", T0 + 1_000_001, T0 + 600_000)
    assert arb.advance(T0 + 600_000, unread=["b"]) == []  # b's line waits: wait for it
    arb.edge(edge("b", 3, T0 + 400_000), T0 + 700_000)  # read at last: in order
    arb.report("b", T0 + 1_000_001, T0 + 700_000)
    assert arb.advance(T0 + 700_000) == [edge("b", 3, T0 + 400_000), edge("a", 1, T0 + 900_000)]


def test_a_port_always_readable_holds_decisions_back_only_so_long() -> None:
    arb = two_boards()
    arb.edge(edge("a", 1, T0 + 10), T0)
    grace = UNREAD_GRACE * arb.silence_us
    for t in range(T0 + 100_000, T0 + grace + 2, 100_000):
        arb.report("a", t, t)
    assert arb.advance(T0 + grace, unread=["b"]) == []  # noise on b's port: still waited for
    arb.report("a", T0 + grace + 1, T0 + grace + 1)
    out = arb.advance(T0 + grace + 1, unread=["b"])
    assert out == [BoardStatusChanged("b", "silent"), edge("a", 1, T0 + 10)]


def test_late_edge_never_changes_a_decision() -> None:
    arb = Arbiter()
    arb.add_source("a", T0)
    arb.edge(edge("a", 1, T0 + 10), T0)
    arb.report("a", T0 + 20, T0)
    first = edges(arb.advance(T0))
    arb.edge(edge("z", 0, T0 + 5), T0)  # unknown source: never waited for; older: late
    assert first == [edge("a", 1, T0 + 10)]
    assert edges(arb.advance(T0)) == [Edge("z", 0, "z:0", 1, T0 + 5, late=True)]


def test_dropped_source_is_not_waited_for_and_comes_back_blocking() -> None:
    arb = two_boards()
    arb.edge(edge("a", 1, T0 + 10), T0)
    arb.report("a", T0 + 20, T0)
    arb.drop_source("b")  # gone
    assert not arb.is_waited_for("b")
    arb.report("b", T0 + 1, T0)  # ignored while out
    assert edges(arb.advance(T0)) == [edge("a", 1, T0 + 10)]
    arb.add_source("b", T0)  # back: no watermark yet, so it blocks
    arb.edge(edge("a", 2, T0 + 30), T0)
    arb.report("a", T0 + 40, T0)
    assert edges(arb.advance(T0)) == []
    arb.report("b", T0 + 40, T0)
    assert edges(arb.advance(T0)) == [edge("a", 2, T0 + 30)]


def test_no_live_source_means_all_is_final() -> None:
    arb = Arbiter()
    arb.edge(edge("a", 1, T0), T0)
    assert edges(arb.advance(T0)) == [edge("a", 1, T0)]


def test_flush_hands_out_everything_in_order() -> None:
    arb = two_boards()
    arb.edge(edge("b", 1, T0 + 20), T0)
    arb.edge(edge("a", 1, T0 + 10), T0)
    assert edges(arb.advance(T0)) == []
    assert arb.pending == 2
    assert [e.t_us for e in edges(arb.flush())] == [T0 + 10, T0 + 20]
    assert arb.pending == 0


def test_each_edge_once_under_many_sources() -> None:
    arb = Arbiter()
    names = [f"s{i}" for i in range(5)]
    for n in names:
        arb.add_source(n, T0)
    out = []
    for step in range(200):
        t = T0 + step * 10
        src = names[(step * 7) % 5]
        arb.edge(edge(src, step % 3, t), t)
        for n in names:
            arb.report(n, t - 15, t)
        out += edges(arb.advance(t))
    out += edges(arb.flush())
    assert [e.t_us for e in out] == [T0 + s * 10 for s in range(200)]
