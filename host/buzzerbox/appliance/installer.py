"""`buzzerbox install`: run the packaged install.sh with what this box was installed from.

The shell script does the work (it must also run on a fresh Pi where buzzerbox is
not installed yet); this module only finds the script, the unit beside it and
the source pip should install into the appliance's venv:

- a checkout (an editable install, `pip install -e .`): its root folder;
- the clone install.sh installed the appliance from: it notes it in the file
  `source` beside the venv (/opt/buzzerbox/source), since pip itself only saw
  a copy of it;
- a local wheel or folder pip recorded (PEP 610 `direct_url.json`): that path;
- otherwise the same version from the package index: ``buzzerbox==X.Y.Z``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from importlib import metadata, resources
from pathlib import Path
from urllib.parse import unquote, urlparse

from buzzerbox import __version__
from buzzerbox.appliance.errors import PackageFileMissingError

SCRIPT = "install.sh"
UNIT = "buzzerbox.service"


def packaged(name: str) -> Path:
    """A file shipped in `buzzerbox.appliance` (install.sh, buzzerbox.service)."""
    path = Path(str(resources.files("buzzerbox.appliance").joinpath(name)))
    if not path.is_file():
        raise PackageFileMissingError(f"{name} is missing from the installed package at {path}")
    return path


def checkout_root(package_dir: Path) -> Path | None:
    """The repository root if `package_dir` (host/buzzerbox) sits in a checkout."""
    root = package_dir.parent.parent
    if (root / "pyproject.toml").is_file() and package_dir.parent.name == "host":
        return root
    return None


def recorded_source(dist: metadata.Distribution | None) -> str | None:
    """The local path pip installed `dist` from, if it recorded one (PEP 610)."""
    if dist is None:
        return None
    text = dist.read_text("direct_url.json")
    if not text:
        return None
    try:
        url = json.loads(text).get("url", "")
    except (ValueError, AttributeError):
        return None
    parsed = urlparse(str(url))
    if parsed.scheme != "file":
        return None
    path = Path(unquote(parsed.path))
    return str(path) if path.exists() else None


def noted_source(venv: Path) -> str | None:
    """The clone install.sh noted in `venv`/../source, if it is still there."""
    try:
        text = (venv.parent / "source").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if text and Path(text).is_dir() else None


def find_source(package_dir: Path | None = None, venv: Path | None = None) -> str:
    """What the appliance's venv should install: see the module doc."""
    if package_dir is None:
        import buzzerbox

        package_dir = Path(buzzerbox.__file__).resolve().parent
    root = checkout_root(package_dir)
    if root is not None:
        return str(root)
    noted = noted_source(venv or Path(sys.prefix))
    if noted is not None:
        return noted
    try:
        dist: metadata.Distribution | None = metadata.distribution("buzzerbox")
    except metadata.PackageNotFoundError:
        dist = None
    return recorded_source(dist) or f"buzzerbox=={__version__}"


def script_command(options: Sequence[str], source: str | None = None) -> list[str]:
    """The command that runs the packaged install.sh with `options`."""
    cmd = ["bash", str(packaged(SCRIPT))]
    if "--source" not in options:
        cmd += ["--source", source or find_source()]
    return cmd + list(options)


def run_install(options: Sequence[str], source: str | None = None) -> int:
    """Run install.sh; its output goes straight to this terminal. Returns its exit code."""
    cmd = script_command(options, source)
    try:
        return subprocess.run(cmd, check=False).returncode
    except OSError as exc:
        print(f"buzzerbox install: cannot run {cmd[0]}: {exc}", file=sys.stderr)
        return 1
