// A guest's phone as a seat's buzzer, once the host has switched phones as pads on:
// pick your seat once (the phone keeps it), then the screen is your big button (stop,
// or slap in Twin It!; Twist: your piles too). The press time is the touch's own
// (event.timeStamp), mapped to the box's clock (phoneclock.js); and how long ago it
// was, for the box to take off the arrival when the map is missing or wrong.
import { post } from "./api.js";
import { run } from "./common.js";
import { $, decimal, dot, fill, h, keyed, seatClass } from "./dom.js";
import { t } from "./i18n.js";
import { PhoneClock } from "./phoneclock.js";
import { buzz } from "./sound.js";

const TOKEN_KEY = "buzzerbox.phone";
const SEAT_KEY = "buzzerbox.phone-seat";

/** This phone's token: random, made once, kept on the phone. */
function token() {
  let t = localStorage.getItem(TOKEN_KEY);
  if (!t) {
    t = crypto.randomUUID();
    localStorage.setItem(TOKEN_KEY, t);
  }
  return t;
}

/** The seat this phone took in game `gameId`, or null. */
function mySeat(gameId) {
  const [game, seat] = (localStorage.getItem(SEAT_KEY) || "").split(":");
  return game === String(gameId) && seat !== undefined ? Number(seat) : null;
}

function report(err) {
  $("#buzzer-error").textContent = err.message || "";
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

async function takeSeat(gameId, seat) {
  try {
    await post("/api/phones/seat", { seat, token: token() });
    localStorage.setItem(SEAT_KEY, `${gameId}:${seat}`);
    report({ message: "" });
  } catch (err) {
    report(err);
  }
  if (last) render(last);
}

// presses and releases go out in order: a release never overtakes its press
let queue = Promise.resolve();
function edge(kind, pad, pile, timeStamp) {
  const ago = Math.max(0, Math.min(2000, performance.now() - timeStamp));
  const body = { token: token(), pad, ago_ms: Math.round(ago * 1000) / 1000, ...clock.map(timeStamp) };
  if (pile !== null) body.pile = pile;
  const sent = (answer) => {
    report({ message: "" });
    timed(answer);
  };
  queue = queue.then(() => post(`/api/phones/${kind}`, body).then(sent, report));
}

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
  const press = (e) => {
    if (down) return;
    down = true;
    b.classList.add("down");
    buzz(20);
    edge("press", pad, pile, e.timeStamp);
  };
  const release = (e) => {
    if (!down) return;
    down = false;
    b.classList.remove("down");
    edge("release", pad, pile, e.timeStamp);
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

function seatPicker(st, taken) {
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
            disabled: taken.has(seat),
            onclick: () => takeSeat(st.box.game_id, seat),
          },
          dot(seat),
          ` ${p.name}`,
          taken.has(seat) ? h("span", { class: "muted small" }, " " + t("taken")) : null,
        ),
      ),
    ),
  );
}

function buzzerFor(st, seat) {
  const main = st.game === "twinit" ? "slap" : "stop";
  const piles = st.game === "twist" ? Array.from({ length: st.piles || 0 }, (_, i) => i) : [];
  return h(
    "div",
    { class: `buzzer ${seatClass(seat)}`, "data-testid": "buzzer" },
    h("p", { class: "buzzer-who" }, dot(seat), " ", h("strong", {}, st.players[seat].name)),
    piles.length
      ? h("div", { class: "buzzer-piles" }, piles.map((p) => padButton(seat, "pile", p, t("pile {pile}", { pile: p + 1 }), false)))
      : null,
    // the call of the game, in its rulebook's words: "Ligretto Stop!", "Twist Stopp!"
    padButton(seat, main, null, main === "slap" ? t("Slap!") : st.game === "twist" ? t("Twist Stopp!") : t("Ligretto Stop!"), true),
    h("p", { class: "muted small", id: "buzzer-timing", "data-testid": "buzzer-timing" }, t("Phone presses are timed to the ms (a wired pad: the µs).")),
  );
}

function render(st) {
  const el = $("#buzzer-main");
  const phones = (st.box && st.box.phones) || { on: false, taken: [] };
  const taken = new Set(phones.taken);
  let seat = st.game ? mySeat(st.box.game_id) : null;
  if (seat !== null && (!taken.has(seat) || seat >= st.players.length)) {
    localStorage.removeItem(SEAT_KEY); // the host freed it, or the game is another
    seat = null;
  }
  const names = (st.players || []).map((p) => p.name).join("|");
  const key = JSON.stringify([st.game, st.box?.game_id, phones.on, seat, seat === null ? phones.taken : 0, names]);
  keyed(el, key, () => {
    if (!st.game) return h("p", { class: "muted" }, t("No game yet: the host makes one on the table view."));
    if (!phones.on) {
      return h(
        "div",
        {},
        h("h1", {}, t("Phones are no pads now")),
        h("p", { class: "muted" }, t("The host switches “phones as pads” on at the table view.")),
      );
    }
    return seat === null ? seatPicker(st, taken) : buzzerFor(st, seat);
  });
  $("#buzzer-phase").dataset.phase = st.phase || "";
}

run((st) => {
  // a round is about to start: the box is quiet, a good moment to match clocks again
  if (st.phase === "countdown" && last?.phase !== "countdown") clock.burst();
  last = st;
  render(st);
});

fill($("#buzzer-error"));
