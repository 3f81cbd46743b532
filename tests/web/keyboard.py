"""Every control of a page by keyboard alone: Tab reaches it, its focus shows, and
Enter and Space work it. What the keyboard tests share (test_browser_keyboard.py).

`walk(page)` marks every control the page shows (links, buttons, fields, check boxes
and radios, the pads and the buzzer, scrolling regions with a tabindex), then tabs from
the top of the page through to the end and, at each stop:
- notes the control reached and whether its focus shows: an outline (or a shadow) of
  2 px or more that the control does not wear unfocused (a see-through radio's or
  check box's label wears it);
- presses Enter and Space on it (Space only on a check box, the right arrow on a
  radio, Enter only on a link; neither on a text field, which takes typing, nor a
  scrolling region, which takes the arrows): each must
  work it, that is fire its click, or (a pad, the buzzer) send its press to the box.
  What it would do is kept from happening: clicks, form submissions and requests are
  caught and noted, never let through, so one page can be walked in any state;
- checks that the control is wired: a click, key or submit listener on it or on an
  element around it inside the page (found through the DevTools protocol), or a link
  that goes somewhere.
The answer lists what failed, in words; an empty list is a page that works by keyboard.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from playwright.sync_api import CDPSession, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

#: the keyboard's tools in the page: marks, the focus ring, caught clicks and requests
INSTALL = (Path(__file__).parent / "keyboard.js").read_text(encoding="utf-8")

#: the element with a mark, and the ones around it up to <body> (excluded)
AROUND = """(() => {{
  let el = document.querySelector('[data-kb="{kb}"]');
  for (let i = 0; i < {up} && el; i++) el = el.parentElement;
  return el && el !== document.body ? el : null;
}})()"""

#: listeners that work a control
WIRES = {"click", "keydown", "keyup", "submit", "change", "input", "pointerdown"}
MAX_STOPS = 400
#: a key's click or request has come
CAME = "() => kb.log.clicks.length || kb.log.requests.length"
#: the keys that work each kind of control
KEYS = {
    "link": ("Enter",),
    "check": ("Space",),
    "radio": ("ArrowRight",),  # Space on the checked one does nothing, rightly
    "button": ("Enter", "Space"),
}


def walk(page: Page) -> list[str]:
    """What fails on `page` by keyboard (see the module's text); [] if nothing."""
    page.evaluate(INSTALL)
    controls: list[dict[str, Any]] = page.evaluate("() => kb.mark()")
    cdp = page.context.new_cdp_session(page)
    problems: list[str] = []
    reached: dict[str, dict[str, Any]] = {}
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.evaluate("() => window.scrollTo(0, 0)")
    ends = 0  # Tab goes on from where the focus was, past the end and round from the top
    try:
        for _ in range(MAX_STOPS):
            page.keyboard.press("Tab")
            here: dict[str, Any] | None = page.evaluate("() => kb.here()")
            if here is None:
                ends += 1
                if ends == 2:
                    break
                continue
            if here["kb"] in reached:
                break  # round again
            if here["kb"] is None:
                problems.append(f"{here['name']}: reached, but it came after the page was read")
                continue
            reached[here["kb"]] = here
            problems += check_stop(page, cdp, here)
        else:
            problems.append(f"Tab did not come round in {MAX_STOPS} stops")
    finally:
        cdp.detach()
    if not reached:
        problems.append("Tab reaches nothing on the page")
    groups = {c["group"] for c in controls if c["kb"] in reached and c["group"]}
    for control in controls:
        if control["kb"] in reached or (control["group"] and control["group"] in groups):
            continue
        problems.append(f"{control['name']}: Tab never reaches it (tabindex {control['tabindex']})")
    return problems


def check_stop(page: Page, cdp: CDPSession, here: dict[str, Any]) -> list[str]:
    """The control Tab is on: its focus shows, it is wired, Enter and Space work it."""
    name, kind = here["name"], here["kind"]
    problems = [] if here["ring"] else [f"{name}: its focus does not show"]
    if not here["editable"]:
        problems.append(f"{name}: a field that takes no typing")
    if kind in ("region", "field"):
        return problems  # scrolled by the arrows, or typed in
    if kind != "link" and not wired(cdp, here["kb"]):
        problems.append(f"{name}: nothing listens to it")
    for key in KEYS[kind]:
        page.evaluate("() => kb.take()")
        page.keyboard.press(key)
        # a press waits in its page's queue for the one before it to be answered
        with contextlib.suppress(PlaywrightTimeout):  # nothing came: said below
            page.wait_for_function(CAME, timeout=2000)
        done = page.evaluate("() => kb.take()")
        worked = here["kb"] in done["clicks"] or (kind == "radio" and done["clicks"])
        if not worked and not done["requests"]:
            problems.append(f"{name}: {key} does nothing ({done})")
    return problems


def wired(cdp: CDPSession, kb: str) -> bool:
    """Whether a listener that works a control is on it or on an element around it."""
    for up in range(40):
        found = cdp.send("Runtime.evaluate", {"expression": AROUND.format(kb=kb, up=up)})
        handle = found["result"].get("objectId")
        if handle is None:
            return False
        listeners = cdp.send("DOMDebugger.getEventListeners", {"objectId": handle})
        cdp.send("Runtime.releaseObject", {"objectId": handle})
        if WIRES & {entry["type"] for entry in listeners["listeners"]}:
            return True
    return False
