// The pads page. On a simulated box: the virtual pads, every pad a big button, and
// keys: 1–9, 0 the stop (Twin It!: slap) pad of seats 1–10; Twist piles: q w e r t y
// u i for piles 1–8 of the chosen seat (tap a seat's name to choose it). On every box:
// the pad test (padtest.js), every pad edge as it comes. A virtual press is timed where
// the key or the tap was (event.timeStamp), mapped to the box's clock as a guest's
// buzzer phone does (phoneclock.js): two keys pressed together land together, however
// the requests queue. The virtual pads are the table's: without the admin session
// (or a box started with --open-pads) the page asks for the PIN before it shows them.
import { post, session, whenAuthLost } from "./api.js";
import { run } from "./common.js";
import { $, decimal, dot, fill, h, lead, linked, ownName, seatClass } from "./dom.js";
import { foulNews } from "./game.js";
import { t } from "./i18n.js";
import { pinForm } from "./login.js";
import { renderPadTest } from "./padtest.js";
import { PhoneClock } from "./phoneclock.js";

const FOULS = { blocked: t("blocked"), "third hand": t("third hand") };
const SEAT_KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"];
const PILE_KEYS = ["q", "w", "e", "r", "t", "y", "u", "i"];

let state = null;
let admin = null; // the admin session: null until the box has said
let chosen = 0; // the seat the pile keys play for
const held = new Map(); // "seat/pad/pile" -> the button, while it is down

const idOf = (seat, pad, pile) => `${seat}/${pad}/${pile ?? ""}`;

const clock = new PhoneClock().start();

/** How the box timed the last edge: at the key or tap, or at its arrival (and why). */
function timed(answer) {
  const pt = answer && answer.press_time;
  const el = $("#pads-timing");
  if (!pt || !el) return;
  el.dataset.from = pt.from;
  el.textContent =
    pt.from === "touch"
      ? t("Timed at the key or the tap, to the ms (±{ms} ms; a wired pad: the µs).", {
          ms: decimal(pt.error_us / 1000, 1),
        })
      : t("Timed when it reached the box: {why}.", { why: pt.why });
}

// presses and releases go out one after the other: a release never overtakes its press
let queue = Promise.resolve();
function sendPad(kind, seat, pad, pile, timeStamp = performance.now()) {
  const body = { seat, pad, ...clock.map(timeStamp) };
  if (pile !== null && pile !== undefined) body.pile = pile;
  queue = queue.then(() => {
    // the key's age as the request leaves (a queued edge waited for the one before)
    body.ago_ms = Math.round(Math.max(0, Math.min(2000, performance.now() - timeStamp)) * 1000) / 1000;
    return post(`/api/pads/${kind}`, body).then((answer) => {
      report({ message: "" });
      timed(answer);
    }, report);
  });
  return queue;
}

function mainPad(st) {
  return st.game === "twinit" ? "slap" : "stop";
}

function report(err) {
  const el = $("#pad-error");
  if (el) el.textContent = err.message;
}

function press(seat, pad, pile, button, timeStamp) {
  const id = idOf(seat, pad, pile);
  if (held.has(id)) return;
  held.set(id, button);
  button?.classList.add("down");
  sendPad("press", seat, pad, pile, timeStamp);
}

function release(seat, pad, pile, timeStamp) {
  const id = idOf(seat, pad, pile);
  if (!held.has(id)) return;
  const button = held.get(id);
  held.delete(id);
  button?.classList.remove("down");
  sendPad("release", seat, pad, pile, timeStamp);
}

/** A pad button: pressed while a finger (or the mouse) is on it. */
function padButton(seat, pad, pile, label, key, props = {}) {
  const b = h(
    "button",
    {
      type: "button",
      class: `pad pad-${pad} ${seatClass(seat)}`,
      "data-testid": pile === null ? `pad-${pad}-${seat}` : `pad-pile-${seat}-${pile}`,
      "data-seat": seat,
      ...props,
    },
    h("span", { class: "pad-label" }, label),
    key ? h("kbd", {}, key.toUpperCase()) : null,
  );
  b.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    b.setPointerCapture?.(e.pointerId);
    press(seat, pad, pile, b, e.timeStamp);
  });
  const up = (e) => release(seat, pad, pile, e.timeStamp);
  b.addEventListener("pointerup", up);
  b.addEventListener("pointercancel", up);
  b.addEventListener("lostpointercapture", up);
  b.addEventListener("contextmenu", (e) => e.preventDefault());
  // keyboard users: Enter or Space on a focused pad is a short press
  b.addEventListener("keydown", (e) => {
    if ((e.key === "Enter" || e.key === " ") && !e.repeat) {
      e.preventDefault();
      e.stopPropagation();
      press(seat, pad, pile, b, e.timeStamp);
    }
  });
  b.addEventListener("keyup", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.stopPropagation();
      release(seat, pad, pile, e.timeStamp);
    }
  });
  return b;
}

/** A seat's card: its name, its stop (or slap) pad and, in Twist, its pile pads. */
function seatCard(st, p, seat) {
  const pad = mainPad(st);
  const name = [dot(seat), h("span", { class: "name" }, p.name)];
  const choose =
    st.game === "twist"
      ? h(
          "button",
          {
            type: "button",
            class: "seat-name",
            "aria-pressed": "false",
            title: t("Choose this seat for the pile keys"),
            onclick: () => {
              chosen = seat;
              update(state);
            },
          },
          name,
        )
      : h("span", { class: "seat-name" }, name);
  return h(
    "article",
    { class: `seat-card ${seatClass(seat)}`, "data-testid": `seat-card-${seat}`, "data-seat": seat },
    h("header", {}, choose, h("span", { class: "seat-news" })),
    padButton(seat, pad, null, pad === "slap" ? t("Slap") : t("Stop"), SEAT_KEYS[seat]),
    st.game === "twist"
      ? h(
          "div",
          { class: "piles" },
          Array.from({ length: st.piles || 0 }, (_, pile) =>
            padButton(seat, "pile", pile, String(pile + 1), PILE_KEYS[pile], {
              "aria-label": t("{name}: pile {pile}", { name: p.name, pile: pile + 1 }),
            }),
          ),
        )
      : null,
  );
}

/** What changes while the buttons stay: first, late, false starts, piles held, keys. */
function update(st) {
  if (!st || !st.game) return;
  const blocked = new Set(st.blocked || []);
  st.players.forEach((p, seat) => {
    const card = document.querySelector(`[data-testid="seat-card-${seat}"]`);
    if (!card) return;
    const first = Boolean(st.race && st.race.length && st.race[0].seat === seat);
    const late = (st.late || []).find((x) => x.seat === seat);
    const falseStart = (st.false_starts || []).some((x) => x.seat === seat);
    card.classList.toggle("first", first);
    const chooser = card.querySelector("button.seat-name");
    if (chooser) {
      chooser.classList.toggle("chosen", chosen === seat);
      chooser.setAttribute("aria-pressed", String(chosen === seat));
    }
    fill(
      card.querySelector(".seat-news"),
      first ? h("span", { class: "badge ok", "data-testid": `first-${seat}` }, t("first!")) : null,
      late && late.lead_us != null ? h("span", { class: "badge" }, linked(t("late {lead}"), { lead: h("span", { class: "unit" }, lead(late.lead_us)) })) : null,
      falseStart ? h("span", { class: "badge bad", "data-testid": `false-${seat}` }, t("false start")) : null,
      st.phase === "playing" && st.last_foul && st.last_foul.seat === seat
        ? h("span", { class: "badge bad", "data-testid": `foul-${seat}`, title: foulNews(st) }, ownName(FOULS, st.last_foul.foul, st.last_foul.foul))
        : null,
      st.game === "twist" ? h("span", { class: "muted small" }, t("{n} left", { n: p.left })) : null,
    );
    const holding = new Set(p.holding || []);
    card.querySelectorAll(".pad-pile").forEach((b, pile) => {
      b.classList.toggle("holding", holding.has(pile));
      b.classList.toggle("blocked", !holding.has(pile) && blocked.has(pile));
      const kbd = b.querySelector("kbd");
      if (kbd) kbd.hidden = chosen !== seat;
    });
  });
}

function statusLine(st) {
  if (!st.game) return t("No game yet: make one on the table view.");
  const texts = {
    lobby:
      st.game === "twinit"
        ? t("Waiting for the start: slaps now are too early.")
        : t("Waiting for round 1: presses now are false starts."),
    countdown: t("Counting down: wait for the go!"),
    playing: st.game === "twinit" ? t("Playing: slap when you see a pair.") : t("Playing: press stop to call."),
    scoring: t("Round over: the table is counting."),
    scored: t("Round scored: the next one starts on the table view."),
    finished: t("The game is over."),
  };
  const text = ownName(texts, st.phase, st.phase);
  const round = st.round && st.game !== "twinit" ? " · " + t("round {round}", { round: st.round }) : "";
  return `${st.title}${round} · ${text}`;
}

/** Whether this page may press the virtual pads: the admin session, or open pads. */
const mayPress = (st) => admin === true || Boolean(st.box && st.box.open_pads);

function unlock() {
  admin = true;
  $("#login").hidden = true;
  if (state) draw(state);
}

/** The PIN form, once: asked before the pads show, or when the session is lost. */
function askPin(why) {
  if (!$("#login").hidden) return;
  pinForm($("#login"), unlock, why);
}

function draw(st) {
  const box = st.box || {};
  const real = box.simulated === false;
  const locked = !real && !mayPress(st);
  if (locked && admin === false) {
    askPin(t("The virtual pads are the table's: enter the admin PIN to use them."));
  } else if (!locked) {
    $("#login").hidden = true;
  }
  fill(
    $("#status"),
    h("p", { "data-testid": "pads-phase", "data-phase": st.phase || "" }, statusLine(st)),
    real ? h("p", { class: "badge warn" }, t("This box has real pads: press them, and see each one in the pad test below.")) : null,
  );
  // the pads' ids and the box's raw µs are the builder's, behind the PIN
  renderPadTest($("#padtest"), st, { raw: real || admin === true });
  const el = $("#pads");
  el.hidden = !st.game || real || locked;
  $("#keys-help").hidden = el.hidden;
  $("#pads-timing").hidden = el.hidden;
  if (el.hidden) {
    el.replaceChildren();
    el.dataset.key = "";
    return;
  }
  // the buttons stay while the game and its seats do: a held pad is never rebuilt
  const key = `${st.box?.game_id}|${st.game}|${st.players.map((p) => p.name).join("|")}|${st.piles || 0}`;
  if (el.dataset.key !== key) {
    el.dataset.key = key;
    el.classList.toggle("twist", st.game === "twist");
    for (const [id, button] of held) {
      held.delete(id);
      button?.classList.remove("down");
    }
    fill(el, st.players.map((p, seat) => seatCard(st, p, seat)));
  }
  update(st);
  $("#keys-help").textContent =
    st.game === "twist"
      ? t("Keys: 1–9, 0 stop for seats 1–10; Q W E R T Y U I piles 1–8 of the chosen seat.")
      : mainPad(st) === "slap"
        ? t("Keys: 1–9, 0 slap for seats 1–10. Hold a key to hold the pad.")
        : t("Keys: 1–9, 0 stop for seats 1–10. Hold a key to hold the pad.");
  const timing = $("#pads-timing");
  if (!timing.dataset.from) {
    timing.textContent = t("Presses here are timed at the key or the tap, to the ms (a wired pad: the µs).");
  }
}

function keyTarget(e) {
  if (!state || !state.game || $("#pads").hidden) return null;
  const k = e.key.toLowerCase();
  const seat = SEAT_KEYS.indexOf(k);
  if (seat >= 0 && seat < state.players.length) return [seat, mainPad(state), null];
  const pile = PILE_KEYS.indexOf(k);
  if (state.game === "twist" && pile >= 0 && pile < (state.piles || 0)) return [chosen, "pile", pile];
  return null;
}

function buttonFor(seat, pad, pile) {
  const id = pile === null ? `pad-${pad}-${seat}` : `pad-pile-${seat}-${pile}`;
  return document.querySelector(`[data-testid="${id}"]`);
}

document.addEventListener("keydown", (e) => {
  if (e.repeat || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.target instanceof HTMLInputElement) return;
  const target = keyTarget(e);
  if (!target) return;
  e.preventDefault();
  press(...target, buttonFor(...target), e.timeStamp);
});
document.addEventListener("keyup", (e) => {
  const target = keyTarget(e);
  if (target) release(...target, e.timeStamp);
});
window.addEventListener("blur", () => {
  for (const id of [...held.keys()]) {
    const [seat, pad, pile] = id.split("/");
    release(Number(seat), pad, pile === "" ? null : Number(pile));
  }
});

whenAuthLost((err) => {
  admin = false;
  askPin(err.message);
  if (state) draw(state);
});

session()
  .then((s) => (admin = Boolean(s.admin)))
  .catch(() => (admin = false))
  .finally(() => state && draw(state));
run((st) => {
  // a round is about to start: the box is quiet, a good moment to match clocks again
  if (st.phase === "countdown" && state?.phase !== "countdown") clock.burst();
  state = st;
  draw(st);
});
