"""One error root (buzzerbox.errors); config and input faults are also ValueErrors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from buzzerbox.appliance.hardware import build_docs
from buzzerbox.errors import BuzzerboxError, ConfigError, InputError
from buzzerbox.mqtt.topics import check_box_name, parse_broker
from buzzerbox.pads.board import protocol
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard
from buzzerbox.pads.padmap import parse_pad_map
from buzzerbox.pads.timeline.clockmap import ClockMap
from buzzerbox.pads.timeline.debounce import Debouncer

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("kind", "fault", "says"),
    [
        (ConfigError, lambda: parse_broker("http://broker"), "scheme 'http' is not known"),
        (ConfigError, lambda: check_box_name("table 3!"), "table 3!"),
        (ConfigError, lambda: parse_pad_map("[pads]\n"), "key .pads. is not allowed"),
        (InputError, lambda: ClockMap(0), "tick_hz 0 is not allowed"),
        (InputError, lambda: Debouncer(-1), "window -1 µs is not allowed"),
        (InputError, lambda: BoardClock(offset_us=-5), "offset -5 µs is not allowed"),
        (InputError, lambda: FakeBoard(channels=4).press(4), "channel 4 does not exist: .* 0-3"),
        (InputError, lambda: protocol.encode("EDGE  1"), "exactly one space"),
    ],
)
def test_a_fault_is_a_buzzerbox_error_and_a_value_error(
    kind: type[BuzzerboxError], fault: Callable[[], object], says: str
) -> None:
    with pytest.raises(kind, match=says) as info:
        fault()
    assert isinstance(info.value, BuzzerboxError) and isinstance(info.value, ValueError)


def test_a_build_readme_without_its_wiring_markers_is_a_config_error(tmp_path: Path) -> None:
    folder = tmp_path / "build"
    folder.mkdir()
    source = ROOT / "hardware" / "builds" / "twinit-gpio" / "pads.toml"
    (folder / "pads.toml").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "README.md").write_text("# my build\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"README\.md has no place for the wiring: put"):
        build_docs(folder)


def test_the_root_is_one_class_every_layer_shares() -> None:
    import buzzerbox
    from buzzerbox.appliance.errors import PackageFileMissingError
    from buzzerbox.pads.errors import PadsError
    from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
    from buzzerbox.server.errors import BadBodyError
    from buzzerbox.store.eventlog import StoreError

    assert buzzerbox.BuzzerboxError is BuzzerboxError
    assert issubclass(BadBodyError, InputError) and issubclass(BadBodyError, ValueError)
    assert issubclass(PackageFileMissingError, FileNotFoundError)
    leaves = (PadsError, InvalidEventError, IllegalEventError, StoreError, BadBodyError)
    for leaf in (*leaves, PackageFileMissingError):
        assert issubclass(leaf, BuzzerboxError)


def exception_classes(root: Path) -> dict[str, tuple[Path, list[str]]]:
    """Every class of the package that is an exception: name -> (file, base names),
    read from the source (a base named by a builtin exception, or by such a class)."""
    import ast
    import builtins

    classes: dict[str, tuple[Path, list[str]]] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
                classes[node.name] = (path, bases)

    def is_exception(name: str, seen: frozenset[str] = frozenset()) -> bool:
        builtin = getattr(builtins, name, None)
        if isinstance(builtin, type) and issubclass(builtin, BaseException):
            return True
        if name not in classes or name in seen:
            return False
        return any(is_exception(base, seen | {name}) for base in classes[name][1])

    return {name: found for name, found in classes.items() if is_exception(name)}


def test_every_error_class_lives_in_an_errors_module_under_the_root() -> None:
    import buzzerbox

    root = Path(buzzerbox.__file__).parent
    found = exception_classes(root)
    assert {"BuzzerboxError", "InvalidEventError", "TooFastError"} <= set(found)
    wrong = []
    for name, (path, _) in sorted(found.items()):
        where = path.relative_to(root).as_posix()
        if path.name != "errors.py" or not name.endswith("Error"):
            wrong.append(f"{name} in {where}")
    assert wrong == [], "error classes live in their package's errors.py, named ...Error"
    for name in found:
        module = str(found[name][0].relative_to(root.parent).with_suffix("")).replace("/", ".")
        cls = getattr(__import__(module, fromlist=[name]), name)
        assert issubclass(cls, BuzzerboxError), f"{name} is outside the one root"


def test_the_error_class_finder_sees_a_stray_one(tmp_path: Path) -> None:
    (tmp_path / "errors.py").write_text("class RootError(Exception):\n    pass\n")
    (tmp_path / "thing.py").write_text("class Nope(RootError):\n    pass\nclass Fine:\n    pass\n")
    found = exception_classes(tmp_path)
    assert set(found) == {"RootError", "Nope"}
    assert found["Nope"][0].name == "thing.py"
