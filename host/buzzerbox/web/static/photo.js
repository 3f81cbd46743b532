// The photo finish: every press of the last race with its lead over the first,
// later presses (late, after the call) and false starts (before the go).
import { dot, fill, h, lead, linked, ownName, seatClass, span } from "./dom.js";
import { t } from "./i18n.js";
import { decidedBy, errorOf, marginWords, tooClose } from "./closecall.js";

const PAD_NAMES = { stop: t("stop"), slap: t("slap"), pile: t("pile") };

/** The presses to show, first first: [{seat, name, pad, t_us, lead_us, kind}]. */
export function presses(state) {
  const out = [];
  const claim = state.claim;
  if (claim && claim.slaps && claim.slaps.length) {
    claim.slaps.forEach((p, i) =>
      out.push({ ...p, seat: seatOf(state, p), pad: "slap", kind: i ? "race" : "first" }),
    );
  } else {
    (state.race || []).forEach((p, i) => out.push({ ...p, kind: i ? "race" : "first" }));
  }
  const first = out.length ? out[0].t_us : null;
  for (const p of state.late || []) {
    const leadUs = p.lead_us ?? (first !== null ? p.t_us - first : null);
    out.push({ ...p, lead_us: leadUs, kind: "late" });
  }
  out.sort((a, b) => (a.kind === "first" ? -1 : b.kind === "first" ? 1 : (a.lead_us ?? 0) - (b.lead_us ?? 0)));
  return out;
}

function seatOf(state, p) {
  if (p.seat !== undefined) return p.seat;
  return (state.players || []).findIndex((q) => q.name === p.name);
}

function falseStarts(state) {
  const go = state.go_t_us;
  return (state.false_starts || []).map((p) => ({
    ...p,
    before_us: go !== null && go !== undefined && p.t_us <= go ? go - p.t_us : null,
  }));
}

function headline(state, list) {
  if (!list.length) return null;
  const first = list[0];
  const runner = list.find((p) => p !== first && p.lead_us !== null);
  const close = runner && tooClose(first, runner);
  return h(
    "div",
    { class: `photo-winner ${seatClass(first.seat)}`, "data-testid": "photo-first" },
    h("span", { class: "photo-flag", "aria-hidden": "true" }, "1"),
    h(
      "div",
      {},
      h("strong", { class: "photo-name" }, first.name),
      " ",
      h(
        "span",
        { class: "muted" },
        close
          ? t("was first by the clock")
          : first.pad === "slap"
          ? runner
            ? t("slapped first: the lower hand")
            : t("slapped first")
          : first.pad === "pile"
            ? t("was first on a pile")
            : t("was first on stop"),
      ),
      runner ? h("div", { class: "photo-margin fit", "data-testid": "photo-margin", "data-close": close ? "1" : "0" }, marginWords(first, runner)) : null,
      close ? h("div", { class: "photo-decided muted small", "data-testid": "photo-decided" }, decidedBy(state)) : null,
    ),
  );
}

/** The tracks' scale: from the earliest to the latest moment any shown press may have
 * been (its lead less and plus its error), so that a 0.2 ms gap between two presses
 * timed to ±0.9 ms is drawn as what it is, two overlapping bars, not across the width. */
function scale(list) {
  const lo = Math.min(0, ...list.map((p) => (p.lead_us || 0) - errorOf(p)));
  const hi = Math.max(0, ...list.map((p) => (p.lead_us || 0) + errorOf(p)));
  return { lo, span: hi - lo, errors: list.some((p) => errorOf(p) > 0) };
}

/** A track per press: the finish line at the first press, each mark placed by its lead,
 * with its error bar (± error_us) where it has one. */
function track(p, sc) {
  const at = (us) => (sc.span ? (us - sc.lo) / sc.span : 0);
  let frac = p.kind === "first" ? at(0) : at(p.lead_us || 0);
  if (!sc.errors && p.kind !== "first" && sc.span) frac = Math.max(0.03, frac); // a gap shows
  const place = (f, px) => `calc(${(f * 100).toFixed(2)}% - ${(f * px).toFixed(1)}px)`;
  const mark = h("span", { class: "mark" });
  // the mark's left edge runs from 0 to 100% less its own width: it stays on the track
  mark.style.left = place(frac, 14);
  const track = h("span", { class: "track", "aria-hidden": "true" }, h("span", { class: "line" }));
  track.style.setProperty("--finish", place(at(0), 3));
  const err = errorOf(p);
  if (err) {
    const from = at((p.kind === "first" ? 0 : p.lead_us || 0) - err);
    const bar = h("span", { class: "error-bar", "data-testid": "error-bar" });
    bar.style.left = `${(from * 100).toFixed(2)}%`;
    bar.style.width = `${((at(err) - at(0)) * 200).toFixed(2)}%`;
    track.append(bar);
  }
  track.append(mark);
  return track;
}

/** How the presses were timed, where some were not by a wired pad's µs: phones and
 * the virtual pads, at the touch or the key, to the ms. */
function timingNote(state) {
  const phones = Boolean(state.box?.phones?.on);
  const virtual = Boolean(state.box?.simulated);
  if (!phones && !virtual) return null;
  let text = t("Phone presses are timed to the ms, wired pads to the µs.");
  if (virtual) {
    text = phones
      ? t("Virtual pads and phones are timed to the ms, at the key or the touch.")
      : t("Virtual pads are timed to the ms, at the key or the tap.");
  }
  return h("p", { class: "muted small", "data-testid": "phone-timing" }, text);
}

/** The photo finish in `el`: at most `most` presses (compact: 4) and `mostFalse` false
 * starts, the rest counted ("and 6 more"). */
export function renderPhoto(el, state, { compact = false, most = compact ? 4 : Infinity, mostFalse = Infinity } = {}) {
  const list = presses(state);
  const fouls = falseStarts(state);
  if (!state.game) {
    fill(el, h("p", { class: "muted placeholder" }, t("No game yet.")));
    return;
  }
  if (!list.length && !fouls.length) {
    const waiting =
      state.phase === "playing" ? t("The round is on: the first press ends up here.") : t("No race yet in this round.");
    fill(el, h("p", { class: "muted placeholder", "data-testid": "photo-empty" }, waiting));
    return;
  }
  const shown = list.slice(0, Math.max(1, most));
  const sc = scale(shown);
  const foulsShown = fouls.slice(0, mostFalse);
  fill(
    el,
    headline(state, list) || h("p", { class: "muted" }, t("No press since the go yet.")),
    shown.length
      ? h(
          "ol",
          { class: "presses", "data-testid": "presses" },
          shown.map((p, i) =>
            h(
              "li",
              {
                class: `press ${seatClass(p.seat)} ${p.kind}`,
                "data-testid": `press-${i}`,
                "data-kind": p.kind,
              },
              h("span", { class: "rank" }, String(i + 1)),
              dot(p.seat),
              h(
                "span",
                { class: "who" },
                h("span", { class: "name" }, p.name),
                h(
                  "span",
                  { class: "pad-name muted small" },
                  p.pile !== undefined && p.pile !== null ? t("pile {pile}", { pile: p.pile + 1 }) : ownName(PAD_NAMES, p.pad, p.pad),
                  p.kind === "late" ? " · " + t("after the call") : "",
                  // its timing error, beside its bar: the lead itself stays one figure
                  errorOf(p) ? h("span", { class: "nowrap", "data-testid": `error-${i}` }, ` · ±${lead(errorOf(p)).slice(1)}`) : null,
                ),
              ),
              h(
                "span",
                { class: "lead", "data-testid": `lead-${i}` },
                p.kind === "first" ? t("first") : lead(p.lead_us),
              ),
              track(p, sc),
            ),
          ),
        )
      : null,
    timingNote(state),
    list.length > shown.length ? h("p", { class: "muted small", "data-testid": "presses-more" }, t("and {n} more", { n: list.length - shown.length })) : null,
    fouls.length
      ? h(
          "div",
          { class: "false-starts", "data-testid": "false-starts" },
          h("h3", {}, t("False starts")),
          h(
            "ul",
            {},
            foulsShown.map((p, i) =>
              h(
                "li",
                { class: `press false ${seatClass(p.seat)}`, "data-testid": `false-start-${i}` },
                dot(p.seat),
                h("span", { class: "who" }, h("span", { class: "name" }, p.name), h("span", { class: "badge bad fit" }, t("false start"))),
                h(
                  "span",
                  { class: "lead muted" },
                  p.before_us !== null ? linked(t("{time} early"), { time: h("span", { class: "nowrap" }, span(p.before_us)) }) : t("before the go"),
                ),
              ),
            ),
          ),
          fouls.length > foulsShown.length
            ? h("p", { class: "muted small", "data-testid": "false-starts-more" }, t("and {n} more", { n: fouls.length - foulsShown.length }))
            : null,
        )
      : null,
  );
}
