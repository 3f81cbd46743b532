// Watching the live stream's keepalives. The box sends one every `every` ms when it has
// nothing else to send (the first at once, saying how often: live/livestate.py), and so
// does the event's hub (live/sse.py `Live`; its page loads this file from the hub); a
// link that went quiet for two of them (a box switched off, a phone out of the wifi:
// no error comes, the stream just stops) is taken for lost.

/** How often keepalives come until the box says (its default). */
const DEFAULT_EVERY_MS = 2000;
/** Room for a keepalive that is late (a busy box, a slow wifi). */
const GRACE_MS = 500;

export class Watchdog {
  /** `whenLost()` runs once the stream was quiet for two keepalives and a bit. */
  constructor(whenLost, every = DEFAULT_EVERY_MS) {
    this.whenLost = whenLost;
    this.every = every;
    this.timer = null;
    this.heard();
  }

  /** Something came (a keepalive saying `every` ms, a state, a delta): the link lives. */
  heard(every = null) {
    const ms = Number(every);
    if (every !== null && Number.isFinite(ms) && ms > 0) this.every = ms;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.whenLost();
    }, 2 * this.every + GRACE_MS);
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
  }
}
