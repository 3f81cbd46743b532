"""`buzzerbox doctor --pads MAP --write-ids`: the boards' ids and ports, written into the map.

A new Pico says its id in HELLO (`pico-` and 16 hex digits); the pad map must name it by
that id, and reach it by its stable /dev/serial/by-id/ path. Instead of copying both by
hand, the doctor pairs each [[board]] of the map with a board it found:

1. a board whose id the map already has keeps its place (its url is brought up to date);
2. one board of the map left and one found: they are each other's;
3. more: the doctor asks, board by board in the map's order, for a press of any pad
   wired to it, and the board that sends a press is that one. A board nobody presses
   for is left as it was, and said.

Then it rewrites only the `id` and `url` lines of those [[board]] tables (comments and
the rest as they were), adds `alias = "<the old id>"` to a board that had no alias, so
that the pads that named it by that id still find it, checks the new text with the box's
own loader and writes it. `pair` and `rewrite` do no I/O; `press_identify` listens to
the boards with the doctor's `Probe`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from buzzerbox.appliance.boardprobe import BoardReport, Probe
from buzzerbox.errors import BuzzerboxError
from buzzerbox.pads.board.protocol import Hello
from buzzerbox.pads.padmap import PadMap, parse_pad_map
from buzzerbox.pads.padmap.spec import BoardSpec
from buzzerbox.pads.padmap.tomllines import TomlLines

IDENTIFY_S = 60.0
"""How long the doctor waits for a press of a board's pad, per board."""


@dataclass(frozen=True, slots=True)
class Found:
    """A board the doctor found: the id it said in HELLO, the url for the map."""

    board_id: str
    url: str


@dataclass(frozen=True, slots=True)
class Change:
    """The `index`-th [[board]] of the map (`spec`) is the board `found`."""

    index: int
    spec: BoardSpec
    found: Found

    def lines(self) -> list[str]:
        said = []
        if self.found.board_id != self.spec.id:
            said.append(f"id {self.found.board_id} (was {self.spec.id})")
        if self.found.url != self.spec.url:
            said.append(f"url {self.found.url} (was {self.spec.url or 'none'})")
        return [f"board {self.spec.name}: " + ", ".join(said)] if said else []


Identify = Callable[[BoardSpec, Sequence[Found]], Found | None]
"""Which of the boards found is `spec`: the one a press comes from (None: no press)."""


def pair(pad_map: PadMap, found: Sequence[Found], identify: Identify) -> list[Change]:
    """Each [[board]] of the map with the board found that it is (see the module)."""
    index = {spec.id: i for i, spec in enumerate(pad_map.boards)}
    by_id = {f.board_id: f for f in found}
    changes = [Change(index[s.id], s, by_id[s.id]) for s in pad_map.boards if s.id in by_id]
    specs = [s for s in pad_map.boards if s.id not in by_id]
    left = [f for f in found if f.board_id not in index]
    while specs and left:
        spec = specs.pop(0)
        match = left[0] if len(specs) == 0 and len(left) == 1 else identify(spec, left)
        if match is not None:
            left.remove(match)
            changes.append(Change(index[spec.id], spec, match))
    return sorted(changes, key=lambda c: c.index)


_VALUE = r'(\s*{key}\s*=\s*)"[^"\n]*"(.*)'


def rewrite(text: str, changes: Sequence[Change]) -> str:
    """`text` with each change's [[board]] id and url set (see the module). PURE."""
    lines = text.splitlines(keepends=True)
    where = TomlLines(text)
    inserts: list[tuple[int, str]] = []  # (after line n, a line)
    for change in changes:
        spec, found = change.spec, change.found
        head = where.line("[[board", change.index)
        assert head is not None
        for key, value in (("id", found.board_id), ("url", found.url)):
            n = where.line("[[board", change.index, key)
            pattern = re.compile(_VALUE.format(key=re.escape(key)))
            m = (
                pattern.fullmatch(lines[n - 1].rstrip("\n"))
                if n is not None and n != head
                else None
            )
            if m is not None and n is not None:
                lines[n - 1] = f'{m.group(1)}"{value}"{m.group(2)}\n'
            else:
                inserts.append((head, f'{key} = "{value}"\n'))
        if spec.alias is None and found.board_id != spec.id:
            inserts.append((head, f'alias = "{spec.id}"   # the id it had: its pads name it so\n'))
    for after, line in sorted(inserts, key=lambda item: item[0], reverse=True):
        lines.insert(after, line)
    return "".join(lines)


def found_boards(reports: Sequence[BoardReport], links: dict[str, str]) -> list[Found]:
    """The boards the probe heard, each with the url the map should have: its by-id path
    (`links`: a device's real path -> its /dev/serial/by-id/ link), else the one asked."""
    out = []
    for r in reports:
        if r.hello is not None:
            url = r.url if "://" in r.url else links.get(str(Path(r.url).resolve()), r.url)
            out.append(Found(r.hello.board_id, url))
    return out


def press_identify(
    pad_map: PadMap, out: TextIO, sync_ch: Callable[[Hello], int | None], wait_s: float = IDENTIFY_S
) -> Identify:
    """Which board found is `spec`: the one a pad press comes from, within `wait_s`."""

    def identify(spec: BoardSpec, candidates: Sequence[Found]) -> Found | None:
        pads = [p.id for p in pad_map.pads if p.board == spec.id]
        more = ", ..." if len(pads) > 6 else ""
        out.write(f"press any pad wired to board {spec.name} ({', '.join(pads[:6])}{more}) ")
        out.write(f"within {wait_s:g} s\n")
        out.flush()
        probe = Probe([c.url for c in candidates], sync_ch=sync_ch)
        probe.run(wait_s, until=lambda pr: any(_pressed(r) for r in pr.reports))
        pressed = [c for c, r in zip(candidates, probe.reports, strict=True) if _pressed(r)]
        if len(pressed) != 1:
            why = "presses on several boards" if pressed else f"no press in {wait_s:g} s"
            out.write(f"board {spec.name}: {why}: left as it was\n")
            return None
        out.write(f"board {spec.name} is {pressed[0].board_id}\n")
        return pressed[0]

    return identify


def _pressed(report: BoardReport) -> bool:
    return any(e.state == 1 for e in report.edges)


def write_ids(
    path: Path, pad_map: PadMap, found: Sequence[Found], identify: Identify, out: TextIO
) -> bool:
    """Pair, rewrite and write the map at `path`; say what changed. False: nothing could
    be written (the new text would not load, or the file cannot be written)."""
    out.write(f"== board ids: into {path}\n")
    pairs = pair(pad_map, found, identify)
    for spec in pad_map.boards:
        if spec.id not in {c.spec.id for c in pairs}:
            out.write(f"board {spec.name}: no board found for it: left as it was\n")
    changes = [c for c in pairs if c.lines()]
    if not changes:
        out.write("nothing to change: the map has every board found as it is\n")
        return True
    try:
        new = rewrite(path.read_text(encoding="utf-8"), changes)
        parse_pad_map(new, name=str(path))
        path.write_text(new, encoding="utf-8")
    except (BuzzerboxError, OSError) as exc:
        out.write(f"not written: {exc}\n")
        return False
    for change in changes:
        out.write("\n".join(change.lines()) + "\n")
    out.write(f"wrote {path}: check it with buzzerbox hardware check {path}\n")
    return True
