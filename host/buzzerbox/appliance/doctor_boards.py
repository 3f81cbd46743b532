"""`buzzerbox doctor`'s report of one pad board, in words (doctor.py's section 3).

From a `BoardReport` (boardprobe.py): its HELLO and whether it fits the pad map, the SYNC
round trips and the spread of its clock offset, the sync wire's pulses, and how the
box will map its clock (by the sync wire, or by SYNC round trips and why).
"""

from __future__ import annotations

from buzzerbox.appliance import pinout
from buzzerbox.appliance.boardprobe import BoardReport, spread
from buzzerbox.pads.padmap import PadMap


def board_lines(r: BoardReport, pad_map: PadMap | None) -> list[str]:
    """The report of one board, as lines for a person."""
    lines = [f"board at {r.url}"]
    h = r.hello
    if h is None:
        lines.append("  no HELLO: is it a pad board with the buzzerbox firmware? (or in use)")
        lines += [f"  {e}" for e in r.errors]
        return lines
    layout = pinout.pico_layout(h.channels)
    known = ""
    if pad_map is not None:
        spec = pad_map.board(h.board_id)
        known = (
            f", in the pad map as {spec.name}"
            if spec
            else f', NOT in the pad map (give its [[board]] id = "{h.board_id}")'
        )
    lines.append(
        f"  HELLO: id {h.board_id}, protocol {h.proto}, firmware {h.fw_version}, clock "
        f"{h.tick_hz} Hz, {h.channels} channels"
        + (f" (layout {layout.name})" if layout else "")
        + known
    )
    problem = pad_map.channels_problem(h.board_id, h.channels) if pad_map else None
    if problem:
        lines.append(f"  WARNING: {problem}")
    rtt = r.rtt_summary()
    if rtt is None:
        lines.append("  SYNC: no answer")
    else:
        lo, med, hi = rtt
        lines.append(
            f"  SYNC: {len(r.trips)} round trips, {lo / 1000:.2f} / {med / 1000:.2f} / "
            f"{hi / 1000:.2f} ms (min / median / max)"
        )
        cm = r.clock_map()
        lines.append(
            f"  clock offset: spread {spread(r.residuals_us()):.0f} µs over all trips, "
            f"{spread(r.residuals_us(fastest=True)):.0f} µs over the fastest half; "
            f"drift {cm.drift_ppm:+.1f} ppm"
        )
    if r.wire is not None:
        lines.append(wire_line(r))
    if pad_map is not None and pad_map.board(h.board_id) is not None:
        lines.append(clock_line(r, pad_map))
    if r.bad_frames:
        lines.append(f"  {r.bad_frames} bad frames dropped (noise on the line?)")
    lines += [f"  {e}" for e in r.errors]
    return lines


def wire_line(r: BoardReport) -> str:
    wire = r.wire
    assert wire is not None
    if not wire.samples:
        return (
            f"  sync wire: no pulse seen on ch {r.sync_ch} (wired to GP? see hardware/sync-wire.md)"
        )
    usb = r.clock_map()
    wired = wire.clock_map()
    resid = [s.pulse.mid_us - wired.to_host(s.board_t) for s in wire.samples]
    errs = [usb.to_host(s.board_t) - s.pulse.mid_us for s in wire.samples] if usb.is_mapped else []
    bracket = max(s.pulse.t1_us - s.pulse.t0_us for s in wire.samples)
    text = (
        f"  sync wire: {len(wire.samples)} pulses on ch {r.sync_ch}, offset spread "
        f"{spread(resid):.0f} µs (host write within {bracket} µs)"
    )
    if errs:
        text += f"; the USB mapping is off by {max(abs(e) for e in errs):.0f} µs at most"
    return text


def clock_line(r: BoardReport, pad_map: PadMap) -> str:
    """How the box will map this board's clock: by its sync wire, or by SYNC round trips."""
    assert r.hello is not None
    spec = pad_map.board(r.hello.board_id)
    if spec is None or spec.sync is None:
        return (
            "  clock in the box: SYNC round trips (the pad map names no sync channel for "
            "it: sync = CH in its [[board]])"
        )
    if r.wire is not None and len(r.wire.samples) >= 2:
        return f"  clock in the box: the sync wire ({len(r.wire.samples)} pulses on ch {spec.sync})"
    if r.wire is None and r.sync_edges >= 2:
        return (
            f"  clock in the box: the sync wire, lined up by common pulses ({r.sync_edges} "
            f"pulses on ch {spec.sync} from a pulser the host does not drive)"
        )
    return (
        f"  clock in the box: SYNC round trips, for now: no pulse on its sync channel "
        f"ch {spec.sync} (wired? see hardware/sync-wire.md)"
    )
