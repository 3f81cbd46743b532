// A guest's phone as a seat's buzzer, once the host has switched phones as pads on:
// pick your seat once (the phone keeps it), then the screen is your big button (stop,
// or slap in Twin It!; Twist: your piles too). The press time is the touch's own
// (event.timeStamp), mapped to the box's clock (phoneclock.js); and how long ago it
// was, for the box to take off the arrival when the map is missing or wrong.
// Above the button the phone says the game to its player (buzzerstatus.js), buzzing and
// sounding as the moments come if the player turned sound and vibration on (one choice). The phone says it is
// there every HERE_MS (the host's table view shows a seat whose phone went quiet); a
// press while the phone is off the box's wifi is refused here at once, in words.
import { ApiError, post } from "./api.js";
import { MySeat, mySeat, phoneToken } from "./myseat.js";
import { countdown, run } from "./common.js";
import { $, decimal, dot, fill, h, keyed, seatClass } from "./dom.js";
import { falseStartNow, statusOf } from "./buzzerstatus.js";
import { t } from "./i18n.js";
import { PhoneClock } from "./phoneclock.js";
import { buzz, fanfare, setSound, soundOn, tone } from "./sound.js";

/** how often the phone says it is there (the box: offline after 10 s unheard) */
const HERE_MS = 3000;
/** a press the box has not answered by then is said not to have reached it */
const ANSWER_MS = 2500;

function report(err) {
  $("#buzzer-error").textContent = err.message || "";
}

// -- the link to the box: the stream's status, the last "here", the phone's own wifi --

let link = "connecting";
let reached = true; // the last request to the box got an answer
const isOnline = () => navigator.onLine && link === "live" && reached;

/** `promise`, or an ApiError of status 0 once `ms` have passed without its answer. */
function within(promise, ms) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new ApiError(0, { error: t("The box did not answer in time.") })), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** how long a refusal stays in view once the phone is back (or until a press counts) */
const REFUSAL_MS = 5000;
let refusedAt = -Infinity;

/** A press not sent (or not answered): said plainly on the buzzer, with a long buzz. */
function refuse(text) {
  const el = $("#buzzer-refused");
  if (!el) return;
  el.hidden = false;
  el.textContent = text;
  refusedAt = performance.now();
  setTimeout(showLink, REFUSAL_MS + 50);
  buzz([200, 80, 200]);
}

function clearRefusal() {
  const el = $("#buzzer-refused");
  if (el) el.hidden = true;
}

/** The reconnecting note on the buzzer, and the big button greyed, while offline. */
function showLink() {
  const note = $("#buzzer-link");
  if (!note) return;
  const online = isOnline();
  note.hidden = online;
  note.dataset.status = online ? "live" : !navigator.onLine ? "offline" : link === "connecting" ? "connecting" : "reconnecting";
  note.textContent = online
    ? ""
    : !navigator.onLine
      ? t("This phone is off the wifi: reconnecting… Presses are not sent until it is back.")
      : link === "connecting"
        ? t("Connecting to the box…")
        : t("Reconnecting to the box… Presses are not sent until it answers.");
  $("#buzzer-main .buzzer")?.classList.toggle("offline", !online);
  if (online && performance.now() - refusedAt >= REFUSAL_MS) clearRefusal();
}

const clock = new PhoneClock().start();

/** How the box timed the last press: at the touch, or at its arrival (and why). */
function timed(answer) {
  const time = answer && answer.press_time;
  const el = $("#buzzer-timing");
  if (!time || !el) return;
  el.dataset.from = time.from;
  el.textContent =
    time.from === "touch"
      ? t("Timed at your touch (±{ms} ms; a wired pad: the µs).", { ms: decimal(time.error_us / 1000, 1) })
      : t("Timed when it reached the box: {why}.", { why: time.why });
}

let last = null; // the latest state: drawn again once the seat is taken
let claimOpen = null; // the latest state with a claim open: the takes before it was settled

/** This phone's seat (myseat.js): the box is the judge of it. */
const myseat = new MySeat({
  within: (promise) => within(promise, ANSWER_MS),
  heard: (answered) => {
    reached = answered;
  },
  state: () => last,
  changed: () => last && render(last),
  report,
});

// presses and releases go out in order: a release never overtakes its press
let queue = Promise.resolve();
/** Send an edge; a press while offline is not sent (false), and said so at once. */
function edge(kind, pad, pile, timeStamp) {
  if (kind === "press" && !isOnline()) {
    refuse(t("Not sent: this phone is not connected to the box. Wait until it is back, then press again."));
    return false;
  }
  const ago = Math.max(0, Math.min(2000, performance.now() - timeStamp));
  const body = { token: phoneToken(), pad, ago_ms: Math.round(ago * 1000) / 1000, ...clock.map(timeStamp) };
  if (pile !== null) body.pile = pile;
  const sent = (answer) => {
    reached = true;
    if (kind === "press") clearRefusal();
    report({ message: "" });
    timed(answer);
  };
  const failed = (err) => {
    if (err.status !== 0) return report(err);
    reached = false;
    showLink();
    if (kind === "press") refuse(t("Not counted: the press did not reach the box. Wait until it is back, then press again."));
  };
  queue = queue.then(() => within(post(`/api/phones/${kind}`, body), ANSWER_MS).then(sent, failed));
  return true;
}

setInterval(() => {
  // a seat held says it is there; and a phone whose last request went unanswered asks
  if (myseat.waiting === 0 && (myseat.held() || !reached)) myseat.ask();
}, HERE_MS);

/** A pad of this phone's seat: pressed while the finger is on it. */
function padButton(seat, pad, pile, label, big) {
  const b = h(
    "button",
    {
      type: "button",
      class: `pad pad-${pad} ${seatClass(seat)}${big ? " buzzer-big" : ""}`,
      "data-testid": pile === null ? `buzzer-${pad}` : `buzzer-pile-${pile}`,
    },
    h("span", { class: "pad-label" }, label),
  );
  let down = false;
  let sent = false;
  const press = (e) => {
    if (down) return;
    down = true;
    b.classList.add("down");
    if (b.classList.contains("locked")) return; // it waits for the table: nothing to send
    buzz(20);
    if (big && last?.phase === "countdown" && countdown.endAt !== null) {
      said = { at: sayKey(last), status: falseStartNow(countdown.endAt - e.timeStamp) };
      showStatus(last, seat);
    }
    sent = edge("press", pad, pile, e.timeStamp);
  };
  const release = (e) => {
    if (!down) return;
    down = false;
    b.classList.remove("down");
    if (sent) edge("release", pad, pile, e.timeStamp);
    sent = false;
  };
  b.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    b.setPointerCapture?.(e.pointerId);
    press(e);
  });
  for (const kind of ["pointerup", "pointercancel", "lostpointercapture"]) b.addEventListener(kind, release);
  b.addEventListener("contextmenu", (e) => e.preventDefault());
  b.addEventListener("keydown", (e) => {
    if ((e.key === "Enter" || e.key === " ") && !e.repeat) {
      e.preventDefault();
      press(e);
    }
  });
  b.addEventListener("keyup", (e) => {
    if (e.key === "Enter" || e.key === " ") release(e);
  });
  return b;
}

/** The seats to pick from; which are taken is marked in place (`markTaken`), so that a
 * guest's tap is never lost to a redraw as the others take theirs. */
function seatPicker(st) {
  return h(
    "div",
    {},
    h("h1", {}, t("Which seat is yours?")),
    h("p", { class: "muted" }, t("Pick it once: this phone keeps it for the game.")),
    h(
      "div",
      { class: "grid-buttons", "data-testid": "buzzer-seats" },
      st.players.map((p, seat) =>
        h(
          "button",
          {
            type: "button",
            class: `seat-button ${seatClass(seat)}`,
            "data-testid": `buzzer-seat-${seat}`,
            onclick: () => myseat.take(st.box.game_id, seat),
          },
          dot(seat),
          " ",
          h("span", { class: "name" }, p.name),
          h("span", { class: "muted small", hidden: true }, " " + t("taken")),
        ),
      ),
    ),
  );
}

function markTaken(el, taken) {
  el.querySelectorAll(".seat-button").forEach((b, seat) => {
    b.disabled = taken.has(seat);
    b.querySelector("span.small").hidden = !taken.has(seat);
  });
}

// -- what the buzzer says: the moment of the game, for this seat ---------------------

let said = null; // {at, status}: a false start said on the phone before the box answers
let moment = null; // the last moment buzzed and sounded for
const sayKey = (st) => `${st.box?.game_id}:${st.round}:${st.phase}`;

/** Buzz and sound once as a moment comes (a win, a false start, a place). */
function mark(st, status) {
  const key = `${st.box?.game_id}:${st.round}:${status.kind}`;
  if (key === moment) return;
  const first = moment === null;
  moment = key;
  if (first) return; // the page just opened: no fanfare for what was before
  if (status.cheer) {
    buzz([60, 40, 60, 40, 200]);
    fanfare();
  } else if (status.kind === "false") {
    buzz(400);
    tone(220, 350);
  } else if (status.kind === "place" || status.kind === "tie") {
    buzz(80);
    tone(520, 120);
  }
}

function showStatus(st, seat) {
  const el = $("#buzzer-status");
  if (!el || seat === null) return;
  let status = statusOf(st, seat, claimOpen);
  if (said && said.at === sayKey(st) && status.kind === "ready") status = said.status;
  else if (!said || said.at !== sayKey(st)) said = null;
  // a false start is said at once, above the count, never pale behind it
  countdown.say(st.phase === "countdown" && status.kind === "false" ? `${status.title} ${status.detail}` : "");
  el.dataset.kind = status.kind;
  const key = JSON.stringify([status.title, status.detail]);
  if (el.dataset.key !== key) el.dataset.key = key;
  else return lock(status);
  fill(
    el,
    h("h2", { class: "buzzer-title", "data-testid": "buzzer-title" }, status.title),
    status.detail ? h("p", { class: "buzzer-detail", "data-testid": "buzzer-detail" }, status.detail) : null,
  );
  lock(status);
  mark(st, status);
}

/** The big button waits for the table (this seat pressed; the claim, the round is open). */
function lock(status) {
  for (const b of document.querySelectorAll("#buzzer-main .buzzer-big")) {
    b.classList.toggle("locked", Boolean(status.locked));
    b.setAttribute("aria-disabled", String(Boolean(status.locked)));
  }
}

function soundButton() {
  const label = () => (soundOn() ? t("Sound and vibration: on") : t("Sound and vibration: off"));
  const b = h("button", { type: "button", class: "ghost", "data-testid": "buzzer-sound", "aria-pressed": String(soundOn()) }, label());
  b.addEventListener("click", () => {
    setSound(!soundOn()); // a tap: the browser lets the page sound from now on
    b.textContent = label();
    b.setAttribute("aria-pressed", String(soundOn()));
  });
  return b;
}

function buzzerFor(st, seat) {
  const main = st.game === "twinit" ? "slap" : "stop";
  const piles = st.game === "twist" ? Array.from({ length: st.piles || 0 }, (_, i) => i) : [];
  return h(
    "div",
    { class: `buzzer ${seatClass(seat)}`, "data-testid": "buzzer" },
    h("p", { class: "buzzer-who" }, dot(seat), " ", h("strong", {}, st.players[seat].name)),
    h("p", { class: "buzzer-link", id: "buzzer-link", "data-testid": "buzzer-link", role: "status", hidden: true }),
    h("div", { class: "buzzer-status", id: "buzzer-status", "data-testid": "buzzer-status", "aria-live": "polite" }),
    h("p", { class: "buzzer-refused", id: "buzzer-refused", "data-testid": "buzzer-refused", role: "alert", hidden: true }),
    piles.length
      ? h("div", { class: "buzzer-piles" }, piles.map((p) => padButton(seat, "pile", p, t("pile {pile}", { pile: p + 1 }), false)))
      : null,
    // the call of the game, in its rulebook's words: "Ligretto Stop!", "Twist Stopp!"
    padButton(seat, main, null, main === "slap" ? t("Slap!") : st.game === "twist" ? t("Twist Stopp!") : t("Ligretto Stop!"), true),
    h("p", { class: "muted small", id: "buzzer-timing", "data-testid": "buzzer-timing" }, t("Phone presses are timed to the ms (a wired pad: the µs).")),
    soundButton(),
  );
}

function render(st) {
  const el = $("#buzzer-main");
  const phones = (st.box && st.box.phones) || { on: false, taken: [] };
  const taken = new Set(phones.taken);
  const mine = st.game ? mySeat(st.box.game_id) : null;
  // a seat this state shows free, or seats taken and none known as this phone's: the box
  // is asked (once), and before the picker is offered in a game, "Finding your seat…"
  const finding = myseat.doubt(st, mine, taken);
  const names = (st.players || []).map((p) => p.name).join("|");
  const key = JSON.stringify([st.game, st.box?.game_id, phones.on, mine, names, Boolean(finding)]);
  keyed(el, key, () => {
    if (!st.game) return h("p", { class: "muted" }, t("No game yet: the host makes one on the table view."));
    if (finding) return h("p", { class: "muted", "data-testid": "buzzer-finding" }, t("Finding your seat…"));
    if (!phones.on) {
      return h(
        "div",
        {},
        h("h1", {}, t("Phones are no pads now")),
        h("p", { class: "muted" }, t("The host switches “phones as pads” on at the table view.")),
      );
    }
    return mine === null ? seatPicker(st) : buzzerFor(st, mine);
  });
  markTaken(el, taken);
  $("#buzzer-phase").dataset.phase = st.phase || "";
  if (st.game && phones.on && mine !== null) showStatus(st, mine);
  showLink();
}

run(
  (st) => {
    // a round is about to start: the box is quiet, a good moment to match clocks again
    if (st.phase === "countdown" && last?.phase !== "countdown") clock.burst();
    last = st;
    if (st.claim) claimOpen = st;
    render(st);
  },
  (status) => {
    link = status;
    if (status === "live" && !reached) myseat.ask(); // back: say so, and learn whether the box hears us
    showLink();
  },
);
for (const kind of ["online", "offline"]) window.addEventListener(kind, showLink);

fill($("#buzzer-error"));
