// This phone's seat as a buzzer (buzzer.js): taken once, kept on the phone, and the box
// the judge of it.
//
// A state can be older than the phone's own last word with the box: the stream's
// updates and the answers to requests come by different ways, and an update that left
// the box before the seat was taken can arrive after the take's answer. It shows the seat
// free; had the phone believed it, it would forget the seat it had just taken and then
// see every seat taken, its own too, with the host's table saying its phone is offline
// (issue 38). So no state makes the phone forget its seat: where one shows it free, or
// the phone knows no seat while seats are taken (a take whose answer was lost, a phone
// that forgot), the phone asks the box (POST /api/phones/here: its seat in the current
// game, or null when it holds none), one question at a time and in turn with the taking
// of a seat, and believes the answer. A seat the box holds for this phone is taken back.
import { post } from "./api.js";

const TOKEN_KEY = "buzzerbox.phone";
const SEAT_KEY = "buzzerbox.phone-seat";

/** This phone's token: 128 random bits, made once, kept on the phone. From
 * crypto.getRandomValues, never crypto.randomUUID: a page the box serves over plain http
 * on the table's network is no "secure context", and there a browser has no randomUUID
 * (loopback is one: only a real network showed it, tests/net). */
export function phoneToken() {
  let t = localStorage.getItem(TOKEN_KEY);
  if (!t) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    t = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem(TOKEN_KEY, t);
  }
  return t;
}

/** The seat this phone took in game `gameId`, or null. */
export function mySeat(gameId) {
  const [game, seat] = (localStorage.getItem(SEAT_KEY) || "").split(":");
  return game === String(gameId) && seat !== undefined ? Number(seat) : null;
}

const keep = (gameId, seat) => localStorage.setItem(SEAT_KEY, `${gameId}:${seat}`);

export class MySeat {
  /**
   * `within(promise)`: the promise, or an ApiError of status 0 once the phone stops
   * waiting; `heard(answered)`: whether the box answered the last request; `state()`:
   * the latest state; `changed()`: draw again (the seat, or what is known of it, moved);
   * `report(error)`: a refusal to show.
   */
  constructor({ within, heard, state, changed, report }) {
    Object.assign(this, { within, heard, state, changed, report });
    this.line = Promise.resolve(); // the questions and takes, one at a time, in order
    this.waiting = 0; // questions not yet answered
    this.taking = false; // a take is on its way: no question before its answer
    this.asked = null; // what the last question was about: each doubt is asked once
    this.looked = null; // the game whose seat the box was asked for
  }

  /** Whether the phone keeps a seat (of any game: a rematch's is asked for). */
  held() {
    return localStorage.getItem(SEAT_KEY) !== null;
  }

  inTurn(work) {
    this.line = this.line.then(work, work);
    return this.line;
  }

  /** Take `seat` of game `gameId`. */
  take(gameId, seat) {
    this.taking = true;
    return this.inTurn(async () => {
      let lost = false;
      try {
        await this.within(post("/api/phones/seat", { seat, token: phoneToken() }));
        keep(gameId, seat);
        this.heard(true);
        this.report({ message: "" });
      } catch (err) {
        this.heard(err.status !== 0);
        lost = err.status === 0; // it may have reached the box: ask it
        this.report(err);
      } finally {
        this.taking = false;
      }
      if (lost) this.asked = null;
      this.changed();
    });
  }

  /** Tell the box this phone is there (its seat is not offline) and learn its seat in the
   * current game (a rematch, or a new game of the same players, keeps it under a new
   * game id; the host may have freed it). The answer also tells the phone that the box
   * hears it again after a request went unanswered. */
  ask() {
    this.waiting += 1;
    return this.inTurn(async () => {
      const st = this.state();
      try {
        if (!st || !st.game || !st.box?.phones?.on) return;
        const answer = await this.within(post("/api/phones/here", { token: phoneToken() }));
        this.heard(true);
        if (Number.isInteger(answer?.game_id) && Number.isInteger(answer?.seat)) keep(answer.game_id, answer.seat);
        else if (answer?.seat === null) localStorage.removeItem(SEAT_KEY); // a new game freed it
        this.looked = st.box.game_id;
      } catch (err) {
        this.heard(err.status !== 0);
        // phones are off (or an older box's 409 for no seat): forget it
        if (err.code === "no-seat-held" || err.code === "phones-off") localStorage.removeItem(SEAT_KEY);
        if (err.status !== 0) this.looked = st.box.game_id;
      } finally {
        this.waiting -= 1;
      }
      this.changed();
    });
  }

  /**
   * What state `st` leaves in doubt, asked of the box once: `mine` (the seat kept for
   * this game, or null) shown free, or seats `taken` and none known as this phone's.
   * True while the box has not yet answered for this game and the phone has no seat:
   * the page says it is finding it, rather than offer a picker.
   */
  doubt(st, mine, taken) {
    const phones = st.box?.phones;
    let doubt = null;
    if (st.game && phones?.on && !this.taking) {
      if (mine !== null) {
        if (!taken.has(mine) || mine >= st.players.length) doubt = `free ${st.box.game_id}:${mine}`;
      } else if (taken.size || this.held()) doubt = `none ${st.box.game_id}`;
    }
    if (doubt === null) this.asked = null; // nothing in doubt: the next doubt is asked again
    else if (doubt !== this.asked) {
      this.asked = doubt;
      this.ask();
    }
    return mine === null && doubt !== null && this.looked !== st.box.game_id;
  }
}
