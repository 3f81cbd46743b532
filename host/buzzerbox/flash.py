"""`buzzerbox firmware install [PORT] [--layout L]`: put the pad board firmware on a Pico.

The firmware (main.py and the padboard package) ships inside this package as
package data: `buzzerbox/firmware` is a symlink to firmware/ at the top of the
repository, which setuptools follows when it builds the wheel, so an installed box
flashes its boards without a checkout. It is copied with mpremote, which stops the
running firmware with Ctrl-C; the board is then reset to start the new firmware.

A board build picks its layout (which GPIO is which pad and light: pads24 or pads12,
hardware/pico-pinout.md) with `LAYOUT` in padboard/config.py. `--layout` copies a
config.py with that one line set (staged in a temporary folder); the shipped file is
never changed. `--dry-run` prints the mpremote commands instead of running them.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.resources
import importlib.util
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from buzzerbox import picos
from buzzerbox.errors import (
    FirmwareMissingError,
    LayoutError,
    MpremoteError,
    PicoChoiceError,
)

FIRMWARE_DIR = Path(str(importlib.resources.files("buzzerbox") / "firmware")).resolve()
PACKAGE = "padboard"
CONFIG = "config.py"
#: the line of padboard/config.py that picks the layout
LAYOUT_LINE = re.compile(r'^LAYOUT = "([A-Za-z0-9_]+)"$', re.MULTILINE)
# One line of MicroPython for `mpremote exec`: make the package folder if it is missing.
MKDIR = f'import os; "{PACKAGE}" in os.listdir() or os.mkdir("{PACKAGE}")'


def firmware_files(source: Path) -> tuple[list[Path], Path]:
    """The package's modules and main.py of the firmware in `source`."""
    modules = sorted((source / PACKAGE).glob("*.py"))
    main = source / "main.py"
    if not modules or not main.is_file() or not (source / PACKAGE / CONFIG).is_file():
        raise FirmwareMissingError(
            f"no firmware in {source}: it needs main.py and {PACKAGE}/*.py with {CONFIG} "
            f"(pass --source with the repository's firmware/ folder)"
        )
    return modules, main


def layouts(config_text: str) -> tuple[list[str], str]:
    """The layouts a firmware's config.py has (its `LAYOUTS` keys) and the one it picks."""
    names: list[str] = []
    for node in ast.parse(config_text).body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["LAYOUTS"]
            and isinstance(node.value, ast.Dict)
        ):
            names = [
                k.value
                for k in node.value.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            ]
    picked = LAYOUT_LINE.search(config_text)
    if not names or picked is None:
        raise FirmwareMissingError(
            f'the firmware\'s {PACKAGE}/{CONFIG} has no LAYOUTS table or no LAYOUT = "..." line'
        )
    return names, picked.group(1)


def with_layout(config_text: str, layout: str) -> str:
    """config.py's text with `LAYOUT` set to `layout` (LayoutError if it has no such)."""
    names, _ = layouts(config_text)
    if layout not in names:
        raise LayoutError(
            f"layout {layout!r} does not exist: this firmware has {', '.join(names)} "
            "(see hardware/pico-pinout.md)"
        )
    return LAYOUT_LINE.sub(f'LAYOUT = "{layout}"', config_text, count=1)


@contextlib.contextmanager
def staged(source: Path, layout: str | None) -> Iterator[tuple[list[Path], Path]]:
    """The files to copy: the firmware's own, with config.py staged for `layout`."""
    modules, main = firmware_files(source)
    if layout is None:
        yield modules, main
        return
    config = source / PACKAGE / CONFIG
    text = with_layout(config.read_text(encoding="utf-8"), layout)
    with tempfile.TemporaryDirectory(prefix="buzzerbox-firmware-") as folder:
        copy = Path(folder) / CONFIG
        copy.write_text(text, encoding="utf-8")
        yield [copy if m == config else m for m in modules], main


def install_commands(
    source: Path, port: str | None, mpremote: list[str], modules: list[Path] | None = None
) -> list[list[str]]:
    """The mpremote commands that install the firmware in `source` on the board at `port`
    (`modules`: the package's files to copy, if not the ones in `source`)."""
    found, main = firmware_files(source)
    connect = [*mpremote, "connect", port or "auto"]
    return [
        [*connect, "exec", MKDIR],
        [*connect, "fs", "cp", *(str(m) for m in modules or found), f":{PACKAGE}/"],
        [*connect, "fs", "cp", str(main), ":main.py"],
        [*connect, "reset"],
    ]


def find_mpremote() -> list[str] | None:
    """How to run mpremote here: its script, or this Python's module; None if neither."""
    if shutil.which("mpremote"):
        return ["mpremote"]
    if importlib.util.find_spec("mpremote") is not None:
        return [sys.executable, "-m", "mpremote"]
    return None


def install(
    source: Path,
    port: str | None,
    mpremote: list[str] | None,
    *,
    layout: str | None = None,
    dry_run: bool = False,
    comports: picos.Comports | None = None,
) -> None:
    """Install (or with `dry_run`, print how to install) the firmware on a board: the
    one at `port`, else the one Pico plugged in (PicoChoiceError if several)."""
    if port is None:
        port = picos.the_one_pico(comports or picos.system_comports)
    launcher = mpremote or find_mpremote()
    if launcher is None:
        if not dry_run:
            raise MpremoteError("mpremote is not installed: pip install 'buzzerbox[pi]'")
        launcher = ["mpremote"]
    with staged(source, layout) as (modules, _):
        config_text = next(m for m in modules if m.name == CONFIG).read_text(encoding="utf-8")
        print(f"firmware {source}, layout {layouts(config_text)[1]}:", file=sys.stderr)
        for command in install_commands(source, port, launcher, modules):
            print(shlex.join(command), flush=True)
            if not dry_run:
                _run(command)


def _run(command: list[str]) -> None:
    try:
        done = subprocess.run(command, check=False)
    except OSError as e:
        raise MpremoteError(f"mpremote could not be started ({command[0]}): {e}") from e
    if done.returncode != 0:
        raise MpremoteError(
            f"mpremote failed with exit code {done.returncode}: {shlex.join(command)}"
        )


def _install(args: argparse.Namespace) -> int:
    mpremote = shlex.split(args.mpremote) if args.mpremote else None
    try:
        install(args.source, args.port, mpremote, layout=args.layout, dry_run=args.dry_run)
    except (FirmwareMissingError, LayoutError, PicoChoiceError) as e:
        print(f"buzzerbox firmware install: {e}", file=sys.stderr)
        return 2
    except MpremoteError as e:
        print(f"buzzerbox firmware install: {e}", file=sys.stderr)
        return 1
    return 0


def add_commands(sub: argparse._SubParsersAction[Any]) -> None:
    """Add `buzzerbox firmware ...` to the `buzzerbox` parser."""
    firmware = sub.add_parser(
        "firmware",
        help="the pad boards' firmware (MicroPython on a Raspberry Pi Pico)",
        description="The pad boards' firmware: MicroPython for a Raspberry Pi Pico.",
    )
    actions = firmware.add_subparsers(dest="firmware_action", metavar="ACTION")
    firmware.set_defaults(func=lambda _: _usage(firmware))
    inst = actions.add_parser(
        "install",
        help="copy the firmware to a Pico with mpremote and restart it",
        description=(
            "Copy the pad board firmware to a Pico running MicroPython (with mpremote) "
            "and reset it. Also updates a board: only changed files are copied."
        ),
    )
    inst.add_argument(
        "port",
        nargs="?",
        help="the Pico's serial port, e.g. /dev/ttyACM0 (default: the one Pico plugged "
        "in; refused when there are several)",
    )
    inst.add_argument(
        "--layout",
        help=(
            "the board's pin layout, pads24 (24 pads, 2 lights) or pads12 (12 pads, each "
            "with its light): see hardware/pico-pinout.md (default: the firmware's, pads24)"
        ),
    )
    inst.add_argument(
        "--dry-run",
        action="store_true",
        help="print the mpremote commands instead of running them",
    )
    inst.add_argument(
        "--source",
        type=Path,
        default=FIRMWARE_DIR,
        help=f"the firmware folder (default: {FIRMWARE_DIR})",
    )
    inst.add_argument(
        "--mpremote",
        metavar="COMMAND",
        help="how to run mpremote (default: mpremote on the PATH, or python -m mpremote)",
    )
    inst.set_defaults(func=_install)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2
