// What a guest's buzzer phone tells its player, from the live state alone (the rules'
// race, late presses, false starts, Twin It!'s claims, the round's and the game's
// result): waiting for the go, a false start and how early, "You were first!" or
// "2nd — 12.3 ms behind Jean-Luc", locked until the table settles, who won.
// statusOf(state, seat) -> {kind, title, detail, locked, cheer}: `kind` names the moment
// (the page buzzes and sounds when it changes), `locked` the seat's buzzer waits for the
// table (this seat pressed: its place is known), `cheer` the moment is this player's win.
import { t, tn } from "./i18n.js";
import { decimal, num, ownName } from "./dom.js";
import { fewestWins, placeText, ranking } from "./game.js";
import { decidedBy, tooClose } from "./closecall.js";

/** A gap between two presses as a person reads it, in the page's language: "12.3 ms",
 * "1.52 s" (German, French, Danish: "12,3 ms", "1,52 s"). */
export function gap(us) {
  const a = Math.max(0, Math.abs(us));
  return a < 1_000_000 ? t("{ms} ms", { ms: decimal(a / 1000, 1) }) : t("{s} s", { s: decimal(a / 1_000_000, 2) });
}

/** "2nd — 12.3 ms behind Jean-Luc": a whole sentence for each place. */
function behind(place, us, name) {
  const params = { time: gap(us), name, n: place };
  if (place === 2) return t("2nd — {time} behind {name}", params);
  if (place === 3) return t("3rd — {time} behind {name}", params);
  return t("{n}th — {time} behind {name}", params);
}

/** Each seat's first press of `pad` in `presses`, earliest first. */
function ranked(presses, pad) {
  const seen = new Set();
  return [...presses]
    .filter((p) => p.pad === pad)
    .sort((a, b) => a.t_us - b.t_us)
    .filter((p) => !seen.has(p.seat) && seen.add(p.seat));
}

/** Where `seat` came in `order` (1 = first; a tie shares its place), with the first:
 * presses too close to call (the same µs, or within their timing errors: closecall.js)
 * are a tie, `close` when not at the same µs. */
function placeIn(order, seat) {
  const mine = order.find((p) => p.seat === seat);
  if (!mine) return null;
  const first = order[0];
  const ahead = order.filter((p) => p.t_us < mine.t_us && !tooClose(p, mine));
  const place = 1 + ahead.length; // 1, 1, 3 after a tie
  const tied = order.filter((p) => p.seat !== seat && tooClose(p, mine) && !ahead.includes(p));
  const close = tied.some((p) => p.t_us !== mine.t_us);
  return { place, first, mine, tied, close, lead: mine.t_us - first.t_us };
}

/** A tie: "A tie with Ann!" at the same µs; "Too close to call with Ann" within the
 * presses' timing errors, and how it is decided. */
function tieWith(st, at, detail) {
  const params = { names: names(at.tied.map((p) => p.name)) };
  if (!at.close) return { kind: "tie", title: t("A tie with {names}!", params), detail, locked: true };
  return { kind: "tie", title: t("Too close to call with {names}", params), detail: `${detail} ${decidedBy(st)}`.trim(), locked: true };
}

/** Names as a list in the page's language: "Ann and Ben", "Ann, Ben und Cem". */
const names = (list) => new Intl.ListFormat(document.documentElement.lang || undefined, { type: "conjunction" }).format(list);

/** What ends a round, said for each game. */
const STOP_WHEN = {
  ligretto: () => t("Press Stop! the moment your Ligretto stack is empty."),
  twist: () => t("Press Stop! the moment your last card is laid."),
  kids: () => t("Press Stop! the moment your last card is laid."),
};

/** A false start of `seat` this round: how early it was (µs), or null. */
function falseStart(st, seat) {
  const fs = (st.false_starts || []).find((p) => p.seat === seat);
  if (!fs) return null;
  const go = st.go_t_us ?? st.box?.countdown_ends_us;
  return go == null ? 0 : Math.max(0, go - fs.t_us);
}

function falseText(early) {
  return early ? t("False start: {time} too early. It does not count.", { time: gap(early) }) : t("False start: it does not count.");
}

/** A player's total with its unit, as the game counts: "12 points", "3 cards", "5 takes". */
function totalWords(st, p) {
  if (st.game === "twinit") {
    const n = (p.takes || []).length;
    return tn("{n} take", "{n} takes", n, { n });
  }
  if (fewestWins(st)) return tn("{n} card", "{n} cards", p.total, { n: num(p.total) });
  return tn("{n} point", "{n} points", Math.abs(p.total), { n: num(p.total) });
}

/** The game is over: who won, and this player's total and place. */
function finished(st, seat) {
  const me = st.players[seat];
  const winners = st.winners || [];
  const at = ranking(st).find((o) => o.seat === seat);
  const detail = t("Your total: {total}, place {place} of {players}", { total: totalWords(st, me), place: placeText(at), players: st.players.length });
  if (winners.includes(me.name)) {
    const others = winners.filter((w) => w !== me.name);
    return others.length
      ? { kind: "win", title: t("You share the win!"), detail: t("With {names}. {detail}", { names: names(others), detail }), cheer: true }
      : { kind: "win", title: t("You win!"), detail, cheer: true };
  }
  if (!winners.length) return { kind: "over", title: t("The game is over"), detail };
  return { kind: "lost", title: tn("{names} wins!", "{names} win!", winners.length, { names: names(winners) }), detail };
}

/** Ligretto, Twist, Kids: the round's race ended by the first stop press. */
function roundOver(st, seat) {
  const me = st.players[seat];
  const order = ranked([...(st.race || []), ...(st.late || [])], "stop");
  const at = placeIn(order, seat);
  const called = st.caller ? (st.caller === me.name ? t("You called — the table counts the cards.") : t("{name} called — count your cards", { name: st.caller })) : null;
  if (st.stalled) return { kind: "stall", title: t("Stall: the round is over"), detail: t("Count your cards.") };
  if (at && at.tied.length && at.place === 1) return tieWith(st, at, at.close ? "" : called || t("The table names the caller."));
  if (at && at.place === 1) {
    const next = order.find((p) => p.t_us > at.mine.t_us);
    const by = next ? t("{name} was {time} behind.", { name: next.name, time: gap(next.t_us - at.mine.t_us) }) : "";
    return { kind: "first", title: t("You were first!"), detail: [called, by].filter(Boolean).join(" "), locked: true, cheer: true };
  }
  if (at) return { kind: "place", title: behind(at.place, at.lead, at.first.name), detail: called || "", locked: true };
  if (st.caller) return { kind: "called", title: t("{name} called — count your cards", { name: st.caller }), detail: "" };
  return { kind: "ended", title: t("The round is over"), detail: t("The table names the caller.") };
}

/** The last scored round: who won it, this player's points. */
function roundScored(st, seat) {
  const me = st.players[seat];
  const row = (st.history || []).at(-1);
  if (!row) return { kind: "wait", title: t("Waiting for the next round"), detail: "" };
  const points = row.points?.[me.name];
  const params = { points: num(points), total: num(me.total) };
  const detail =
    points == null
      ? t("Your total: {total}", params)
      : st.game === "kids"
        ? tn("{points} card left this round, {total} in all.", "{points} cards left this round, {total} in all.", points, params)
        : tn("{points} point this round, {total} in all.", "{points} points this round, {total} in all.", Math.abs(points), params);
  const winners = row.winners || [];
  const title = winners.includes(me.name)
    ? t("You won round {round}!", { round: row.round })
    : winners.length
      ? t("{names} won round {round}", { names: names(winners), round: row.round })
      : t("Round {round} is scored", { round: row.round });
  const won = winners.includes(me.name);
  return { kind: won ? "round-won" : "scored", title, detail: t("{detail} Waiting for the next round.", { detail }), cheer: won };
}

/** How many takes `name` had in the state `before` (null: not known). */
const takesIn = (before, name) => {
  const p = (before?.players || []).find((q) => q.name === name);
  return p ? (p.takes || []).length : null;
};

/** Twin It!: the open claim (this seat's place in it), or the last one settled; `before`
 * is the state shown before this one (an error costs a take only to one who had one). */
function twinIt(st, seat, before) {
  const me = st.players[seat];
  const claim = st.claim;
  if (st.box?.countdown === "split") return { kind: "split", title: t("Split: 3 – 2 – 1, turn the pair over!"), detail: "" };
  if (claim) {
    const at = placeIn(ranked(claim.slaps || [], "slap"), seat);
    const waiting = t("Locked until the table settles {name}'s claim.", { name: claim.claimant });
    if (at && at.tied.length && at.place === 1) return tieWith(st, at, t("Locked until the table settles the claim."));
    if (at && at.place === 1) return { kind: "first", title: t("You were first!"), detail: t("Locked until the table settles your claim."), locked: true, cheer: true };
    if (at) return { kind: "place", title: behind(at.place, at.lead, at.first.name), detail: waiting, locked: true };
    return { kind: "claim", title: t("{name} slapped first", { name: claim.claimant }), detail: t("The table settles the claim."), locked: false };
  }
  const takes = tn("You have {n} take of {goal}.", "You have {n} takes of {goal}.", me.total, { goal: st.takes_to_win ?? 5 });
  const last = st.last_claim;
  if (!last) return { kind: "go", title: t("Go! Slap on a pair."), detail: takes };
  const mine = last.claimant === me.name;
  const said = ownName({
    pair: mine ? t("You take the pair!") : t("{name} takes the pair", { name: last.claimant }),
    steal: mine
      ? t("You steal {victim}'s take!", { victim: last.victim })
      : last.victim === me.name
        ? t("{name} steals your take", { name: last.claimant })
        : t("{name} steals {victim}'s take", { name: last.claimant, victim: last.victim }),
    error: errorWords(st, last.claimant, mine, before),
    split: t("Split: nobody scores"),
  }, last.result);
  const cheer = mine && (last.result === "pair" || last.result === "steal");
  return { kind: `claim-${last.number}`, title: said || t("Go! Slap on a pair."), detail: takes, cheer };
}

/** A wrong claim, said as it cost: the claimant's most recent take goes back, or
 * nothing when they had none (Twin It!'s rules). */
function errorWords(st, claimant, mine, before) {
  const had = takesIn(before, claimant);
  const now = takesIn(st, claimant);
  const lost = had === null ? (now > 0 ? true : null) : had > 0;
  if (lost === null) return mine ? t("No pair: the table said so") : t("{name} slapped on no pair", { name: claimant });
  if (!lost) return mine ? t("No pair: you had no take to lose") : t("{name}'s error: no take to lose", { name: claimant });
  return mine ? t("Error: you lose a take") : t("{name}'s error: a take goes back", { name: claimant });
}

/** What the buzzer of `seat` says now: {kind, title, detail, locked}; `before`, the state
 * shown before (an error is said as it cost). */
export function statusOf(st, seat, before = null) {
  const out = (s) => ({ locked: false, detail: "", ...s });
  const early = falseStart(st, seat);
  if (st.phase === "finished") return out({ ...finished(st, seat), locked: true });
  if (st.phase === "lobby") return out({ kind: "wait", title: t("Waiting for the first round"), detail: t("The host starts it at the table view.") });
  if (st.phase === "countdown") {
    if (early !== null) return out({ kind: "false", title: t("False start!"), detail: falseText(early) });
    return out({ kind: "ready", title: t("Get ready…"), detail: t("Wait for the go.") });
  }
  if (st.phase === "scoring") return out(roundOver(st, seat));
  if (st.phase === "scored") return out(roundScored(st, seat));
  const playing = st.game === "twinit" ? twinIt(st, seat, before) : { kind: "go", title: t("Go!"), detail: ownName(STOP_WHEN, st.game, STOP_WHEN.ligretto)() };
  if (early !== null && playing.kind === "go") playing.detail = falseText(early); // until a race
  return out(playing);
}

/** The player's own false start, said at once on the phone (before the box answers):
 * `ms` before the go on this phone's count. */
export const falseStartNow = (ms) => ({ kind: "false", title: t("False start!"), detail: falseText(Math.round(ms * 1000)), locked: false });
