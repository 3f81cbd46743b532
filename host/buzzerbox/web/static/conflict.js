// Two scorekeepers entering the same counts at once: the phone whose form another
// phone saved first keeps what it typed in view, beside what was saved, until it
// chooses: keep the saved counts, or put its own in (a correction of the round, or,
// for stacks not yet followed by the middle, an undo and its own stacks). The warning
// goes once it has chosen, or once the saved entry is gone (an undo there brings the
// form back here, with what was typed).
import { send } from "./api.js";
import { dot, h, seatClass } from "./dom.js";
import { dropDraft } from "./drafts.js";
import { busy } from "./forms.js";
import { t } from "./i18n.js";
import { own } from "./scoring.js";

/** The replaced entry: {gameId, round, type, what, draft, mine: [[name, text]]}, or null. */
let open = null;
let changed = () => {};

/** `fn()` runs when this phone has chosen (the table view draws again). */
export function whenChosen(fn) {
  changed = fn;
}

/** The counts of the round's `type` the box holds now ({name: n}), or null. */
function saved(state, c) {
  if (!state || state.box?.game_id !== c.gameId) return null;
  const entry = (state.history || []).find((r) => r.round === c.round);
  if (entry && entry[c.type]) return entry[c.type];
  if (c.type === "stacks" && state.round === c.round && state.phase === "scoring") {
    const stacks = state.players.map((p) => p.stack);
    if (stacks.every((n) => n !== null && n !== undefined)) {
      return Object.fromEntries(state.players.map((p, seat) => [p.name, stacks[seat]]));
    }
  }
  return null;
}

const differs = (mine, there) => mine.trim() !== "" && Number(mine) !== there;

/** A counts form of this phone was replaced by `state` (another phone's save): keep
 * what was typed in it, if any of it differs from what was saved. */
export function noteReplaced(form, state) {
  const [gameId, round, type] = (form.dataset.draft || "").split("|");
  const c = { gameId: Number(gameId), round: Number(round), type, what: form.dataset.what, draft: form.dataset.draft };
  c.mine = [...form.querySelectorAll("input[data-name]")].map((i) => [i.dataset.name, i.value]);
  const there = saved(state, c);
  if (!there || !c.mine.some(([name, text]) => differs(text, there[name]))) return;
  open = c;
}

function close() {
  if (open) dropDraft(open.draft);
  open = null;
  changed();
}

/** The warning for the table's notice while a choice is open, else "". */
export function conflictWarning(state) {
  if (open && !saved(state, open)) open = null; // the saved entry is gone: the form is back
  if (!open) return "";
  return t(
    "Another phone saved first: {what} changed there. What you typed here is shown beside it: keep the saved counts, or use yours.",
    { what: open.what },
  );
}

/** How this phone's counts can still be put in, or null: a correction of the round
 * once it is scored; stacks alone, by taking the saved ones back first. */
function apply(state, c, counts) {
  if (state.phase === "finished") return null;
  if ((state.history || []).some((r) => r.round === c.round)) {
    return () => send("amend", { round: c.round, [c.type]: counts });
  }
  if (c.type === "stacks" && state.undoable === "stacks" && state.round === c.round) {
    return async () => {
      await send("undo");
      return send("stacks", { counts });
    };
  }
  return null;
}

/** The choice, or null when none is open. */
export function conflictPanel(state) {
  const c = open;
  const there = c && saved(state, c);
  if (!c || !there) return null;
  const counts = Object.create(null); // a player may be called "__proto__"
  for (const [name, text] of c.mine) if (text.trim() !== "") counts[name] = Number(text);
  const put = apply(state, c, counts);
  const error = h("p", { class: "form-error", role: "alert", "data-testid": "conflict-error" });
  const keep = h("button", { type: "button", class: "primary", "data-testid": "conflict-keep" }, t("Keep the saved counts"));
  keep.addEventListener("click", close);
  const mine = put ? h("button", { type: "button", "data-testid": "conflict-mine" }, t("Use mine instead")) : null;
  mine?.addEventListener("click", () =>
    busy(mine, async () => {
      try {
        await own(put);
        close();
      } catch (err) {
        error.textContent = err.message;
      }
    }),
  );
  const seats = new Map(state.players.map((p, seat) => [p.name, seat]));
  return h(
    "section",
    { class: "card conflict", "data-testid": "conflict" },
    h("h2", {}, t("Saved on another phone: {what}", { what: c.what })),
    h(
      "table",
      { class: "conflict-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Player")), h("th", { scope: "col" }, t("Saved")), h("th", { scope: "col" }, t("Yours")))),
      h(
        "tbody",
        {},
        c.mine.map(([name, text], i) =>
          h(
            "tr",
            { class: `${differs(text, there[name]) ? "differs" : ""} ${seatClass(seats.get(name) ?? i)}`, "data-testid": `conflict-row-${i}` },
            h("th", { scope: "row" }, dot(seats.get(name) ?? i), ` ${name}`),
            h("td", { "data-testid": `conflict-saved-${i}` }, String(there[name] ?? "–")),
            h("td", { "data-testid": `conflict-mine-${i}` }, text.trim() === "" ? "–" : text),
          ),
        ),
      ),
    ),
    put ? null : h("p", { class: "muted small" }, t("Yours can no longer be put in here: the game has moved on.")),
    error,
    h("div", { class: "row" }, keep, mine),
  );
}

/** A key for the panel: it is drawn again when the choice or what was saved changes. */
export function conflictKey(state) {
  return JSON.stringify(open ? [open.draft, saved(state, open), state.undoable, state.phase] : null);
}
