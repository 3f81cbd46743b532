"""Replaying a game log (version 1.1, game-log.md): lines in, the engine (and its state
object) out.

The one replay path: `buzzerbox replay`, an imported file and the box's own SQLite
log (buzzerbox.store.restore) all fold their lines through `fold`. Pure: it takes the
lines, the caller reads the file or the database.

A line is numbered (its 1-based line in a file, or its `seq` in the box's log). A
line the rules refuse, or one that cannot be read (not UTF-8, not JSON), is listed
in `rejected` with its number and reason, and changes nothing; a log whose first
line is no valid `game` raises InvalidEventError. A byte-order mark at the start of
the text (U+FEFF, as a Windows editor saves UTF-8) is no part of the first line.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from buzzerbox.errors import BuzzerboxError, Words
from buzzerbox.rules.engine import Engine
from buzzerbox.rules.errors import InvalidEventError
from buzzerbox.rules.eventjson import PARSERS, parse_event
from buzzerbox.rules.statejson import RejectedJson, StateJson
from buzzerbox.rules.written import WrittenFloat

#: a log line: its number and its object (an `Unreadable` when it could not be read)
Line = tuple[int, Any]


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A line that is no JSON text: why."""

    reason: str


@dataclass(frozen=True, slots=True)
class Rejected:
    """A line the rules refused or that could not be read: its number and why (in
    English); the state's `rejected` lists them as JSON (`to_json`)."""

    line: int
    reason: str

    def to_json(self) -> RejectedJson:
        return {"line": self.line, "reason": self.reason}


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of a line, or InvalidEventError if it gives a key twice (json.loads
    would keep the last of the two, silently)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                shown = json.dumps(key, ensure_ascii=False)[:40]
                raise InvalidEventError(  # said as the other unreadable lines are: in English
                    f"this line gives {shown} twice in one object: each key (a field, a "
                    "player's count) is given once",
                    subject=key,
                    code="key-twice",
                )
            seen.add(key)
    return obj


#: the C scanner under json.loads, without its wrappers (raw_decode says why); a number
#: with a fraction or an exponent keeps its text, for the refusal that quotes it
_scan: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder(  # type: ignore[attr-defined]
    parse_float=WrittenFloat
).scan_once
#: the same, refusing a key given twice in one object: `_repeats` runs it on a line its
#: count of keys does not clear
_scan_pairs: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder(  # type: ignore[attr-defined]
    parse_float=WrittenFloat, object_pairs_hook=_no_repeats
).scan_once


def _cleared(commas: int, obj: dict[str, Any]) -> bool:
    """Whether a line with `commas` commas, read as `obj`, cannot give a key twice.

    An object of n pairs is written with n - 1 commas (an array of n items too), and a
    text may hold more. Count the distinct keys of the line's object and of the objects
    in it: if the commas are exactly what those keys need, none of them was given twice,
    and no other array or object has room for a comma, so none holds two of anything."""
    keys, objects = len(obj), 1
    for value in obj.values():
        if type(value) is dict and value:
            keys += len(value)
            objects += 1
    return commas + objects == keys


def _repeats(line: str, obj: object) -> Unreadable | None:
    """Why `obj`, read from `line`, is refused if an object in it gives a key twice.

    Most lines are cleared by counting their commas (`_cleared`; a flat object of n
    keys with n - 1 commas at once); any other is read again, checking each object's
    keys."""
    if type(obj) is dict:
        commas = line.count(",")
        if commas + 1 == len(obj) or _cleared(commas, obj):
            return None
    elif not isinstance(obj, list):
        return None
    try:
        _scan_pairs(line, 0)
    except RecursionError:
        return None  # too deep: refused as such
    except InvalidEventError as exc:
        return Unreadable(str(exc))
    return None


_BLANK = Unreadable("a blank line")  # skipped, never listed

#: how deep a log line may nest (game-log.md's events nest a few levels at most). Python
#: 3.11's parser gives up (RecursionError) at about 1,000 levels, 3.13's only at about
#: 10,000: the limit is the log's own, the same on both
MAX_DEPTH = 64
_TOO_DEEP = Unreadable(
    f"this line nests too deep to read (over {MAX_DEPTH} levels): a log line is flat"
)


def _too_deep(line: str, obj: object) -> bool:
    """Whether `obj` (parsed from `line`) nests deeper than MAX_DEPTH."""
    if line.count("[") + line.count("{") <= MAX_DEPTH:  # cannot: each level opens one
        return False
    pending: list[tuple[object, int]] = [(obj, 0)]
    while pending:
        item, depth = pending.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(item, dict):
            pending.extend((inner, depth + 1) for inner in item.values())
        elif isinstance(item, list):
            pending.extend((inner, depth + 1) for inner in item)
    return False


def _load(raw: str | bytes) -> object:
    """One line's JSON value (the whole line: trailing text is refused)."""
    try:
        line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        return Unreadable("this line is not UTF-8 text")
    line = line.strip(" \t\n\r")  # the whitespace JSON allows around a value
    if not line or (line[0].isspace() and not line.strip()):
        return _BLANK
    try:
        try:
            obj, end = _scan(line, 0)
        except StopIteration as err:  # as json's raw_decode says it
            raise json.JSONDecodeError("Expecting value", line, err.value) from None
        if end != len(line):
            raise ValueError(f"extra text after the JSON value at column {end + 1}")
    except ValueError as exc:
        return Unreadable(f"this line is not JSON ({exc.args[0]})")
    except RecursionError:
        return _TOO_DEEP
    if _too_deep(line, obj):
        return _TOO_DEEP
    repeated = _repeats(line, obj)
    if repeated is not None:
        return repeated
    try:
        if not line.isascii():  # a str may hold a raw lone surrogate (ASCII text cannot)
            line.encode("utf-8")
        if "\\u" in line:  # only a \u escape in the JSON text can make one
            json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return Unreadable("this line holds a lone surrogate (such as \\ud800): not Unicode text")
    return obj


_BOM = "\ufeff"


def _numbered(lines: Iterable[str | bytes]) -> Iterator[tuple[int, str | bytes]]:
    """The lines numbered from 1, the first without a byte-order mark (RFC 8259 8.1
    lets a reader ignore one: a Windows editor puts it before UTF-8 text)."""
    numbered = enumerate(lines, start=1)
    for number, first in numbered:  # the first line; the others pass as they are
        bom = _BOM.encode("utf-8") if isinstance(first, bytes) else _BOM
        return itertools.chain((((number, first.removeprefix(bom))),), numbered)  # type: ignore[arg-type]
    return iter(())


def read_lines(lines: Iterable[str | bytes]) -> list[Line]:
    """The non-blank lines of a JSON Lines text, numbered and parsed; a line that cannot
    be read is kept as `Unreadable`, for `fold` to refuse."""
    return list(_read(_numbered(lines)))


def _read(numbered: Iterable[tuple[int, str | bytes]]) -> Iterator[Line]:
    for number, raw in numbered:
        obj = _load(raw)
        if obj is not _BLANK:
            yield number, obj


def fold(lines: Iterable[Line]) -> tuple[Engine, list[Any], list[Rejected]]:
    """The engine after every line, the objects it accepted, and the lines it refused.
    The first line must be a valid `game` line (InvalidEventError if not)."""
    rows = iter(lines)
    engine = _start(rows)
    accepted: list[Any] = []
    return engine, accepted, _fold(engine, rows, accepted)


def replay(lines: Iterable[str | bytes]) -> tuple[Engine, list[Rejected]]:
    """The engine after every line of a JSON Lines text, and the lines it rejected."""
    numbered = _numbered(lines)
    engine = _start(_read(numbered))  # reads up to the first line that is not blank
    return engine, _fold_text(engine, numbered)


def _start(rows: Iterator[Line]) -> Engine:
    """The engine of a log's first line, its `game` line."""
    for number, obj in rows:
        try:
            if isinstance(obj, Unreadable):
                raise InvalidEventError(obj.reason)
            return Engine.from_dict(obj)
        except InvalidEventError as exc:
            said = {"number": number, "why": exc.words or str(exc)}
            raise InvalidEventError(Words("line {number}: {why}", said), code=exc.code) from None
    words = Words("the log is empty: a game log starts with a 'game' line")
    raise InvalidEventError(words, code="empty-log")


def _fold(engine: Engine, rows: Iterator[Line], accepted: list[Any]) -> list[Rejected]:
    """Apply the rows after the first (numbered objects) to `engine`; the lines refused,
    and the objects accepted added to `accepted`."""
    rejected: list[Rejected] = []
    apply, parse = engine.apply, parse_event
    for number, obj in rows:
        if type(obj) is Unreadable:
            rejected.append(Rejected(number, obj.reason))
            continue
        try:
            apply(parse(obj))
        except BuzzerboxError as exc:
            rejected.append(Rejected(number, str(exc)))
            continue
        accepted.append(obj)
    return rejected


def _fold_text(engine: Engine, numbered: Iterator[tuple[int, str | bytes]]) -> list[Rejected]:
    """Read and apply the lines after the first to `engine`; the lines refused."""
    rejected: list[Rejected] = []
    apply, parse, parsers = engine.apply, parse_event, PARSERS
    for number, raw in numbered:
        obj: Any = _BLANK
        # most lines are ASCII text holding one JSON object and nothing else (no
        # whitespace around it, no \u escape that could make a lone surrogate, no key
        # given twice: a flat object of n keys has n - 1 commas), read here; _load reads
        # all others, and says what is wrong with one
        if type(raw) is str and raw.isascii() and "\\u" not in raw:
            try:
                obj, end = _scan(raw, 0)
            except (ValueError, StopIteration, RecursionError):
                pass
            else:
                if end != len(raw) or (
                    (type(obj) is not dict or raw.count(",") + 1 != len(obj))
                    and _repeats(raw, obj) is not None
                ):
                    obj = _BLANK
        if obj is _BLANK:
            obj = _load(raw)
            if obj is _BLANK:
                continue
            if type(obj) is Unreadable:
                rejected.append(Rejected(number, obj.reason))
                continue
        try:  # most lines are an object of a known type: its parser, at once
            kind = obj.get("type") if type(obj) is dict else None
            parser = parsers.get(kind) if type(kind) is str else None
            apply(parse(obj) if parser is None else parser(obj))
        except BuzzerboxError as exc:
            rejected.append(Rejected(number, str(exc)))
    return rejected


def replay_state(lines: Iterable[str | bytes]) -> StateJson:
    """The state object `buzzerbox replay` prints."""
    engine, rejected = replay(lines)
    state = engine.state()
    state["rejected"] = [r.to_json() for r in rejected]
    state["rejected_count"] = len(rejected)  # as the box's state has it (it lists 20 at most)
    return state
