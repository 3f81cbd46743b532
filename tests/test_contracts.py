"""The contracts live in the repository, and nothing points outside it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: paths that would lead out of the repository (spelled in two parts, so this file is clean)
OUTSIDE = re.compile(
    "|".join(re.escape(a + b) for a, b in [("shared", "/spec"), ("/wo", "rk/"), ("../", "shared")])
)
LINK = re.compile(r"\]\(([^)#]+\.md)(?:#[^)]*)?\)")


def tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / line for line in out.stdout.splitlines() if (ROOT / line).is_file()]


def text_files() -> list[Path]:
    return [p for p in tracked() if p.suffix in (".py", ".md", ".toml", ".sh", ".service", "")]


def test_nothing_points_at_a_machine_path_or_the_shared_folder() -> None:
    found = []
    for path in text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
    assert found == []


def test_the_board_protocol_is_in_the_repository_and_every_link_to_it_holds() -> None:
    spec = ROOT / "firmware" / "board-protocol.md"
    assert spec.read_text(encoding="utf-8").startswith("# Board link protocol, version 1")
    assert "v1.1" in spec.read_text(encoding="utf-8")
    pointing = [
        "README.md",
        "firmware/README.md",
        "firmware/padboard/protocol.py",
        "host/buzzerbox/pads/board/protocol.py",
        "host/buzzerbox/pads/README.md",
        "hardware/builds/twist-picos/README.md",
        "hardware/builds/ligretto12/README.md",
        "hardware/builds/twinit-gpio/README.md",
    ]
    for name in pointing:
        assert "board-protocol.md" in (ROOT / name).read_text(encoding="utf-8"), name
    for path in tracked():
        if path.suffix != ".md":
            continue
        for target in LINK.findall(path.read_text(encoding="utf-8")):
            if "board-protocol" in target:
                assert (path.parent / target).resolve() == spec, f"{path}: {target}"


def test_the_package_carries_the_protocol_with_the_firmware() -> None:
    shipped = ROOT / "host" / "buzzerbox" / "firmware"
    assert shipped.is_symlink() and shipped.resolve() == ROOT / "firmware"
    assert (shipped / "board-protocol.md").is_file()
