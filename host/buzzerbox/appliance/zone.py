"""The pile pad's seat zone: the force that closes it, from its parts' numbers. PURE.

A zone (hardware/pads.md) is a film held over a slot in a spacer frame, a narrow
copper strip on its underside, a copper sheet on the base under it. A hand's weight
presses the film down across the gap until the strip touches the base. The model
treats the slot as long (its length is three times its width), so a cut across it
is what matters, and each of the two bare margins of film beside the strip

- stretches as a membrane: tension H, loaded by the pressure on it and by half the
  pressure on the strip, which it holds at its inner edge. Then
  ``H y'' = -p``, ``y(0) = 0`` at the rail, ``y(a) = g`` and ``H y'(a) = p b / 2`` at
  the strip, so ``p / H = 2 g / (a (a + b))``; the margin's mean strain is
  ``(p / H)² ((a + b/2)³ - (b/2)³) / (6 a)`` and ``H = E t ε / (1 - ν²)``;
- bends as a plate strip clamped at the rail and guided at the strip:
  ``g = p a³ (a + b) / (24 D)``, ``D = E t³ / (12 (1 - ν²))``;

and the two pressures add. The strip is taken as rigid (copper foil tape is some
ten times stiffer in tension than 0.1 mm PET), which can only raise the figure.
With no strip (b = 0) the two formulas are the classic ones for a clamped strip:
``(64/3) E t g³ / ((1 - ν²) w⁴)`` and ``384 D g / w⁴``.

Not modelled: the cover's stiffness (a thin cloth or felt only, pads.md), a film
glued on with tension in it, wrinkles. The one-zone test of pads.md measures what
the model cannot.
"""

from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

Range = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Zone:
    """One zone's design (hardware/zone.toml): lengths in mm, the modulus in GPa."""

    slot_width: float
    slot_length: float
    frame: tuple[float, float]
    """The frame's outline, the whole zone: (across, along) the pad's edge."""
    film_t: Range
    youngs: Range
    poisson: float
    spacer_layers: int
    spacer_layer: Range
    glue: Range
    strip_width: float
    strip_t: Range
    glue_joints: int = 0
    copper_layer: bool = False
    """The frame's first layer is cut from the strip's own roll: it raises the frame
    by what the strip lowers the film, but for `same_roll`."""
    same_roll: float = 0.0
    bottom_t: Range = (0.0, 0.0)
    """The base conductor's thickness, where it does not also lie under the frame."""
    hand_n: Range = (2.0, 5.0)
    hand_share: float = 0.5
    heel_length: float = 40.0
    cards_kpa: float = 0.14

    @property
    def gap(self) -> Range:
        """The air gap between the strip and the base, mm: (smallest, largest)."""
        n, j = self.spacer_layers, self.glue_joints
        lo = n * self.spacer_layer[0] + j * self.glue[0] - self.bottom_t[1]
        hi = n * self.spacer_layer[1] + j * self.glue[1] - self.bottom_t[0]
        if self.copper_layer:
            return (lo - self.same_roll, hi + self.same_roll)
        return (lo - self.strip_t[1], hi - self.strip_t[0])

    @property
    def heel_area_mm2(self) -> float:
        """The slot a hand's heel covers: its whole width, `heel_length` of it."""
        return self.slot_width * self.heel_length

    @property
    def force_limit_n(self) -> float:
        """The most a zone may need: the lightest resting hand's share on the slot."""
        return self.hand_n[0] * self.hand_share


@dataclass(frozen=True, slots=True)
class Closing:
    """What closes a zone, over every corner of its ranges."""

    gap_mm: Range
    kpa: Range
    heel_n: Range
    """The force on `heel_area_mm2` at the lowest and the highest closing pressure."""
    limit_n: float
    cards_kpa: float

    @property
    def hand_margin(self) -> float:
        """How many times the closing force the lightest resting hand's share is."""
        return self.limit_n / self.heel_n[1]

    @property
    def cards_margin(self) -> float:
        """How many times the cards' pressure the lowest closing pressure is."""
        return self.kpa[0] / self.cards_kpa


def closing_kpa(
    slot_mm: float, strip_mm: float, film_mm: float, youngs_gpa: float, nu: float, gap_mm: float
) -> float:
    """The pressure (kPa) that brings the strip down by `gap_mm` (module docstring)."""
    if gap_mm <= 0:
        return 0.0
    w, b, t, g = slot_mm * 1e-3, strip_mm * 1e-3, film_mm * 1e-3, gap_mm * 1e-3
    e_plane = youngs_gpa * 1e9 / (1 - nu * nu)
    a = (w - b) / 2
    k = 2 * g / (a * (a + b))  # p / H
    strain = k * k * ((a + b / 2) ** 3 - (b / 2) ** 3) / (6 * a)
    stretch = k * e_plane * t * strain
    d = e_plane * t**3 / 12
    bend = 24 * d * g / (a**3 * (a + b))
    return (stretch + bend) / 1e3


def closing(zone: Zone) -> Closing:
    """The closing pressure and force at every corner of the zone's ranges."""
    gaps = zone.gap
    kpas = [
        closing_kpa(zone.slot_width, zone.strip_width, t, e, zone.poisson, g)
        for t, e, g in itertools.product(zone.film_t, zone.youngs, gaps)
    ]
    lo, hi = min(kpas), max(kpas)
    area = zone.heel_area_mm2 * 1e-6
    return Closing(gaps, (lo, hi), (lo * 1e3 * area, hi * 1e3 * area), zone.force_limit_n,
                   zone.cards_kpa)  # fmt: skip


def _range(value: object) -> Range:
    if isinstance(value, list) and len(value) == 2:
        return (float(value[0]), float(value[1]))
    if isinstance(value, int | float):
        return (float(value), float(value))
    raise ValueError(f"{value!r} is not a number or a [low, high] pair")


def load_zone(path: str | Path) -> Zone:
    """The zone described by a zone.toml (hardware/zone.toml)."""
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    slot, film, spacer = data["slot"], data["film"], data["spacer"]
    strip, bottom, load = data["top_strip"], data.get("bottom", {}), data.get("load", {})
    under_frame = bool(bottom.get("covers_frame", True))
    return Zone(
        slot_width=float(slot["width_mm"]),
        slot_length=float(slot["length_mm"]),
        frame=_range(slot["frame_mm"]),
        film_t=_range(film["thickness_mm"]),
        youngs=_range(film["youngs_gpa"]),
        poisson=float(film["poisson"]),
        spacer_layers=int(spacer["layers"]),
        spacer_layer=_range(spacer["layer_mm"]),
        glue=_range(spacer.get("glue_mm", 0.0)),
        glue_joints=int(spacer.get("glue_joints", 0)),
        copper_layer=bool(spacer.get("copper_layer", False)),
        same_roll=float(spacer.get("same_roll_mm", 0.0)),
        strip_width=float(strip["width_mm"]),
        strip_t=_range(strip["thickness_mm"]),
        bottom_t=(0.0, 0.0) if under_frame else _range(bottom["thickness_mm"]),
        hand_n=_range(load.get("hand_n", [2.0, 5.0])),
        hand_share=float(load.get("hand_share", 0.5)),
        heel_length=float(load.get("heel_length_mm", 40.0)),
        cards_kpa=float(load.get("cards_kpa", 0.14)),
    )


def the_old_zone(zone: Zone) -> Zone:
    """The zone pads.md described before issue 42: a 22 mm slot in one 0.5 mm card
    (0.35-0.45 mm as bought), a 16 mm copper strip on the film, a 16 mm strip on
    the base inside the slot."""
    return replace(
        zone,
        slot_width=22.0,
        spacer_layers=1,
        spacer_layer=(0.35, 0.5),
        glue=(0.0, 0.0),
        glue_joints=0,
        copper_layer=False,
        strip_width=16.0,
        strip_t=(0.06, 0.09),
        bottom_t=(0.06, 0.09),
    )


def report(zone: Zone) -> list[str]:
    """`buzzerbox hardware zone`: the figures pads.md quotes, one per line."""
    c = closing(zone)
    return [
        f"slot {zone.slot_width:g} × {zone.slot_length:g} mm, strip {zone.strip_width:g} mm, "
        f"spacer {'copper tape + ' if zone.copper_layer else ''}{zone.spacer_layers} × "
        f"{zone.spacer_layer[0]:g}–{zone.spacer_layer[1]:g} mm",
        f"gap {c.gap_mm[0]:.2f}–{c.gap_mm[1]:.2f} mm",
        f"closes at {c.kpa[0]:.2f}–{c.kpa[1]:.2f} kPa",
        f"over {zone.slot_width:g} × {zone.heel_length:g} mm of slot: "
        f"{c.heel_n[0]:.2f}–{c.heel_n[1]:.2f} N ({c.heel_n[0] / 9.81 * 1e3:.0f}–"
        f"{c.heel_n[1] / 9.81 * 1e3:.0f} g)",
        f"a resting hand's share: at least {c.limit_n:g} N: {c.hand_margin:.1f} × the most "
        "the zone needs",
        f"cards: {c.cards_kpa:g} kPa: the least the zone needs is {c.cards_margin:.1f} × that",
    ]
