"""rules/ stays pure: it imports only itself, the standard library and buzzerbox.errors."""

import ast
import sys
from pathlib import Path

import buzzerbox.rules

RULES = Path(buzzerbox.rules.__file__).parent
#: standard-library modules that would bring I/O, a clock or threads into the core
FORBIDDEN_STDLIB = {
    "asyncio",
    "io",
    "os",
    "pathlib",
    "random",
    "select",
    "socket",
    "sqlite3",
    "subprocess",
    "threading",
    "time",
    "datetime",
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_rules_imports_only_itself_and_the_stdlib() -> None:
    files = sorted(RULES.glob("*.py"))
    assert len(files) >= 8
    for path in files:
        for module in imported_modules(path):
            top = module.split(".")[0]
            if module == "buzzerbox" or module.startswith("buzzerbox."):
                assert module.startswith("buzzerbox.rules") or module == "buzzerbox.errors", (
                    f"{path.name} imports {module}: rules import only buzzerbox.errors of ours"
                )
                continue
            assert top in sys.stdlib_module_names or top == "__future__", (
                f"{path.name} imports {module}, which is not the standard library"
            )
            assert top not in FORBIDDEN_STDLIB, f"{path.name} imports {module}: no I/O or clock"


def test_the_error_root_is_buzzerboxs_and_rules_only_use_it() -> None:
    import buzzerbox.errors
    import buzzerbox.rules.errors

    assert "BuzzerboxError" not in vars(buzzerbox.rules)  # not re-exported by the rules
    assert vars(buzzerbox.rules.errors)["BuzzerboxError"] is buzzerbox.errors.BuzzerboxError
    assert issubclass(buzzerbox.rules.errors.IllegalEventError, buzzerbox.errors.BuzzerboxError)
    assert buzzerbox.errors.BuzzerboxError.__module__ == "buzzerbox.errors"
    # the root imports nothing of ours, and of the standard library nothing with I/O or a clock
    for module in imported_modules(Path(buzzerbox.errors.__file__)):
        top = module.split(".")[0]
        assert top in sys.stdlib_module_names or top == "__future__", module
        assert top not in FORBIDDEN_STDLIB, f"buzzerbox/errors.py imports {module}: no I/O"


def test_importing_rules_loads_no_other_layer() -> None:
    import subprocess

    code = (
        "import sys, buzzerbox.rules; "
        "bad = [m for m in sys.modules if m.startswith(('buzzerbox.pads', 'buzzerbox.web', "
        "'buzzerbox.store', 'flask', 'serial', 'gpiozero', 'sqlite3', 'socket'))]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
