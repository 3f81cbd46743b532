"""People keep their colour (issue 24, item 9), on a 390×844 phone against the real box.

A player's colour follows their name into a rematch and into a new game with the seats
changed (box/colours.py); and the layouts that broke with long names: the count form
puts a long name beside its colour dot, "Seats and pads" says a seat's piles in one
item, the score page's rounds table shows four players without a sideways scroll.
"""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from .browser_support import Served, browsing
from .tv_steps import Scorekeeper, pads_page, round_called

FOUR = [
    "Maximilian-Alexander",
    "Jean-Luc Picard",
    "Anna-Lena Schmidt",
    "Dorothea Wilhelmina",
]

#: each standing's player and the colour of their dot on the scoreboard
DOT_COLOURS = """() => Object.fromEntries([...document.querySelectorAll("#standings > li")]
  .map((li) => [li.dataset.name, getComputedStyle(li.querySelector(".dot")).backgroundColor]))"""

#: each count row: its dot's box and its name's first line (a line box of the label)
DOT_AND_NAME = """() => [...document.querySelectorAll(".count-row .count-label")].map((label) => {
  const dot = label.querySelector(".dot").getBoundingClientRect();
  const line = label.querySelector(".name").getClientRects()[0];
  return {name: label.querySelector(".name").textContent, dotTop: dot.top, dotBottom: dot.bottom,
          dotRight: dot.right, lineTop: line.top, lineBottom: line.bottom, lineLeft: line.left};
})"""

#: the rounds table's head cells: whether each is inside the scroll box and whole
HEADS = """() => {
  const box = document.querySelector("#history").getBoundingClientRect();
  return [...document.querySelectorAll("#history thead th")].map((th) => {
    const r = th.getBoundingClientRect();
    return [th.textContent.trim(), r.left >= box.left - 0.5 && r.right <= box.right + 0.5,
            th.scrollWidth <= th.clientWidth + 0.5];
  });
}"""


def colours(viewer: Page, names: list[str]) -> dict[str, str]:
    for name in names:
        expect(viewer.locator(f"#standings > li[data-name='{name}']")).to_have_count(1)
    found: dict[str, str] = viewer.evaluate(DOT_COLOURS)
    assert sorted(found) == sorted(names), found
    assert len(set(found.values())) == len(names), f"two players share a colour: {found}"
    return found


def test_colours_follow_names_and_the_long_name_layouts(served: Served, browser: Browser) -> None:
    with browsing(served, browser) as (watch, (context,)):
        keeper = Scorekeeper(context, served)  # the table's admin, on this phone
        keeper.game("twist", FOUR)
        table = watch.page(context)
        table.goto(f"{served.url}/table")

        # Seats and pads: each seat's eight piles in one item, the name not repeated
        for seat in range(4):
            pads_line = table.get_by_test_id(f"seat-pads-{seat}")
            expect(pads_line).to_have_text("stop pad, 8 pile pads (1–8)")
            box = pads_line.bounding_box()
            assert box is not None and box["height"] < 30, (seat, box)  # one line

        # the count form: each long name wraps beside its dot, never under it
        pads = pads_page(watch, context, served)
        round_called(keeper, pads, caller=1, runner=0)
        expect(table.get_by_test_id("left-form")).to_be_visible()
        rows = table.evaluate(DOT_AND_NAME)
        assert len(rows) == 4
        for row in rows:
            assert row["dotRight"] <= row["lineLeft"], row  # the dot left of the name
            assert row["dotTop"] < row["lineBottom"] and row["dotBottom"] > row["lineTop"], row
        table.get_by_test_id("left-submit").click()  # the pile pads' counts, as they are

        # the score page: the four players' columns of the rounds table, whole
        viewer = watch.page(context)
        viewer.goto(f"{served.url}/")
        expect(viewer.get_by_test_id("cell-1-3")).to_be_visible()
        heads = viewer.evaluate(HEADS)
        assert [h[0] for h in heads[1:]] == FOUR
        assert all(inside and whole for _, inside, whole in heads), heads
        expect(viewer.get_by_test_id("history-hint")).to_be_hidden()
        first = colours(viewer, FOUR)

        # a rematch, then the same people in other seats: each keeps their colour
        keeper.post("rematch")
        expect(viewer.get_by_test_id("round")).to_be_hidden()  # the new game's lobby
        assert colours(viewer, FOUR) == first
        moved = [FOUR[2], FOUR[0], FOUR[3], FOUR[1]]
        keeper.game("twist", moved)
        expect(viewer.get_by_test_id("player-0")).to_have_attribute("data-name", moved[0])
        assert colours(viewer, FOUR) == first
        # a newcomer takes a colour none of them has
        keeper.game("twist", ["Zoë", FOUR[1]])
        expect(viewer.get_by_test_id("player-0")).to_have_attribute("data-name", "Zoë")
        two = colours(viewer, ["Zoë", FOUR[1]])
        assert two[FOUR[1]] == first[FOUR[1]]
        assert two["Zoë"] not in first.values()
        watch.check()
