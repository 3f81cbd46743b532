// The pad test: every pad edge as it reaches the box (pad id, role, seat, time), so a
// builder presses each pad in turn and sees it on the phone. On a box with real pads
// a tile per pad lights while the pad is held. The box keeps the last edges in the
// state (box.pad_test, oldest first), real and virtual alike.
import { dot, fill, h, ownName, seatClass, span } from "./dom.js";
import { lang, t } from "./i18n.js";

const ROLES = { stop: t("stop"), slap: t("slap"), pile: t("pile") };

const NOTE_KIND = [
  [/^enrolled/, "ok"],
  [/^refused|^not /, "bad"],
];

function roleText(e) {
  if (e.role === "pile" && e.pile !== null && e.pile !== undefined) return t("pile {pile}", { pile: e.pile + 1 });
  return e.role ? ownName(ROLES, e.role, e.role) : t("unknown pad");
}

function seatName(state, seat) {
  if (seat === null || seat === undefined) return t("no seat");
  const p = (state.players || [])[seat];
  return p ? p.name : t("seat {seat}", { seat: seat + 1 });
}

/** The pads held now: those whose last edge kept is a press. */
function heldPads(edges) {
  const held = new Set();
  for (const e of edges) {
    if (e.edge === "press") held.add(e.pad);
    else held.delete(e.pad);
  }
  return held;
}

/** µs with thin spaces between thousands: 12 345 678 µs. */
const micros = (us) => `${String(us).replace(/\B(?=(\d{3})+(?!\d))/g, "\u2009")} µs`;

/** An edge's note in the page's language: the box says it in each (note_said), in English as `note`. */
const noteText = (e) => (e.note_said && e.note_said[lang]) || e.note;

function edgeRow(state, e, before, raw) {
  const kind = NOTE_KIND.find(([re]) => re.test(e.note || ""));
  const seat = e.seat ?? null;
  return h(
    "li",
    {
      class: `edge ${seat === null ? "" : seatClass(seat)} ${e.edge}`,
      "data-testid": `pad-edge-${e.n}`,
      "data-pad": e.pad,
      "data-edge": e.edge,
    },
    h("span", { class: "edge-kind", title: e.edge === "press" ? t("press") : t("release") }, e.edge === "press" ? "▼" : "▲"),
    h(
      "span",
      { class: "edge-who" },
      raw ? h("code", { class: "edge-pad" }, e.pad) : null,
      h("span", { class: "edge-what" }, seat === null ? null : dot(seat), h("span", { class: "fit" }, `${roleText(e)} · ${seatName(state, seat)}`)),
    ),
    h(
      "span",
      { class: "edge-t" },
      raw ? h("span", {}, micros(e.t_us)) : null,
      before ? h("span", { class: raw ? "muted small" : "" }, `+${span(e.t_us - before.t_us)}`) : null,
    ),
    e.note ? h("span", { class: `edge-note badge ${kind ? kind[1] : ""}`, "data-testid": `pad-edge-note-${e.n}` }, noteText(e)) : null,
  );
}

function tiles(state, held, newest) {
  const pads = (state.box && state.box.pads) || [];
  if (!pads.length) return h("p", { class: "muted small" }, t("The pad map names no pads."));
  return h(
    "ul",
    { class: "pad-tiles", "data-testid": "pad-tiles" },
    pads.map((pad) =>
      h(
        "li",
        {
          class: `pad-tile ${seatClass(pad.seat)}${held.has(pad.id) ? " held" : ""}${newest === pad.id ? " flash" : ""}`,
          "data-testid": `pad-tile-${pad.id}`,
          "data-held": held.has(pad.id) ? "true" : "false",
        },
        h("code", {}, pad.id),
        h("span", { class: "small" }, `${roleText(pad)} · ${seatName(state, pad.seat)}`),
      ),
    ),
  );
}

const WIRE_TEXT = { waiting: t("waiting for a pulse"), silent: t("silent"), live: t("live") };
const BOARD_TEXT = { online: t("online"), silent: t("silent"), gone: t("gone"), unsupported: t("unsupported") };

/** How a pad board's clock is mapped: by its sync wire, or by SYNC round trips (and why). */
function clockText(b) {
  if (b.status !== "online" || !b.clock) return "";
  if (b.clock === "wire") return " · " + t("clock by the sync wire");
  if (!b.wire) return " · " + t("clock by SYNC round trips (no sync wire)");
  return " · " + t("clock by SYNC round trips (sync wire {state})", { state: ownName(WIRE_TEXT, b.wire, b.wire) });
}

/** The pad boards and their status, as the box last heard it (box.boards). */
function boardList(boards) {
  if (!boards.length) return null;
  return h(
    "ul",
    { class: "pad-boards small", "data-testid": "pad-boards" },
    boards.map((b) =>
      h(
        "li",
        { "data-testid": `pad-board-${b.board}`, "data-status": b.status, "data-clock": b.clock || "" },
        h("code", {}, b.board),
        ` ${ownName(BOARD_TEXT, b.status, b.status)}${clockText(b)}`,
      ),
    ),
  );
}

/** The pad test in `el`: rebuilt when an edge comes (or the pads or boards change).
 * `raw`: the pads' ids and the box's own µs (a builder's, behind the PIN); else each
 * edge is its seat and role, and the time since the one before. */
export function renderPadTest(el, state, { raw = true } = {}) {
  const box = state.box || {};
  const edges = box.pad_test || [];
  const last = edges.at(-1);
  const real = box.simulated === false;
  const names = (state.players || []).map((p) => p.name);
  const boards = box.boards || [];
  const key = JSON.stringify([last ? [last.n, last.t_us] : 0, real ? box.pads : null, names, boards, raw]);
  if (el.dataset.key === key) return;
  el.dataset.key = key;
  const held = heldPads(edges);
  const newest = last && last.edge === "press" ? last.pad : null;
  const rows = edges.map((e, i) => edgeRow(state, e, edges[i - 1], raw)).reverse();
  fill(
    el,
    h("h2", {}, t("Pad test")),
    h(
      "p",
      { class: "muted small" },
      real
        ? t("Press each pad: its tile lights while it is held, and every press and release is listed with its seat and time.")
        : t("Every press and release of the virtual pads, as the box gets it."),
    ),
    real ? boardList(boards) : null,
    real ? tiles(state, held, newest) : null,
    rows.length
      ? h("ol", { class: "edges", "data-testid": "pad-test-edges", reversed: true }, rows)
      : h("p", { class: "muted placeholder", "data-testid": "pad-test-empty" }, t("No pad pressed yet.")),
  );
}
