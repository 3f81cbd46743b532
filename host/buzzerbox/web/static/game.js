// What the pages say about a game: its course, who leads, what each player shows.
import { h, plural, s } from "./dom.js";

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
  if (state.game === "twinit") return `first to ${state.takes_to_win || TAKES_TO_WIN} takes`;
  if (state.target) return `to ${state.target} points`;
  if (state.rounds) {
    const left = state.rounds - (state.phase === "scored" || state.phase === "finished" ? state.round : Math.max(state.round - 1, 0));
    const played = (state.history || []).length;
    if (state.phase !== "finished") return `${plural(state.rounds, "round")} · ${left} to play`;
    return played < state.rounds ? `${played} of ${plural(state.rounds, "round")} played` : `${plural(state.rounds, "round")} played`;
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
      return `${c.claimant} took a pair`;
    case "steal":
      return c.victim === c.claimant
        ? `${c.claimant}'s pair grew to three`
        : `${c.claimant} stole ${c.victim}'s pair`;
    case "error":
      return `${c.claimant} was wrong: no pair`;
    case "split":
      return "A split: the pair was turned over";
    default:
      return null;
  }
}

/** Ligretto Twist: the last foul on a pile, in words. */
export function foulNews(state) {
  const f = state.last_foul;
  if (!f) return null;
  if (f.foul === "blocked") return `Foul: ${f.name} reached for pile ${f.pile + 1}, ${f.by || "another hand"} holds it`;
  return `Foul: ${f.name} reached for pile ${f.pile + 1} with a third hand`;
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
    { class: "takes", "aria-label": plural(list.length, "take") },
    list.map((n) =>
      h("span", { class: `take take-${n}`, title: `a take of ${n}` }, Array.from({ length: n }, () => h("i"))),
    ),
  );
}
