"""The layout's import rules, read from the source (ast): a change that breaks one fails.

Data flows one way: pad sources -> box -> rules -> store -> web / MQTT, and serve.py
is the one place that wires them. A *unit* is a package under buzzerbox/ (box, pads,
web, ...) or a top-level module (serve, cli, ...): box/ is one unit, its parts import
each other freely. The rules:

- no import cycles between units;
- web/ (the box's pages and JSON API) imports nothing of pads/, mqtt/, hub/ or serve;
- live/ (the stream engine) and server/ (the HTTP plumbing) import nothing of box/,
  rules/, pads/, store/, the web pages, mqtt/ or hub/: the box and the hub share them;
- hub/ imports neither box/, rules/, pads/ nor store/ (nor web/): the event's hub is
  no box; it streams with live/ and serves with server/ (and a fresh interpreter that
  imports buzzerbox.hub.app loads no module of the box, the rules or the pads);
- pads/ never imports the box (the feed is typed against a Protocol), nor what sits
  on top of it;
- mqtt/ imports neither web/ nor hub/;
- rules/ imports only itself, the standard library and buzzerbox.errors.

One name, one idea: no two modules of the package share a file name, but an area's
errors.py (its errors, under the one root) and commands.py (its CLI commands).

Every import counts, also one inside a function. The detector is checked on a small
synthetic tree with each kind of bad import, so this test can fail.
"""

from __future__ import annotations

import ast
import collections
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import buzzerbox

ROOT = Path(buzzerbox.__file__).parent

#: unit -> units it must not import
#: what the stream engine and the server plumbing must not import: they serve both
SHARED_MUST_NOT = {"box", "rules", "pads", "store", "web", "mqtt", "hub", "serve"}
FORBIDDEN = {
    "web": {"pads", "mqtt", "hub", "serve"},
    "live": SHARED_MUST_NOT,
    "server": SHARED_MUST_NOT,
    "hub": {"box", "rules", "pads", "store", "web", "serve"},
    "pads": {"box", "serve", "web", "live", "server", "mqtt", "hub", "appliance"},
    "mqtt": {"web", "hub", "serve"},
}
#: what rules/ may import besides the standard library
RULES_MAY_IMPORT = {"rules", "errors"}
#: file names each area may have, for the same idea in each
AREA_FILES = {"__init__.py", "errors.py", "commands.py"}


def imports_of(path: Path, root: Path) -> Iterator[str]:
    """The absolute names of the modules a source file imports (relative ones resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = [root.name, *path.relative_to(root).parent.parts]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                yield ".".join([*base, node.module] if node.module else base)
            elif node.module:
                yield node.module


def unit_of(module: str, root: Path) -> str | None:
    """The unit of one of our modules ("buzzerbox.pads.board" -> "pads"); None if not ours."""
    parts = module.split(".")
    if parts[0] != root.name:
        return None
    if len(parts) == 1:
        return ""  # the package itself (buzzerbox/__init__.py)
    return parts[1]


def graph(root: Path) -> dict[str, dict[str, set[str]]]:
    """unit -> {imported unit (or "" for the root, or a foreign top name): {files}}."""
    out: dict[str, dict[str, set[str]]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        unit = rel.parts[0].removesuffix(".py") if rel.parts[0] != "__init__.py" else ""
        edges = out.setdefault(unit, {})
        for module in imports_of(path, root):
            target = unit_of(module, root)
            if target is None:
                target = "<" + module.split(".")[0] + ">"
            if target != unit:
                edges.setdefault(target, set()).add(str(rel))
    return out


def cycles(edges: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """The import cycles between units (strongly connected components, Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, {}):
            if nxt not in edges:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def violations(root: Path) -> list[str]:
    """Every broken rule, as a sentence naming the files."""
    edges = graph(root)
    out = [f"import cycle between {', '.join(c)}" for c in cycles(edges)]
    for unit, banned in FORBIDDEN.items():
        for target in sorted(banned & set(edges.get(unit, {}))):
            where = ", ".join(sorted(edges[unit][target]))
            out.append(f"{unit} imports {target} ({where})")
    stdlib = sys.stdlib_module_names
    for target, files in sorted(edges.get("rules", {}).items()):
        foreign = target.startswith("<") and target.strip("<>") not in stdlib
        if foreign or (not target.startswith("<") and target not in RULES_MAY_IMPORT):
            out.append(f"rules imports {target} ({', '.join(sorted(files))})")
    return out


def test_the_import_rules_hold() -> None:
    assert len(graph(ROOT)) >= 15  # the walk found the units
    assert violations(ROOT) == []


def test_serve_is_the_one_place_that_wires_the_box() -> None:
    edges = graph(ROOT)
    assert {"box", "pads", "mqtt", "web", "store"} <= set(edges["serve"])
    wiring = [u for u, e in edges.items() if {"pads", "mqtt", "web"} <= set(e)]
    assert wiring == ["serve"]


def test_the_hub_loads_no_box_rules_or_pads() -> None:
    """In a fresh interpreter: importing the hub's app loads none of the box's modules."""
    code = (
        "import sys, buzzerbox.hub.app\n"
        "print('\\n'.join(m for m in sys.modules if m.startswith('buzzerbox')))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT.parent)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    loaded = done.stdout.split()
    assert "buzzerbox.hub.app" in loaded and "buzzerbox.live.sse" in loaded  # it ran
    banned = ("buzzerbox.box", "buzzerbox.rules", "buzzerbox.pads", "buzzerbox.store")
    assert [m for m in loaded if m.split(".")[:2] in [b.split(".") for b in banned]] == []


def write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_detector_catches_each_kind_of_bad_import(tmp_path: Path) -> None:
    root = tmp_path / "buzzerbox"
    for package in ("rules", "pads", "web", "mqtt", "hub", "store", "box", "live", "server"):
        write(root, f"{package}/__init__.py", "")
    write(root, "__init__.py", "")
    write(root, "box/core.py", "from buzzerbox.rules import engine\nfrom . import enrol\n")
    write(root, "box/enrol.py", "from buzzerbox.box import errors\n")  # one unit: no cycle
    write(root, "hub/app.py", "from buzzerbox.live import sse\nfrom buzzerbox.server import auth\n")
    write(root, "live/sse.py", "from buzzerbox.server import guard\n")
    write(root, "rules/engine.py", "import json\nfrom buzzerbox.errors import BuzzerboxError\n")
    write(root, "errors.py", "")
    assert violations(root) == []  # a clean tree passes

    write(root, "web/api.py", "def f():\n    from buzzerbox.pads import link\n")
    write(root, "pads/feed.py", "from ..box import Box\n")
    write(root, "mqtt/pub.py", "import buzzerbox.hub.leaderboard\n")
    write(root, "rules/base.py", "import serial\nfrom buzzerbox.store import log\n")
    write(root, "store/eventlog.py", "from buzzerbox.web import api\n")
    write(root, "hub/x.py", "from buzzerbox.store import log\n")
    write(root, "hub/y.py", "def f():\n    import buzzerbox.box.core\n")
    write(root, "live/delta.py", "from buzzerbox.web import api\n")
    write(root, "server/auth.py", "from ..rules import engine\n")
    found = violations(root)
    assert "hub imports box (hub/y.py)" in found
    assert "hub imports store (hub/x.py)" in found
    assert "live imports web (live/delta.py)" in found
    assert "server imports rules (server/auth.py)" in found
    assert "web imports pads (web/api.py)" in found
    assert "pads imports box (pads/feed.py)" in found
    assert "mqtt imports hub (mqtt/pub.py)" in found
    assert "rules imports <serial> (rules/base.py)" in found
    assert "rules imports store (rules/base.py)" in found
    # box -> rules -> store -> web -> pads -> box
    assert "import cycle between box, pads, rules, store, web" in found


def test_the_pad_feed_does_not_import_the_monitor_command() -> None:
    """The box's pad feed sends the events' own JSON (to_json), not the CLI's."""
    feed = ROOT / "pads" / "feed.py"
    assert "buzzerbox.pads.monitor" not in set(imports_of(feed, ROOT))
    assert "buzzerbox.pads.timeline.arbiter" in set(imports_of(feed, ROOT))  # the walk reads it


def shared_names(root: Path) -> dict[str, list[str]]:
    """File names that two modules of the package share (but AREA_FILES), and where."""
    where: dict[str, list[str]] = collections.defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] != "firmware":  # the board's own program (a link into firmware/)
            where[path.name].append(str(rel))
    return {n: w for n, w in where.items() if len(w) > 1 and n not in AREA_FILES}


def test_one_name_one_idea(tmp_path: Path) -> None:
    assert len(list(ROOT.rglob("*.py"))) > 100  # the walk found the package
    assert shared_names(ROOT) == {}
    for name in ("rules/log.py", "store/log.py", "box/errors.py", "hub/errors.py"):
        write(tmp_path, name, "")
    assert shared_names(tmp_path) == {"log.py": ["rules/log.py", "store/log.py"]}


def module_graph(root: Path) -> tuple[dict[str, dict[str, set[str]]], list[str]]:
    """module -> {module it imports: {itself}}, every import counted (also one under
    TYPE_CHECKING or inside a function); and each private name imported across modules
    ("a.b imports _c from a.d")."""
    modules: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    edges: dict[str, dict[str, set[str]]] = {}
    private = []
    for name, path in modules.items():
        out = edges.setdefault(name, {})
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in modules:
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    out.setdefault(target if target in modules else node.module, set()).add(name)
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        private.append(f"{name} imports {alias.name} from {node.module}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        out.setdefault(alias.name, set()).add(name)
    return edges, private


def test_no_module_imports_a_circle_or_another_modules_private_name() -> None:
    edges, private = module_graph(ROOT)
    assert "buzzerbox.pads.padmap.testline" in edges["buzzerbox.pads.padmap.load"]
    assert cycles(edges) == []
    assert private == []


def test_the_module_check_sees_a_circle_and_a_private_import(tmp_path: Path) -> None:
    root = tmp_path / "buzzerbox"
    write(root, "pads/a.py", "from buzzerbox.pads.b import thing\n")
    write(root, "pads/b.py", "def f():\n    from buzzerbox.pads.a import _hidden\n")
    edges, private = module_graph(root)
    assert cycles(edges) == [["buzzerbox.pads.a", "buzzerbox.pads.b"]]
    assert private == ["buzzerbox.pads.b imports _hidden from buzzerbox.pads.a"]
