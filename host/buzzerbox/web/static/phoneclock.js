// This phone's clock mapped onto the box's, over the link to it (NTP-style): the phone
// asks GET /api/clock, noting when it asked and when the answer came on its own clock
// (performance.now(): the clock of an event's timeStamp); the box read its clock in
// between. The exchange with the shortest round trip says the most: the offset is
// box − the midpoint, give or take half the round trip (plus the drift since). The box
// checks what a press says against the press's arrival (web/phonetime.py), and never
// places it earlier than this phone's link allows: the box names the link in its
// answer (`link`), measures its round trips from the exchanges that name it, and each
// press names it too (web/phonelinks.py).
import { get } from "./api.js";

/** How far a phone's clock may run from the box's (grows an old exchange's error). */
const DRIFT_PPM = 50;
/** performance.now() is rounded to 0.1 ms on a page that is not cross-origin isolated. */
const RESOLUTION_US = 100;
const KEEP = 16; // exchanges kept, the newest
const BURST = 8; // exchanges at the start, when the phone wakes up, before a round
const EVERY_MS = 15_000; // one more now and then: clocks drift, wifi changes

/** One exchange: asked and answered at `sentMs` and `receivedMs` (phone), the box's µs. */
export function sample(sentMs, receivedMs, boxUs) {
  const rttUs = (receivedMs - sentMs) * 1000;
  return { at: receivedMs, offsetUs: boxUs - ((sentMs + receivedMs) / 2) * 1000, errorUs: rttUs / 2 + RESOLUTION_US };
}

/** How far off exchange `s` may be at phone time `nowMs` (µs). */
export const errorAt = (s, nowMs) => s.errorUs + Math.max(0, nowMs - s.at) * DRIFT_PPM / 1000;

/** The exchange that says the most at `nowMs`: the smallest error; null if none. */
export function best(samples, nowMs) {
  let found = null;
  for (const s of samples) if (!found || errorAt(s, nowMs) < errorAt(found, nowMs)) found = s;
  return found;
}

/** `phoneMs` (a timeStamp) on the box's clock: {touch_us, error_us}, or {} with no map. */
export function toBox(samples, phoneMs, nowMs) {
  const s = best(samples, nowMs);
  if (!s) return {};
  return { touch_us: Math.round(phoneMs * 1000 + s.offsetUs), error_us: Math.ceil(errorAt(s, nowMs)) };
}

export class PhoneClock {
  constructor() {
    this.samples = [];
    this.timer = null;
    this.link = null; // the box's name for this phone's link, once it answered
  }

  /** One exchange; `follows`: it is asked as soon as the last one was answered (the
   * box counts the time between them as one round trip of this phone's link). */
  async exchange(follows = false) {
    const link = this.link ? `&link=${encodeURIComponent(this.link)}${follows ? "&follows=1" : ""}` : "";
    const path = `/api/clock?n=${(this.n = (this.n || 0) + 1)}${link}`;
    let sent = performance.now();
    const answer = await get(path);
    const box = answer.now_us;
    if (typeof answer.link === "string") this.link = answer.link;
    let received = performance.now();
    // the browser's own record of the request, if it has it: when it went out and when
    // the answer began, without the time this page's script took to see it
    const net = performance.getEntriesByName(new URL(path, location.href).href).at(-1);
    if (net && net.requestStart > 0 && net.responseStart >= net.requestStart) {
      [sent, received] = [net.requestStart, net.responseStart];
    }
    performance.clearResourceTimings(); // the browser keeps only so many
    this.samples = [...this.samples, sample(sent, received, box)].slice(-KEEP);
  }

  /** A few exchanges now (one after the other), then one every EVERY_MS. */
  async burst() {
    clearTimeout(this.timer);
    try {
      for (let i = 0; i < BURST; i += 1) await this.exchange(i > 0);
    } catch {
      // the box is away: the presses go timed by their arrival until it answers
    }
    this.timer = setTimeout(() => this.burst(), EVERY_MS);
  }

  start() {
    this.burst();
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.burst();
    });
    return this;
  }

  /** The touch at `timeStamp` on the box's clock and the link, for a press's body. */
  map(timeStamp) {
    const mapped = toBox(this.samples, timeStamp, performance.now());
    return this.link ? { ...mapped, link: this.link } : mapped;
  }
}
