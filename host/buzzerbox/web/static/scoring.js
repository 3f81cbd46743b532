// The table's entries for a round: naming the caller, stall, the Ligretto stacks
// and middle, cards left (Twist, Kids), Twin It! claims. The box's rules judge
// every entry; their refusals are shown at the field they concern.
import { decidedBy, marginWords } from "./closecall.js";
import { send } from "./api.js";
import { confirmButton, dot, fill, h, lead, ownName, seatClass, signed } from "./dom.js";
import { draftKey, loadDraft, saveDraft } from "./drafts.js";
import { busy, clearErrors, counter, countsOf, showError } from "./forms.js";
import { claimNews, foulNews, takes } from "./game.js";
import { t, tn } from "./i18n.js";

const STACK = 10;
const SET = 40;
const KIDS_CARDS = 30;

/** This phone's own entries: how many are in flight, and the state the last one
 * made (a form it replaced itself is no news to it). */
const mine = { pending: 0, state: null };

/** Run this phone's entry `work()` (it answers with the state it made). */
export async function own(work) {
  mine.pending += 1;
  try {
    const made = await work();
    if (made && typeof made === "object" && made.box) mine.state = made;
    return made;
  } finally {
    mine.pending -= 1;
  }
}

/** Whether a change to a stage keyed `keyOf(state)` is this phone's own doing: one
 * of its entries is in flight, or it is the stage its last entry made and the state
 * it made (`seq`: the live stream brings that state again). Another phone's change,
 * however soon after, is not, even where it leads to the same stage (the other phone
 * entered the stacks again after an undo). */
export const isMine = (key, keyOf, seq) =>
  mine.pending > 0 ||
  (mine.state !== null && keyOf(mine.state) === key && (seq === undefined || mine.state.box?.seq === seq));

const WHAT = {
  stacks: t("the stacks of round {round}"),
  middle: t("the middle of round {round}"),
  left: t("the cards left of round {round}"),
};

let lost = () => {};

/** `fn(form)` runs when this phone's entry is refused after its form was replaced (the
 * other phone's save came first, while this one's was on its way). */
export function whenLost(fn) {
  lost = fn;
}

/** A form of one count per player, posted as one table entry. What is typed is kept
 * on the phone (drafts.js) until the round moves on. */
function countsForm({ state, type, title, intro, max, value, hint, submitLabel, testid, after }) {
  const formError = h("p", { class: "form-error", role: "alert", "data-testid": `${type}-error` });
  const fields = Object.create(null); // by player name: "__proto__" is a name too
  const key = draftKey(state, type);
  const draft = loadDraft(key);
  const rows = state.players.map((p, seat) => {
    const f = counter({
      seat,
      name: p.name,
      value: draft.has(p.name) ? draft.get(p.name) : value(p, seat),
      max,
      badge: state.caller === p.name ? t("called") : null,
      hint: hint ? hint(p, seat) : null,
      testid: `${testid}-${seat}`,
    });
    fields[p.name] = f;
    return f.row;
  });
  const submit = h("button", { type: "submit", class: "primary big", "data-testid": `${type}-submit` }, submitLabel);
  const form = h(
    "form",
    { class: "counts", novalidate: true, "data-testid": `${type}-form` },
    h("h1", {}, title),
    h("p", { class: "muted" }, intro),
    rows,
    after ? after(fields) : null,
    formError,
    submit,
  );
  form.dataset.draft = key;
  if (draft.size) form.dataset.dirty = "true"; // counts typed before (a reload, an undo)
  form.dataset.what = ownName(WHAT, type, type).replace("{round}", String(state.round));
  form.addEventListener("input", () => {
    form.dataset.dirty = "true";
    saveDraft(key, Object.entries(fields).map(([name, f]) => [name, f.input.value]));
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    clearErrors(form);
    await busy(submit, async () => {
      try {
        await own(() => send(type, { counts: countsOf(fields) }));
      } catch (err) {
        if (form.isConnected) showError(form, err, fields, formError);
        else lost(form);
      }
    });
  });
  return form;
}

function stacksForm(state) {
  const caller = state.caller;
  return countsForm({
    state,
    type: "stacks",
    testid: "stack",
    title: t("Round {round}: Ligretto stacks", { round: state.round }),
    intro: caller
      ? t("Cards left in each Ligretto stack (0–{max}). {name} called, so {name} has 0.", { max: STACK, name: caller })
      : t("Nobody called: cards left in each Ligretto stack (1–{max}).", { max: STACK }),
    max: STACK,
    value: (p) => (p.name === caller ? 0 : ""),
    submitLabel: t("Save the stacks"),
  });
}

function middleForm(state) {
  const points = (fields) => {
    const out = h("p", { class: "muted small", "data-testid": "middle-preview" });
    const update = () => {
      const parts = state.players.map((p) => {
        const v = fields[p.name].input.value;
        return v === "" ? `${p.name} ?` : `${p.name} ${signed(Number(v) - 2 * p.stack)}`;
      });
      out.textContent = t("This round: {points}", { points: parts.join(" · ") });
    };
    for (const f of Object.values(fields)) f.input.addEventListener("input", update);
    update();
    return out;
  };
  return countsForm({
    state,
    type: "middle",
    testid: "middle",
    title: t("Round {round}: the middle", { round: state.round }),
    intro: t("Each player's own cards in the middle (0–{max}). Points = middle − 2 × stack.", { max: SET }),
    max: SET,
    value: () => "",
    hint: (p) => t("stack {n}", { n: p.stack }),
    submitLabel: t("Save the middle"),
    after: points,
  });
}

/** Under a cards-left form (`caller` the round's): a 0 for a player who did not call is
 * a count (v1.2 reading of the rules: the others count what they have left over),
 * said as such. */
export function zeroNotice(state, caller = state.caller) {
  return (fields) => {
    const out = h("div", { class: "notice muted small", "data-testid": "left-zero-notice", "aria-live": "polite" });
    const update = () => {
      const zeros = state.players.filter((p) => p.name !== caller && fields[p.name].input.value.trim() === "0");
      fill(
        out,
        zeros.map((p) =>
          h(
            "p",
            { "data-testid": `left-zero-${state.players.indexOf(p)}` },
            state.game === "twist"
              ? t("{name} has 0 cards left too: no minus points. {caller} pressed stop first and wins the round.", {
                  name: p.name,
                  caller,
                })
              : t("{name} has 0 cards left too: 0 is written down. {caller} pressed stop first and wins the round.", {
                  name: p.name,
                  caller,
                }),
          ),
        ),
      );
      out.hidden = !zeros.length;
    };
    for (const f of Object.values(fields)) f.input.addEventListener("input", update);
    update();
    return out;
  };
}

function leftForm(state) {
  const twist = state.game === "twist";
  const dealt = twist ? state.dealt || SET : KIDS_CARDS;
  const caller = state.caller;
  let intro;
  if (!caller) {
    intro = twist
      ? t("Nobody called: check and correct the pile pads' counts (1–{dealt}), or name the caller first. Each card is a minus point.", { dealt })
      : t("Nobody called: cards in hand and on the discard pile (1–{dealt}). Fewest wins.", { dealt });
  } else {
    intro = twist
      ? t("Counted by the pile pads: check and correct (0–{dealt}; {caller} called, so {caller} has 0). Each card is a minus point.", { dealt, caller })
      : t("Cards in hand and on the discard pile (0–{dealt}; {caller} called, so {caller} has 0). Fewest wins.", { dealt, caller });
  }
  return countsForm({
    state,
    type: "left",
    testid: "left",
    title: t("Round {round}: cards left", { round: state.round }),
    intro,
    max: dealt,
    value: (p) => (p.name === caller ? 0 : twist ? p.left : ""),
    hint: twist ? (p) => (p.round_fouls ? tn("{n} foul", "{n} fouls", p.round_fouls) : null) : null,
    submitLabel: t("Save the cards left"),
    after: caller ? zeroNotice(state) : null,
  });
}

function entryButton(label, act, props = {}) {
  const b = h("button", { type: "button", ...props }, label);
  b.addEventListener("click", () => busy(b, act));
  return b;
}

/** While a round plays: the table names the caller, or says it stalled. */
function playingPanel(state, report) {
  const canStall = state.game === "ligretto" || state.game === "kids";
  return h(
    "div",
    { class: "playing" },
    h("h1", {}, t("Round {round} is on", { round: state.round })),
    state.game === "twist"
      ? h(
          "ul",
          { class: "live-left", "data-testid": "live-left" },
          state.players.map((p, seat) =>
            h(
              "li",
              { class: seatClass(seat) },
              dot(seat),
              h("span", { class: "name" }, p.name),
              h("strong", {}, String(p.left)),
              h(
                "span",
                { class: "muted small" },
                " ",
                p.round_fouls ? tn("left · {n} foul", "left · {n} fouls", p.round_fouls) : t("left"),
              ),
            ),
          ),
        )
      : null,
    foulNews(state) ? h("p", { class: "news bad", "data-testid": "foul-news" }, foulNews(state)) : null,
    h("p", { class: "muted" }, t("The first stop pad ends the round. Called by voice, and no pad caught it? Tap who called:")),
    h(
      "div",
      { class: "grid-buttons", "data-testid": "name-caller" },
      state.players.map((p, seat) =>
        entryButton(
          [dot(seat), ` ${p.name}`],
          () => send("caller", { seat }).catch(report),
          { class: `seat-button ${seatClass(seat)}`, "data-testid": `caller-${seat}` },
        ),
      ),
    ),
    canStall
      ? confirmButton(
          { class: "ghost", "data-testid": "stall" },
          t("Stalled: nobody can play"),
          t("Tap again: end the round without a caller"),
          () => send("stall").catch(report),
        )
      : null,
  );
}

/** Twin It!: an open claim, settled by the table. */
function claimPanel(state, report) {
  const claim = state.claim;
  const slaps = claim.slaps || [];
  const victims = h("div", { class: "grid-buttons", hidden: true, "data-testid": "steal-victims" });
  const steal = h("button", { type: "button", "data-testid": "claim-steal" }, t("Steal…"));
  steal.addEventListener("click", () => {
    victims.hidden = !victims.hidden;
  });
  const owners = state.players.filter((p) => (p.takes || []).includes(2));
  fill(victims,
    h("p", { class: "muted small" }, t("Whose take does the pattern steal?")),
    ...(owners.length ? owners : state.players).map((p) =>
      entryButton(
        [dot(state.players.indexOf(p)), ` ${p.name}`, p.takes ? takes(p.takes) : null],
        () => send("claim", { result: "steal", victim: p.name }).catch(report),
        { class: "seat-button", "data-testid": `victim-${state.players.indexOf(p)}` },
      ),
    ),
  );
  return h(
    "div",
    { class: "claim", "data-testid": "claim" },
    h("h1", {}, t("{claimant} claims a pair", { claimant: claim.claimant })),
    h(
      "ol",
      { class: "slaps", "data-testid": "claim-slaps" },
      slaps.map((sl, i) =>
        h(
          "li",
          { class: seatClass(sl.seat) },
          h("span", { class: "rank" }, String(i + 1)),
          dot(sl.seat),
          h("span", { class: "name" }, sl.name),
          h("span", { class: `lead${i ? "" : " first"}` }, i ? lead(sl.lead_us) : t("lower hand")),
        ),
      ),
    ),
    // too close to call (the same µs, or within the slaps' timing errors): the rules' split
    claim.tie && slaps.length > 1
      ? h("p", { class: "muted", "data-testid": "claim-close" }, `${marginWords(slaps[0], slaps[1])}. ${decidedBy(state)}`)
      : null,
    h(
      "div",
      { class: "grid-buttons two" },
      entryButton(t("Pair: takes 2"), () => send("claim", { result: "pair" }).catch(report), {
        class: "primary",
        "data-testid": "claim-pair",
      }),
      steal,
      entryButton(t("Error: no pair"), () => send("claim", { result: "error" }).catch(report), {
        class: "danger",
        "data-testid": "claim-error",
      }),
      // the box counts "3 – 2 – 1" on every phone, then the pair is turned over
      entryButton(t("Split: 3 – 2 – 1"), () => send("claim", { result: "split" }).catch(report), {
        "data-testid": "claim-split",
      }),
    ),
    victims,
  );
}

/**
 * The stage for the state's phase: {key, build()}. The key changes only when
 * the stage must be rebuilt, so a form being typed in survives live updates.
 */
export function scoringStage(state, report) {
  const names = state.players.map((p) => p.name).join("|");
  const base = `${state.game}|${state.round}|${state.phase}|${names}`;
  if (state.phase === "playing") {
    if (state.claim) {
      const key = `${base}|claim|${state.claim.claimant}|${(state.claim.slaps || []).length}`;
      return { key, build: () => claimPanel(state, report) };
    }
    if (state.game === "twinit") {
      return {
        key: `${base}|wait|${state.players.map((p) => (p.takes || []).join(",")).join("/")}|${state.last_claim?.slaps?.[0]?.t_us}`,
        build: () =>
          h(
            "div",
            {},
            h("h1", {}, t("Watching for pairs")),
            claimNews(state) ? h("p", { class: "news", "data-testid": "claim-news" }, claimNews(state)) : null,
            h("p", { class: "muted" }, t("The first slap opens a claim; the table settles it here.")),
          ),
      };
    }
    const live = state.game === "twist" ? state.players.map((p) => `${p.left}/${p.round_fouls}`).join(",") : "";
    return { key: `${base}|${live}`, build: () => playingPanel(state, report) };
  }
  if (state.phase === "scoring") {
    if (state.game === "ligretto") {
      const stacksIn = state.players.every((p) => p.stack !== null && p.stack !== undefined);
      return stacksIn
        ? { key: `${base}|middle`, build: () => middleForm(state) }
        : { key: `${base}|stacks|${state.caller}`, build: () => stacksForm(state) };
    }
    if (state.game === "twist" || state.game === "kids") {
      return { key: `${base}|left|${state.caller}`, build: () => leftForm(state) };
    }
  }
  return null;
}
