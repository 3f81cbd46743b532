"""The pile pad's seat zone closes under a resting hand and not under cards, by the
numbers of hardware/zone.toml (the parts list's), at every corner of their ranges.

A model (appliance/zone.py), not a measurement: nothing has been built.
"""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import pytest
from buzzerbox.appliance import zone
from buzzerbox.cli import main

ROOT = Path(__file__).resolve().parents[2]
ZONE = ROOT / "hardware" / "zone.toml"
HAND_MARGIN = 1.25
"""The lightest resting hand's share on the slot (1 N) is at least this many times the
most any zone built from the parts list needs."""


@pytest.fixture
def design() -> zone.Zone:
    return zone.load_zone(ZONE)


def test_a_resting_hand_closes_every_zone_the_parts_list_allows(design: zone.Zone) -> None:
    c = zone.closing(design)
    assert c.heel_n[1] * HAND_MARGIN <= design.hand_n[0] * design.hand_share, c
    assert c.hand_margin >= HAND_MARGIN


def test_a_stack_of_cards_closes_none(design: zone.Zone) -> None:
    c = zone.closing(design)
    assert c.kpa[0] > design.cards_kpa, c
    assert c.cards_margin > 1.0


def test_the_zone_before_issue_42_fails_the_same_test(design: zone.Zone) -> None:
    old = zone.closing(zone.the_old_zone(design))
    assert old.heel_n[0] > design.hand_n[1], old  # even its softest needs more than 5 N
    assert old.hand_margin < 0.2


def test_each_part_of_the_gap_moves_the_force_the_right_way(design: zone.Zone) -> None:
    base = zone.closing(design).kpa[1]
    assert zone.closing(replace(design, spacer_layers=3)).kpa[1] > 2 * base  # gap³
    assert zone.closing(replace(design, slot_width=22.0)).kpa[1] > base  # narrower
    assert zone.closing(replace(design, strip_width=16.0)).kpa[1] > 4 * base  # stiff strip
    assert zone.closing(replace(design, copper_layer=False)).kpa[0] < base / 10  # thin gap
    assert zone.closing_kpa(28, 5, 0.1, 4.0, 0.38, 0.0) == 0.0


def test_with_no_strip_the_model_is_the_classic_clamped_strip() -> None:
    w, t, e, nu, g = 22e-3, 0.1e-3, 4e9, 0.38, 0.36e-3
    ep = e / (1 - nu * nu)
    classic = (64 / 3) * ep * t * g**3 / w**4 + 384 * (ep * t**3 / 12) * g / w**4
    assert zone.closing_kpa(22, 0, 0.1, 4.0, nu, 0.36) == pytest.approx(classic / 1e3)
    assert classic / 1e3 == pytest.approx(2.2, abs=0.1)  # pads.md's old bare-film figure


def test_the_parts_list_and_pads_md_quote_the_model(design: zone.Zone) -> None:
    with open(ROOT / "hardware/builds/twist-picos/parts.csv", encoding="utf-8") as f:
        rows = {r["item"]: r for r in csv.DictReader(f)}
    tape = " ".join(rows["tape"].values())
    assert f"{design.slot_width:g} × {design.slot_length:g} mm slot" in tape
    assert f"{design.strip_width:g} mm" in tape
    frame = f"{design.frame[0]:g} × {design.frame[1]:g} mm"
    assert frame in rows["tape"]["example"] and frame in rows["pet"]["note"]
    assert f"{design.strip_width:g} mm" in rows["copper"]["note"]
    pads_md = (ROOT / "hardware/pads.md").read_text(encoding="utf-8")
    c = zone.closing(design)
    assert f"{c.kpa[0]:.2f}–{c.kpa[1]:.2f} kPa" in pads_md
    assert f"{c.heel_n[0]:.2f}–{c.heel_n[1]:.2f} N" in pads_md
    assert f"{c.gap_mm[0]:.2f}–{c.gap_mm[1]:.2f} mm" in pads_md
    assert f"{design.slot_width:g} × {design.slot_length:g} mm" in pads_md


def test_the_command_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hardware", "zone", str(ZONE)]) == 0
    out = capsys.readouterr().out
    assert "closes at 0." in out and "× the most the zone needs" in out
