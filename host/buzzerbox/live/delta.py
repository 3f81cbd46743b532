"""What changed between two states, as a JSON Patch (RFC 6902): the live stream's deltas.

A pad press changes a few fields of a 6 KB state (the log seq, the race, one player's
piles, the pad test's last edge): the phones get those as a list of operations

    [{"op": "replace", "path": "/box/seq", "value": 42},
     {"op": "add", "path": "/race/0", "value": {...}}, ...]

that any JSON Patch library applies (the pages: web/static/api.js; the tests: the
`jsonpatch` package). Only `add`, `remove` and `replace` are used. Objects are compared
key by key; a list that grew at its end, or slid (the pad test keeps the last edges:
one comes in at the end, the oldest leaves at the front), gets the items that came and
went; a list of the same length is compared item by item; any other list, and a short
list of numbers or strings (the lit pads, the piles held), is replaced whole; so is a
small object (a player) when that is shorter than its changes.

Pure: no I/O, no clock. `diff(old, new)` then applying the result to `old` gives `new`,
types included: values are compared as JSON compares them (`same`), where true is not 1
and false is not 0 as they are to Python's `==`.
"""

from __future__ import annotations

import json
import marshal
from typing import Any

Op = dict[str, Any]

#: an object of at most this many keys is sent whole when that is shorter than its changes
SMALL = 12
#: a list of at most this many numbers or strings is sent whole when it changed
SHORT = 16
#: how far a list may slide (items gone at its front) and still be sent as a slide
MAX_SLIDE = 8


def diff(old: Any, new: Any) -> list[Op]:
    """The operations that turn `old` into `new` (both JSON values; `[]` if equal)."""
    ops: list[Op] = []
    _diff(old, new, "", ops)
    return ops


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal as JSON values: Python's `==` with true not 1,
    false not 0 (and 1.0 not 1: a replace too many is harmless, one too few is not).

    Two containers that `==` takes for equal are also compared as marshal writes them
    (version 2: no back-references, so equal values write the same bytes however their
    parts are shared), which tells True from 1 at any depth at C speed; a walk in
    Python made a diff five times slower. Equal objects with their keys in another
    order then count as changed and are compared key by key or sent again: more
    bytes, never a wrong state."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict or kind is list:
        return bool(a == b) and marshal.dumps(a, 2) == marshal.dumps(b, 2)
    return bool(a == b)


def _dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def pointer(key: str | int) -> str:
    """One reference token of a JSON Pointer (RFC 6901): "~" and "/" escaped."""
    return "/" + str(key).replace("~", "~0").replace("/", "~1")


def _diff(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    if old is new:
        return
    if type(old) is dict and type(new) is dict:
        if not path or len(new) > SMALL:
            _objects(old, new, path, ops)
            return
        within: list[Op] = []  # a small object (a player): its changes, or itself if shorter
        _objects(old, new, path, within)
        if len(within) > 1 and len(_dumps(new)) < len(_dumps(within)) - len(path) - 30:
            ops.append({"op": "replace", "path": path, "value": new})
        else:
            ops.extend(within)
    elif type(old) is list and type(new) is list:
        _lists(old, new, path, ops)
    elif not same(old, new):  # True == 1 in Python, not in JSON
        ops.append({"op": "replace", "path": path, "value": new})


def _objects(old: dict[str, Any], new: dict[str, Any], path: str, ops: list[Op]) -> None:
    for key, value in new.items():
        if key not in old:
            ops.append({"op": "add", "path": path + pointer(key), "value": value})
            continue
        before = old[key]
        if not same(before, value):
            _diff(before, value, path + pointer(key), ops)
    for key in old:
        if key not in new:
            ops.append({"op": "remove", "path": path + pointer(key)})


def _lists(old: list[Any], new: list[Any], path: str, ops: list[Op]) -> None:
    if same(old, new):
        return
    n_old, n_new = len(old), len(new)
    if n_new <= SHORT and not any(type(v) is dict or type(v) is list for v in new):
        ops.append({"op": "replace", "path": path, "value": new})  # shorter than its ops
        return
    for gone in range(min(MAX_SLIDE, n_old) + 1):  # grew at the end, or slid
        kept = n_old - gone
        fits = (gone or n_new > n_old) and (kept or not n_old) and kept <= n_new
        if fits and same(new[:kept], old[gone:]):
            ops.extend({"op": "remove", "path": f"{path}/0"} for _ in range(gone))
            ops.extend(
                {"op": "add", "path": f"{path}/{i}", "value": new[i]} for i in range(kept, n_new)
            )
            return
    if n_new < n_old and same(new, old[:n_new]):  # shrank at the end (an undo)
        ops.extend({"op": "remove", "path": f"{path}/{i}"} for i in range(n_old - 1, n_new - 1, -1))
        return
    if n_old == n_new:
        changed = [i for i in range(n_old) if not same(old[i], new[i])]
        if 2 * len(changed) <= n_old:  # at most half changed: item by item
            for i in changed:  # an item unchanged has no operation
                _diff(old[i], new[i], f"{path}/{i}", ops)
            return
    ops.append({"op": "replace", "path": path, "value": new})
