// Putting mistakes right at the table (game log v1.1): a press taken back (`void`: a
// bumped stop pad, a stray slap), an earlier round corrected (`amend`), and the undo
// that says what it takes back. The rules judge each entry, as ever.
import { send } from "./api.js";
import { confirmButton, decimal, dot, h, lead, ownName, seatClass } from "./dom.js";
import { busy, clearErrors, counter, countsOf, showError } from "./forms.js";
import { t } from "./i18n.js";
import { own, zeroNotice } from "./scoring.js";

const STACK = 10;
const SET = 40;

/** The presses the table may take back now: the race (or the claim's slaps), late ones. */
function voidable(state) {
  const claim = state.claim && state.claim.slaps ? state.claim.slaps : null;
  const race = claim || state.race || [];
  return [...race, ...(state.late || [])];
}

const PADS = { stop: t("stop"), slap: t("slap"), pile: t("pile") };
const padText = (p) =>
  p.pile !== undefined && p.pile !== null ? t("pile {pile}", { pile: p.pile + 1 }) : ownName(PADS, p.pad, p.pad);

/** The presses taken back in this round (since its go): an earlier round's are no
 * press of this one. */
function voidedThisRound(state) {
  const go = state.go_t_us;
  if (go === null || go === undefined) return [];
  return (state.voided || []).filter((p) => p.t_us >= go);
}

/** The presses of this round, each with "Take back"; voided ones listed apart. */
export function voidPanel(state, report) {
  const list = voidable(state);
  const voided = voidedThisRound(state);
  if (!list.length && !voided.length) return null;
  const first = list.length ? list[0].t_us : null;
  return h(
    "section",
    { class: "void-panel", "data-testid": "void-panel" },
    h("h2", {}, t("Presses this round")),
    h("p", { class: "muted small" }, t("A bumped pad or a stray slap? Take the press back: the round goes on as if it never happened.")),
    h(
      "ul",
      { class: "void-list" },
      list.map((p, i) =>
        h(
          "li",
          { class: `void-row ${seatClass(p.seat)}`, "data-testid": `void-row-${i}` },
          dot(p.seat),
          h("span", { class: "name" }, p.name),
          h("span", { class: "muted small" }, `${padText(p)} · ${i === 0 ? t("first") : lead(p.lead_us ?? p.t_us - first)}`),
          confirmButton(
            { class: "ghost small-btn", "data-testid": `void-${i}` },
            t("Take back"),
            t("Tap again: take it back"),
            () => own(() => send("void", { seat: p.seat, t_us: p.t_us })).catch(report),
          ),
        ),
      ),
      voided.map((p, i) =>
        h(
          "li",
          { class: `void-row voided ${seatClass(p.seat)}`, "data-testid": `voided-${i}` },
          dot(p.seat),
          h("s", { class: "name" }, p.name),
          h("span", { class: "muted small" }, [padText(p), t("taken back")].join(" · ")),
        ),
      ),
    ),
  );
}

/** A press, as the table says it: "Ben's stop press", "Ann's press on pile 3". */
function pressWords(state, seat, t_us) {
  const name = state.players[seat]?.name ?? t("seat {n}", { n: seat + 1 });
  const p = (state.voided || []).find((v) => v.seat === seat && v.t_us === t_us);
  if (p && p.pad === "pile") return t("{name}'s press on pile {pile}", { name, pile: p.pile + 1 });
  if (p && p.pad === "slap") return t("{name}'s slap", { name });
  return t("{name}'s stop press", { name });
}

/** What the undo takes back, in the table's words (the box's own text names a press by
 * its µs: "the void of Ben's press at 1232992183 µs"). */
export function undoWords(state) {
  const entry = (state.undo && state.undo.entry) || {};
  const round = state.round;
  const who = (seat) => state.players[seat]?.name ?? t("seat {n}", { n: seat + 1 });
  const claim = state.last_claim || {};
  switch (state.undoable) {
    case "void":
      return t("Undo: take back {press}", { press: pressWords(state, entry.seat, entry.t_us) });
    case "stacks":
      return t("Undo: the stacks of round {round}", { round });
    case "middle":
      return t("Undo: the middle of round {round} and its scores", { round });
    case "left":
      return t("Undo: the cards left of round {round} and their scores", { round });
    case "caller":
      return t("Undo: {name} named as the caller of round {round}", { name: who(entry.seat), round });
    case "stall":
      return t("Undo: the stall of round {round}", { round });
    case "amend":
      return t("Undo: the correction of round {round}", { round: entry.round });
    case "finish":
      return t("Undo: the end of the game");
    case "claim":
      if (entry.result === "pair" && claim.claimant) return t("Undo: {name}'s pair", { name: claim.claimant });
      if (entry.result === "steal" && claim.claimant) {
        return t("Undo: {name}'s steal of {victim}'s take", { name: claim.claimant, victim: entry.victim });
      }
      if (entry.result === "error" && claim.claimant) return t("Undo: {name}'s error (no pair)", { name: claim.claimant });
      if (entry.result === "split") return t("Undo: the split");
      break;
    default:
      break;
  }
  return t("Undo: {what}", { what: (state.undo && state.undo.text) || state.undoable });
}

/** The undo beside the stage: it names what it takes back ("the stacks of round 2"). */
export function undoButton(state, report) {
  if (!state.undoable) return null;
  const b = h("button", { type: "button", class: "ghost undo", "data-testid": "undo" }, undoWords(state));
  b.addEventListener("click", () => busy(b, () => own(() => send("undo")).catch(report)));
  return b;
}

/** One count field per player for one kind of count of a round, prefilled. */
function countFields(state, kind, r, max) {
  const fields = Object.create(null);
  const rows = state.players.map((p, seat) => {
    const f = counter({
      seat,
      name: p.name,
      value: r[kind] ? r[kind][p.name] : "",
      max,
      testid: `amend-${kind}-${seat}`,
    });
    fields[p.name] = f;
    return f.row;
  });
  return { fields, rows };
}

/** The form correcting round `r` (its counts as entered), posted as `amend`. */
function amendForm(state, r, close) {
  const kinds = state.game === "ligretto" ? ["stacks", "middle"] : ["left"];
  const max = { stacks: STACK, middle: SET, left: state.game === "kids" ? 30 : state.dealt || SET };
  const label = { stacks: t("Ligretto stacks"), middle: t("Cards in the middle"), left: t("Cards left") };
  const parts = kinds.map((kind) => ({ kind, ...countFields(state, kind, r, max[kind]) }));
  const formError = h("p", { class: "form-error", role: "alert", "data-testid": "amend-error" });
  const submit = h("button", { type: "submit", class: "primary", "data-testid": "amend-submit" }, t("Correct round {round}", { round: r.round }));
  const cancel = h("button", { type: "button", class: "ghost", onclick: close }, t("Cancel"));
  const form = h(
    "form",
    { class: "counts amend", novalidate: true, "data-testid": "amend-form" },
    h("h3", {}, t("Round {round}: correct the counts", { round: r.round })),
    parts.map((p) => h("fieldset", {}, h("legend", {}, label[p.kind]), p.rows)),
    r.caller && kinds[0] === "left" ? zeroNotice(state, r.caller)(parts[0].fields) : null,
    formError,
    h("div", { class: "row" }, submit, cancel),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    clearErrors(form);
    const body = { round: r.round };
    for (const p of parts) body[p.kind] = countsOf(p.fields);
    await busy(submit, async () => {
      try {
        await own(() => send("amend", body));
        close();
      } catch (err) {
        // the fields of the count the refusal speaks of ("stack", "middle"), else the first
        const said = (err.message || "").toLowerCase();
        const part =
          parts.find((p) => typeof err.code === "string" && err.code.includes(p.kind.replace(/s$/, ""))) ||
          parts.find((p) => said.includes(p.kind.replace(/s$/, ""))) ||
          parts[0];
        showError(form, err, part.fields, formError);
      }
    });
  });
  return form;
}

/** The scored rounds, each with "Correct…" (not for Twin It!, nor a finished game). */
export function roundsCard(state) {
  const history = state.history || [];
  if (!history.length || state.game === "twinit" || state.phase === "finished") return null;
  const slot = h("div", { class: "amend-slot" });
  const close = () => slot.replaceChildren();
  return h(
    "section",
    { class: "rounds-card", "data-testid": "rounds-card" },
    h("h2", {}, t("Scored rounds")),
    h(
      "ul",
      { class: "round-list" },
      [...history].reverse().map((r) =>
        h(
          "li",
          { "data-testid": `round-${r.round}` },
          h("strong", {}, t("Round {round}", { round: r.round })),
          h(
            "span",
            { class: "muted small" },
            r.caller ? " " + t("{name} called", { name: r.caller }) : r.stalled ? " " + t("stalled") : "",
            r.winners && r.winners.length ? " · " + t("won by {names}", { names: r.winners.join(" & ") }) : "",
          ),
          h(
            "button",
            {
              type: "button",
              class: "ghost small-btn",
              "data-testid": `amend-${r.round}`,
              onclick: () => slot.replaceChildren(amendForm(state, r, close)),
            },
            t("Correct…"),
          ),
        ),
      ),
    ),
    slot,
  );
}
