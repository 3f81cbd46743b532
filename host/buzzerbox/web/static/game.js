// What the pages say about a game: its course, who leads, what each player shows.
import { h, ownName, s } from "./dom.js";
import { t, tn } from "./i18n.js";

export const TITLES = {
  ligretto: "Ligretto",
  twist: "Ligretto Twist",
  kids: "Ligretto Kids",
  twinit: "Twin It!",
};

export const TAKES_TO_WIN = 5;

/** Ligretto Kids counts cards left: the fewest win. Everything else: the most. */
export const fewestWins = (state) => state.game === "kids";

/** Where the game goes: "to 99", "round 2 of 5", "first to 5 takes". */
export function course(state) {
  if (state.game === "twinit") {
    const n = state.takes_to_win || TAKES_TO_WIN;
    return tn("first to {n} take", "first to {n} takes", n);
  }
  if (state.target) return t("to {target} points", { target: state.target });
  if (state.rounds) {
    const left = state.rounds - (state.phase === "scored" || state.phase === "finished" ? state.round : Math.max(state.round - 1, 0));
    const played = (state.history || []).length;
    if (state.phase !== "finished") return tn("{n} round · {left} to play", "{n} rounds · {left} to play", state.rounds, { left });
    return played < state.rounds
      ? tn("{played} of {n} round played", "{played} of {n} rounds played", state.rounds, { played })
      : tn("{n} round played", "{n} rounds played", state.rounds);
  }
  return "";
}

/** Ligretto Twist while a round is on: the cards left count (the pile pads count them). */
export const leftCounts = (state) => state.game === "twist" && ["playing", "scoring"].includes(state.phase);

/** Seats in ranking order, with shared places: [{seat, player, place, tied}]. Ligretto
 * Twist mid-round: by cards left, fewest first. */
export function ranking(state) {
  const players = state.players || [];
  const byLeft = leftCounts(state);
  const value = (p) => (state.game === "twinit" ? (p.takes || []).length : byLeft ? p.left : p.total);
  const sign = fewestWins(state) || byLeft ? 1 : -1;
  const order = players
    .map((player, seat) => ({ seat, player, v: value(player) }))
    .sort((a, b) => sign * (a.v - b.v) || a.seat - b.seat);
  let place = 0;
  order.forEach((o, i) => {
    if (i === 0 || o.v !== order[i - 1].v) place = i + 1;
    o.place = place;
  });
  for (const o of order) o.tied = order.some((q) => q !== o && q.place === o.place);
  return order;
}

/** A place as people write it: "2", or "=1" when shared. */
export const placeText = (o) => `${o.tied ? "=" : ""}${o.place}`;

/** The last scored round's points for `name`, or null. */
export function lastPoints(state, name) {
  const h0 = (state.history || []).at(-1);
  return h0 && h0.points && name in h0.points ? h0.points[name] : null;
}

/** Twin It!: what the last settled claim did, in words. */
export function claimNews(state) {
  const c = state.last_claim;
  if (!c) return null;
  switch (c.result) {
    case "pair":
      return t("{claimant} took a pair", { claimant: c.claimant });
    case "steal":
      return c.victim === c.claimant
        ? t("{claimant}'s pair grew to three", { claimant: c.claimant })
        : t("{claimant} stole {victim}'s pair", { claimant: c.claimant, victim: c.victim });
    case "error":
      return t("{claimant} was wrong: no pair", { claimant: c.claimant });
    case "split":
      return t("A split: the pair was turned over");
    default:
      return null;
  }
}

/** The table's status line: "Round 2 playing · Ben called", "Ready to start". */
export function phaseLine(st) {
  const round = st.round;
  const phaseTexts = {
    lobby: st.game === "twinit" ? t("Ready to start") : t("Ready for round 1"),
    countdown: t("Counting down"),
    playing: t("Playing"),
    scoring: t("Being scored"),
    scored: t("Scored"),
    finished: t("Finished"),
  };
  const roundTexts = {
    countdown: t("Round {round} counting down", { round }),
    playing: t("Round {round} playing", { round }),
    scoring: t("Round {round} being scored", { round }),
    scored: t("Round {round} scored", { round }),
  };
  const phaseText = ownName(phaseTexts, st.phase, st.phase);
  const line =
    st.round && st.game !== "twinit" && st.phase !== "finished"
      ? ownName(roundTexts, st.phase, [t("Round {round}", { round }), phaseText].join(" "))
      : phaseText;
  if (st.phase === "finished") return line;
  if (st.caller) return [line, t("{name} called", { name: st.caller })].join(" · ");
  return st.stalled ? [line, t("stalled")].join(" · ") : line;
}

/** "Ann wins!", "Ann & Ben win!" (every page that shows the winners says it so). */
export function winnersTitle(names) {
  if (names.length > 1) return t("{names} win!", { names: names.join(" & ") });
  return names.length ? t("{name} wins!", { name: names[0] }) : t("Nobody wins!");
}

/** Ligretto Twist: the last foul on a pile, in words. */
export function foulNews(state) {
  const f = state.last_foul;
  if (!f) return null;
  const values = { name: f.name, pile: f.pile + 1, by: f.by };
  if (f.foul === "blocked") {
    return f.by
      ? t("Foul: {name} reached for pile {pile}, {by} holds it", values)
      : t("Foul: {name} reached for pile {pile}, another hand holds it", values);
  }
  return t("Foul: {name} reached for pile {pile} with a third hand", values);
}

/** A small crown for the winners. */
export function crown(cls = "crown") {
  return s(
    "svg",
    { class: cls, viewBox: "0 0 24 24", "aria-hidden": "true" },
    s("path", { d: "M3 8l4.5 4L12 5l4.5 7L21 8l-2 11H5z" }),
  );
}

/** Twin It! takes as little card fans: a take of 2 or of 3. */
export function takes(list) {
  return h(
    "span",
    { class: "takes", role: "img", "aria-label": tn("{n} take", "{n} takes", list.length) },
    list.map((n) =>
      h("span", { class: `take take-${n}`, title: t("a take of {n}", { n }) }, Array.from({ length: n }, () => h("i"))),
    ),
  );
}
