"""Leading-edge debounce on the board: the first edge of a burst, with its own time."""

from __future__ import annotations

from .fwbench import fw

debounce = fw("debounce")
W = 5000  # window, ticks


def make(channels: int = 4, window: int = W) -> tuple[object, list[tuple[int, int, int]]]:
    edges: list[tuple[int, int, int]] = []
    d = debounce.Debouncer(channels, window, lambda ch, level, t: edges.append((ch, level, t)))
    d.start([0] * channels)
    return d, edges


def test_a_bouncing_press_is_one_edge_at_its_first_contact() -> None:
    d, edges = make()
    t = 1000
    for i in range(12):  # 12 changes, 37 ticks apart: contact bounce
        d.change(2, 1 - i % 2, t + 37 * i)  # type: ignore[attr-defined]
    d.change(2, 1, t + 500)  # type: ignore[attr-defined]
    d.settle(t + 100_000)  # type: ignore[attr-defined]
    assert edges == [(2, 1, 1000)]


def test_press_and_release_outside_the_window_are_both_kept() -> None:
    d, edges = make()
    d.change(0, 1, 100)  # type: ignore[attr-defined]
    d.change(0, 0, 100 + W)  # type: ignore[attr-defined]
    assert edges == [(0, 1, 100), (0, 0, 100 + W)]


def test_a_tap_shorter_than_the_window_is_released_at_the_window_end() -> None:
    d, edges = make()
    d.change(1, 1, 100)  # type: ignore[attr-defined]
    d.change(1, 0, 900)  # type: ignore[attr-defined]
    d.settle(100 + W - 1)  # type: ignore[attr-defined]
    assert edges == [(1, 1, 100)]
    d.settle(100 + W)  # type: ignore[attr-defined]
    assert edges == [(1, 1, 100), (1, 0, 100 + W)]


def test_deferred_edges_come_out_in_time_order_before_later_edges() -> None:
    d, edges = make()
    d.change(3, 1, 10)  # type: ignore[attr-defined]
    d.change(1, 1, 20)  # type: ignore[attr-defined]
    d.change(3, 0, 30)  # type: ignore[attr-defined]
    d.change(1, 0, 40)  # type: ignore[attr-defined]
    d.change(0, 1, 50_000)  # type: ignore[attr-defined]
    assert edges == [(3, 1, 10), (1, 1, 20), (3, 0, 10 + W), (1, 0, 20 + W), (0, 1, 50_000)]
    times = [t for _, _, t in edges]
    assert times == sorted(times)


def test_a_burst_that_settles_back_reports_nothing_more() -> None:
    d, edges = make()
    d.change(0, 1, 0)  # type: ignore[attr-defined]
    d.change(0, 0, 10)  # type: ignore[attr-defined]
    d.change(0, 1, 20)  # type: ignore[attr-defined]
    d.settle(10 * W)  # type: ignore[attr-defined]
    assert edges == [(0, 1, 0)]


def test_window_zero_reports_every_change() -> None:
    d, edges = make(window=0)
    for i in range(6):
        d.change(0, 1 - i % 2, i)  # type: ignore[attr-defined]
    assert [t for _, _, t in edges] == [0, 1, 2, 3, 4, 5]


def test_the_power_up_levels_are_not_edges() -> None:
    edges: list[tuple[int, int, int]] = []
    d = debounce.Debouncer(3, W, lambda ch, level, t: edges.append((ch, level, t)))
    d.start([1, 0, 1])
    d.change(0, 1, 10)
    d.change(1, 1, 10)
    assert edges == [(1, 1, 10)]
    assert d.levels() == [1, 1, 1]
