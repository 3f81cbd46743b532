// What every page shares: the live dot, the countdown, the box's addresses and codes,
// the way to a buzzer.
import { follow } from "./api.js";
import { $, fill, h, ownName, useColours } from "./dom.js";
import { choose, t } from "./i18n.js";
import "./fit.js"; // every name whole, on every page

const STATUS_TEXT = {
  connecting: t("connecting to the box"),
  live: t("connected to the box"),
  reconnecting: t("reconnecting to the box…"),
  offline: t("the box is not answering: trying again…"),
};

/** The live dot, and in words under the bar whenever the link is not live. */
function setStatus(status) {
  const el = $("#live");
  if (!el) return;
  el.dataset.status = status;
  el.title = ownName(STATUS_TEXT, status, status);
  const note = $("#link-note");
  if (!note) return;
  note.dataset.status = status;
  note.hidden = status === "live";
  note.textContent = status === "live" ? "" : el.title;
}

/** How long the log may be behind what the pages show before they say so, ms: an
 * fsync of a few tens of ms is an SD card's usual; a stall is not. */
export const SAVING_AFTER_MS = 400;
let savingTimer = null;

/** "Saving…" while the box shows a move its memory card has not confirmed yet
 * (state.box.unsaved, store/behind.py: a power cut now could take it back), once that
 * lasted SAVING_AFTER_MS; gone as soon as the card confirms it. */
export function showSaving(state) {
  const el = $("#save-note");
  if (!el) return;
  const unsaved = state?.box?.unsaved ?? null;
  if (unsaved === null) {
    clearTimeout(savingTimer);
    savingTimer = null;
    el.hidden = true;
    return;
  }
  if (!el.hidden || savingTimer !== null) return;
  el.textContent = t("Saving…");
  el.title = t("Shown before the box's memory card confirmed it: a power cut now could take back the last move.");
  savingTimer = setTimeout(() => {
    savingTimer = null;
    el.hidden = false;
  }, SAVING_AFTER_MS);
}

/** "3 – 2 – 1 Ligretto Twist!": the start call of a game (Ligretto Kids calls
 * "Ligretto!", as its rulebook says). */
export function startCall(title, game = null) {
  if (game === "kids") return t("Ligretto!");
  return t("{game}!", { game: (title || "Ligretto").replace(/!$/, "") });
}

/**
 * The 3 – 2 – 1 overlay. Driven by the state (phase countdown, the box's
 * countdown_ends_us against its now_us) or started by hand (a Twin It! split).
 * It never takes a tap: the page under it stays usable.
 */
class Countdown {
  constructor(el) {
    this.el = el;
    this.endAt = null; // performance.now() at which the count reaches zero
    this.call = "";
    this.title = null; // [what, how] above the count: a Twin It! split says what to do
    this.note = ""; // the page's own word above the count (the buzzer's false start)
    this.goUntil = 0;
    this.frame = null;
    /** what follows the count (the TV's beeps): {started(ms), went(), stopped()} */
    this.listener = null;
    /** whether something the page shows has the screen (the TV's big moment): the call
     * after the count ("Twin It!") then ends at once, never drawn over it; a count
     * still running is not cut */
    this.yieldsTo = () => false;
  }

  start(ms, call) {
    this.endAt = performance.now() + Math.max(ms, 0);
    this.call = call;
    this.goUntil = 0;
    this.listener?.started(Math.max(ms, 0));
    this.tick();
  }

  go(call) {
    if (this.endAt === null && !this.goUntil) return;
    if (this.endAt !== null) this.listener?.went(); // the box's go came first
    this.endAt = null;
    this.call = call || this.call;
    this.goUntil = performance.now() + 1200;
    this.tick();
  }

  stop() {
    if (this.endAt !== null) this.listener?.stopped();
    this.endAt = null;
    this.goUntil = 0;
    this.tick();
  }

  /** Say `note` above the count (nothing: ""), at once: nothing the page says hides
   * behind the count. */
  say(note) {
    if (note === this.note) return;
    this.note = note;
    if (!this.el.hidden) this.draw(Number(this.el.dataset.shown));
  }

  draw(current) {
    const parts = ["3", "2", "1", this.call];
    fill(
      this.el,
      h(
        "div",
        { class: `countdown-box${this.title ? " titled" : ""}` },
        this.note ? h("p", { class: "countdown-note", "data-testid": "countdown-note", role: "alert" }, this.note) : null,
        this.title
          ? h("div", { class: "countdown-title", "data-testid": "countdown-title" }, h("p", { class: "countdown-what" }, this.title[0]), h("p", {}, this.title[1]))
          : null,
        h("div", { class: `countdown-big${current === 3 ? " go" : ""}`, "data-testid": "countdown-big" }, parts[current]),
        h(
          "div",
          { class: "countdown-call" },
          parts.map((p, i) => [
            i ? h("span", { class: "sep" }, i < 3 ? " – " : " ") : null,
            h("span", { class: i === current ? "now" : i < current ? "done" : "" }, p),
          ]),
        ),
      ),
    );
  }

  tick() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = null;
    const now = performance.now();
    if (this.endAt !== null) {
      const left = this.endAt - now;
      if (left > 0) {
        const n = Math.min(3, Math.ceil(left / 1000));
        this.show(3 - n);
      } else {
        this.endAt = null;
        this.goUntil = now + 1200;
        this.show(3);
      }
    } else if (this.goUntil > now && !this.yieldsTo()) {
      this.show(3);
    } else {
      this.goUntil = 0;
      this.el.hidden = true;
      this.el.dataset.shown = "";
      return;
    }
    this.frame = requestAnimationFrame(() => this.tick());
  }

  show(current) {
    if (this.el.dataset.shown !== String(current) || this.el.hidden) {
      this.el.hidden = false;
      this.el.dataset.shown = String(current);
      this.draw(current);
    }
  }

  /**
   * Follow the state: count while the box counts (the start of a round, or a
   * Twin It! split: "3 – 2 – 1" and the pair is turned over), then show the call.
   */
  update(state) {
    const box = state.box || {};
    const split = box.countdown === "split";
    const call = split ? t("Turn over!") : startCall(state.title, state.game);
    // a split's count says what it is for (on the TV it takes the split's moment's place)
    const title = split ? [t("Split!"), t("A tie: on 3 – 2 – 1, turn the pair over")] : null;
    if (box.countdown_ends_us != null && JSON.stringify(title) !== JSON.stringify(this.title)) {
      this.title = title;
      this.el.dataset.shown = ""; // drawn again with it
    }
    if (box.countdown_ends_us != null && box.now_us != null) {
      const ms = (box.countdown_ends_us - box.now_us) / 1000;
      // re-sync on every state, but do not restart a count already running
      if (this.endAt === null || Math.abs(this.endAt - (performance.now() + ms)) > 250) {
        this.start(ms, call);
      }
    } else if (state.phase === "playing") {
      this.go(this.call || call);
    } else {
      this.stop();
    }
  }
}

export const countdown = new Countdown($("#countdown"));

/** Whether this page was opened through this machine only (the box's own screen):
 * a code for that address would lead a phone nowhere. */
function openedHere() {
  const host = location.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\./.test(host);
}

/**
 * The box's addresses, as links, and the scoreboard's QR codes (img[data-qr]): for the
 * address this page was opened through, or (opened on the box itself) the box's first
 * on its network (state.box.urls, the default route's first). With neither, no code that
 * leads nowhere: "No network: phones cannot reach this box" ([data-no-network]).
 */
export function showUrls(state) {
  if (!state.box) return; // no state yet: nothing is known
  const urls = state.box.urls || [];
  const own = openedHere() ? null : `${location.protocol}//${location.host}/`;
  const links = own ? [own, ...urls.filter((u) => u !== own)] : urls;
  const reachable = links.length > 0;
  // the box makes the code for this page's Host (web/exports.py); `for` only tells a
  // new first address from the last (wifi that came up), so the image is asked again
  const src = !reachable ? "" : own ? "/api/qr/scoreboard.svg" : `/api/qr/scoreboard.svg?for=${encodeURIComponent(urls[0])}`;
  for (const img of document.querySelectorAll("img[data-qr]")) {
    if (reachable && img.getAttribute("src") !== src) img.src = src;
    img.hidden = !reachable;
  }
  for (const note of document.querySelectorAll("[data-no-network]")) note.hidden = reachable;
  const el = $("#urls");
  const key = links.join(" ");
  if (!el || el.dataset.key === key) return;
  el.dataset.key = key;
  fill(
    el,
    links.map((u) => h("a", { href: u, class: "url" }, u.replace(/^https?:\/\//, ""))),
  );
}

/** "Play on this phone" ([data-play]: the scoreboard, /join): while phones may be pads. */
function showPlay(state) {
  const on = Boolean(state.game && state.box?.phones?.on);
  for (const el of document.querySelectorAll("[data-play]")) el.hidden = !on;
}

// the language switch at every page's foot (base.html): the phone keeps the choice
$("#lang-switch")?.addEventListener("change", (e) => choose(e.target.value));

/** Start a page: follow the state and hand each one to `render` (and the link's
 * status to `onStatus`, if given: "live", "reconnecting", "offline"...). */
export function run(render, onStatus = null) {
  return follow(
    (state) => {
      try {
        useColours(state?.box?.colours);
        render(state);
      } finally {
        if (state && state.game) countdown.update(state);
        else countdown.stop();
        showUrls(state || {});
        showPlay(state || {});
        showSaving(state);
        // the box's log position this page shows (a test waits for a move to arrive)
        if (state?.box?.seq != null) document.body.dataset.seq = String(state.box.seq);
      }
    },
    (status) => {
      setStatus(status);
      onStatus?.(status);
    },
  );
}
