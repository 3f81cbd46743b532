"""The schematic tests' kicad-cli (kicadroot.py: KiCad 9 in a Trixie root of its own)."""

from __future__ import annotations

import pytest

from .kicadroot import KicadCli, kicad_root


@pytest.fixture(scope="session")
def kicad_cli() -> KicadCli:
    """kicad-cli, its root built if it is not in the cache (some minutes)."""
    return KicadCli(kicad_root())
