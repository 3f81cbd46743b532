"""`buzzerbox firmware install [PORT]`: put the pad board firmware on a Pico.

The firmware (firmware/ at the top of the repository: main.py and the padboard
package) is copied with mpremote, which stops the running firmware with Ctrl-C,
copies only the files that changed, and the board is reset to start the new
firmware. `--dry-run` prints the mpremote commands instead of running them.
"""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from buzzerbox.errors import BuzzerboxError

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"
PACKAGE = "padboard"
# One line of MicroPython for `mpremote exec`: make the package folder if it is missing.
MKDIR = f'import os; "{PACKAGE}" in os.listdir() or os.mkdir("{PACKAGE}")'


class FirmwareNotFoundError(BuzzerboxError, FileNotFoundError):
    """The firmware folder is missing or incomplete."""


class MpremoteError(BuzzerboxError, RuntimeError):
    """mpremote is not installed, or one of its commands failed."""


def firmware_files(source: Path) -> tuple[list[Path], Path]:
    """The package's modules and main.py of the firmware in `source`."""
    modules = sorted((source / PACKAGE).glob("*.py"))
    main = source / "main.py"
    if not modules or not main.is_file():
        raise FirmwareNotFoundError(
            f"no firmware in {source}: it needs main.py and {PACKAGE}/*.py "
            f"(pass --source with the repository's firmware/ folder)"
        )
    return modules, main


def install_commands(source: Path, port: str | None, mpremote: list[str]) -> list[list[str]]:
    """The mpremote commands that install the firmware in `source` on the board at `port`."""
    modules, main = firmware_files(source)
    connect = [*mpremote, "connect", port or "auto"]
    return [
        [*connect, "exec", MKDIR],
        [*connect, "fs", "cp", *(str(m) for m in modules), f":{PACKAGE}/"],
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
    source: Path, port: str | None, mpremote: list[str] | None, *, dry_run: bool = False
) -> None:
    """Install (or with `dry_run`, print how to install) the firmware on a board."""
    launcher = mpremote or find_mpremote()
    if launcher is None:
        if not dry_run:
            raise MpremoteError("mpremote is not installed: pip install mpremote")
        launcher = ["mpremote"]
    for command in install_commands(source, port, launcher):
        print(shlex.join(command), flush=True)
        if dry_run:
            continue
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
        install(args.source, args.port, mpremote, dry_run=args.dry_run)
    except FirmwareNotFoundError as e:
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
        help="the Pico's serial port, e.g. /dev/ttyACM0 (default: the first one found)",
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
