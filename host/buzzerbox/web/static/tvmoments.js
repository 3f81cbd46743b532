// The TV's big moments: what takes the whole screen for a few seconds (a race's
// FIRST!, the call, Twin It!'s steals, errors and splits) or for good (the winners,
// with everyone's totals). Each moment has a key: it is shown when its key is new.
import { dot, h, num, seatClass } from "./dom.js";
import { crown, fewestWins, placeText, ranking } from "./game.js";
import { t, tn } from "./i18n.js";
import { presses } from "./photo.js";
import { marginWords } from "./closecall.js";

/** The race's first press and its margin over the runner; null when nobody pressed. */
function race(state) {
  const list = presses(state);
  const first = list.find((p) => p.kind === "first");
  if (!first) return null;
  // a stop race's second press comes after the call ("late"): it still gives the margin
  const runner = list.find((p) => p !== first && p.lead_us !== null && p.lead_us !== undefined);
  const by = runner ? marginWords(first, runner) : "";
  return { first, by };
}

const seatOf = (state, name) => (state.players || []).findIndex((p) => p.name === name);

/** A moment's screen: a huge word, a line in words, and a smaller one. */
function screen(seat, big, line, small = "") {
  return h(
    "div",
    { class: `tv-reveal-box ${seat >= 0 ? seatClass(seat) : ""}` },
    h("p", { class: "tv-reveal-first", "data-testid": "tv-reveal-big" }, big),
    h("p", { class: "tv-reveal-name", "data-testid": "tv-reveal-name" }, seat >= 0 ? [dot(seat), " "] : null, line),
    small ? h("p", { class: "tv-reveal-by", "data-testid": "tv-reveal-by" }, small) : null,
  );
}

function callMoment(state, gameKey) {
  if (!["scoring", "scored"].includes(state.phase) || state.game === "twinit") return null;
  const round = state.round;
  if (state.caller) {
    const r = race(state);
    const word = state.game === "kids" ? t("Ligretto!") : t("Stop!");
    return {
      kind: "call",
      key: `call|${gameKey}|${round}|${state.caller}`,
      make: () =>
        screen(
          seatOf(state, state.caller),
          word,
          t("{name} called — count your cards", { name: state.caller }),
          r && r.first.name === state.caller ? r.by : "",
        ),
    };
  }
  if (state.stalled) {
    return {
      kind: "call",
      key: `stall|${gameKey}|${round}`,
      make: () => screen(-1, t("Stalled!"), t("Nobody can play — count your cards")),
    };
  }
  return null;
}

function claimMoment(state, gameKey) {
  const c = state.last_claim;
  if (state.game !== "twinit" || !c || c.result === "pair") return null;
  const seat = seatOf(state, c.claimant);
  const make = {
    steal: () =>
      c.victim === c.claimant
        ? screen(seat, t("Three!"), t("{claimant}'s pair grows to three", { claimant: c.claimant }))
        : screen(seat, t("Stolen!"), t("{claimant} steals {victim}'s pair", { claimant: c.claimant, victim: c.victim })),
    error: () => screen(seat, t("No pair!"), t("{claimant} was wrong", { claimant: c.claimant })),
    split: () => screen(-1, t("Split!"), t("A tie: on 3 – 2 – 1, turn the pair over")),
  }[c.result];
  return make ? { kind: "claim", key: `claim|${gameKey}|${c.number}`, make } : null;
}

function raceMoment(state, gameKey) {
  const r = race(state);
  if (!r) return null;
  return {
    kind: "race",
    key: `race|${gameKey}|${state.round}|${r.first.seat}|${r.first.t_us}`,
    make: () => screen(r.first.seat, t("FIRST!"), r.first.name, r.by),
  };
}

/** A player's total as the game counts it, in words for the winners' screen. */
function totalText(state, p) {
  if (state.game === "twinit") {
    const n = (p.takes || []).length;
    return tn("{n} take", "{n} takes", n, { n });
  }
  if (fewestWins(state)) return tn("{n} card", "{n} cards", p.total, { n: p.total });
  return tn("{n} point", "{n} points", Math.abs(p.total), { n: num(p.total) }); // −1 point
}

function winnersMoment(state, gameKey) {
  if (state.phase !== "finished") return null;
  const names = state.winners || [];
  const won = new Set(names);
  const order = ranking(state);
  const headline =
    names.length > 1
      ? t("{names} win!", { names: names.join(" & ") })
      : names.length
        ? t("{name} wins!", { name: names[0] })
        : t("Game over");
  const make = () =>
    h(
      "div",
      { class: "tv-finale", "data-testid": "tv-finale" },
      crown("crown tv-finale-crown"),
      h("p", { class: "tv-finale-title", "data-testid": "tv-finale-title" }, headline),
      h("p", { class: "tv-finale-game" }, state.title),
      h(
        "ol",
        { class: `tv-finale-list${order.length > 6 ? " two" : ""}`, "data-testid": "tv-finale-list" },
        order.map((o) =>
          h(
            "li",
            { class: `${seatClass(o.seat)}${won.has(o.player.name) ? " winner" : ""}`, "data-testid": `tv-finale-${o.seat}` },
            h("span", { class: "tv-finale-place" }, placeText(o)),
            h("span", { class: "tv-finale-name" }, dot(o.seat), " ", o.player.name),
            h("span", { class: "tv-finale-total", "data-testid": `tv-finale-total-${o.seat}` }, totalText(state, o.player)),
          ),
        ),
      ),
    );
  return { kind: "winners", key: `won|${gameKey}`, hold: true, make };
}

/** The moments of `state`, the one to show first first: the winners, the call, a
 * settled claim, the race. */
export function moments(state) {
  if (!state.game) return [];
  const gameKey = state.box?.game_id ?? "";
  return [winnersMoment, callMoment, claimMoment, raceMoment]
    .map((m) => m(state, gameKey))
    .filter(Boolean);
}
