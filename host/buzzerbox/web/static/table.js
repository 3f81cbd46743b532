// The table view, behind the admin PIN: a new game, seats and pads (enrolment of
// real pads: the box waits for the next press), rounds, the scoring entries, undo
// and finish.
import { logout, post, send, session, whenAuthLost } from "./api.js";
import { boardNotice } from "./boardnotice.js";
import { run, startCall } from "./common.js";
import { $, confirmButton, dot, fill, h, keyed, linked, nameList, num, ownName, plural, seatClass, signed } from "./dom.js";
import { conflictKey, conflictPanel, conflictWarning, noteReplaced, whenChosen } from "./conflict.js";
import { busy } from "./forms.js";
import { course, crown, lastPoints, leftCounts, phaseLine, ranking, winnersTitle } from "./game.js";
import { lang, t, tn } from "./i18n.js";
import { pinForm } from "./login.js";
import { newGameForm } from "./newgame.js";
import { roundsCard, undoButton, voidPanel } from "./mistakes.js";
import { isMine, own, scoringStage, whenLost } from "./scoring.js";
import { renderPhones, renderSeats } from "./seats.js";
import { shareButton } from "./share.js";
import { tvPairing } from "./tvpair.js";

let admin = false;
let state = null;
let newGame = false; // the new-game form was asked for while a game goes on

const boards = boardNotice($("#board-note")); // a pad board gone, and its pads
const notice = h("p", { class: "form-error", role: "alert", "data-testid": "table-error" });
const conflictSlot = h("div", { class: "conflict-slot", "data-testid": "conflict-slot" });

/** Show a refusal that has no field of its own. */
function report(err) {
  notice.textContent = err.message;
}

function lock(why) {
  admin = false;
  $("#admin").hidden = true;
  pinForm($("#login"), unlock, why);
}

function unlock() {
  admin = true;
  $("#login").hidden = true;
  $("#admin").hidden = false;
  if (state) render(state);
}

whenAuthLost((err) => {
  if (admin) lock(err.message || t("The box asks for the PIN again."));
});

/** The event's broker, when the box publishes to one and it is not connected: why. */
function brokerLine(st) {
  const mqtt = st.box && st.box.mqtt;
  if (!mqtt || mqtt.state === "connected") return null;
  const text = (mqtt.said && mqtt.said[lang]) || mqtt.text; // said in each language by the box
  return h("p", { class: "muted", "data-testid": "broker" }, t("MQTT: {text}", { text }));
}

function renderStatus(st) {
  const el = $("#status");
  if (!st.game) {
    fill(
      el,
      h("h2", {}, t("No game yet")),
      h("p", { class: "muted" }, t("Make one below: the scoreboard follows it.")),
      brokerLine(st),
    );
    return;
  }
  fill(
    el,
    h(
      "p",
      { class: "hero-meta" },
      h("span", { class: "chip" }, st.title),
      st.round && st.game !== "twinit" ? h("span", { class: "chip" }, t("Round {round}", { round: st.round })) : null,
      course(st) ? h("span", { class: "chip" }, course(st)) : null,
    ),
    h(
      "p",
      { class: "phase-line", "data-testid": "phase", "data-phase": st.phase },
      h("span", { class: `phase-dot phase-${st.phase}` }),
      phaseLine(st),
    ),
    h(
      "ul",
      { class: "mini-totals", "data-testid": "mini-totals" },
      ranking(st).map(({ seat, player }) =>
        h(
          "li",
          { class: seatClass(seat) },
          dot(seat),
          h("span", { class: "name" }, player.name),
          h(
            "strong",
            {},
            st.game === "twinit"
              ? String((player.takes || []).length)
              : leftCounts(st)
                ? t("{n} left", { n: player.left })
                : num(player.total),
          ),
        ),
      ),
    ),
    brokerLine(st),
  );
}

function startButton(st) {
  const label =
    st.game === "twinit" ? t("Start the game") : st.round ? t("Start round {round}", { round: st.round + 1 }) : t("Start round 1");
  const b = h("button", { type: "button", class: "primary big go", "data-testid": "start-round" }, label);
  b.addEventListener("click", () => busy(b, () => send("round").catch(report)));
  return b;
}

/** Twin It!: who starts, as the box drew it when the game was made (every phone shows it). */
function drawStarter(st) {
  return h(
    "div",
    { class: "twinit-start" },
    h(
      "p",
      { class: "starter", "data-testid": "starter" },
      st.first_name ? t("The box drew who starts: {name}.", { name: st.first_name }) : t("The player wearing the most colours starts."),
    ),
  );
}

function lobbyStage(st) {
  return h(
    "div",
    {},
    h("h1", {}, t("{game}: ready", { game: st.title })),
    h(
      "p",
      { class: "muted" },
      linked(tn("{n} player: {names}.", "{n} players: {names}.", st.players.length, { names: "{names}" }), {
        names: nameList(st.players.map((p) => p.name)),
      }),
      " ",
      t("Check each seat's pad below, then start: the box counts “3 – 2 – 1 {call}”", { call: startCall(st.title, st.game) }),
    ),
    st.game === "twinit" ? drawStarter(st) : null,
    startButton(st),
  );
}

function scoredStage(st) {
  const last = (st.history || []).at(-1);
  return h(
    "div",
    {},
    h("h1", {}, t("Round {round} is scored", { round: st.round })),
    st.tie_at_top ? h("p", { class: "badge warn" }, t("A tie at the top: play on until one leads")) : null,
    last
      ? h(
          "ul",
          { class: "round-points", "data-testid": "round-points" },
          st.players.map((p, seat) =>
            h(
              "li",
              { class: seatClass(seat) },
              dot(seat),
              h("span", { class: "name" }, p.name),
              h(
                "span",
                { class: "pts" },
                st.game === "kids"
                  ? tn("{n} card", "{n} cards", lastPoints(st, p.name) ?? 0)
                  : signed(lastPoints(st, p.name) ?? 0),
              ),
              h("span", { class: "muted small" }, `= ${num(p.total)}`),
            ),
          ),
        )
      : null,
    startButton(st),
  );
}

function finishedStage(st) {
  const names = st.winners || [];
  return h(
    "div",
    { class: "finished" },
    h(
      "div",
      { class: "winners", "data-testid": "table-winners" },
      crown("crown big"),
      h("h1", {}, winnersTitle(names)),
    ),
    rematchButton(),
    shareButton(st),
    exports(),
    h("hr"),
    newGameForm(() => {}),
  );
}

/** The PIN as a QR code, shown on a tap: a second scorekeeper scans it. */
function pinCode() {
  const img = h("img", { alt: t("QR code of the admin PIN"), width: 160, height: 160, class: "qr", "data-testid": "pin-qr", hidden: true });
  const b = h("button", { type: "button", class: "ghost", "aria-expanded": "false", "data-testid": "show-pin" }, t("Show the PIN as a QR code"));
  // what to do with it: the code holds the PIN's digits, read by a phone's camera
  const how = h(
    "p",
    { class: "muted small", "data-testid": "pin-how", hidden: true },
    t("For a second scorekeeper: scan this code with your phone's camera, open the Table tab on your phone and type the digits it shows as the PIN."),
  );
  b.addEventListener("click", () => {
    img.hidden = !img.hidden;
    how.hidden = img.hidden;
    if (!img.hidden) img.src = `/api/qr/pin.svg?t=${Date.now()}`;
    b.setAttribute("aria-expanded", String(!img.hidden));
    b.textContent = img.hidden ? t("Show the PIN as a QR code") : t("Hide the PIN's code");
  });
  return h("div", { class: "pin-code" }, b, img, how);
}

/** The same game again in one tap: players, seats (so colours), settings and pads. */
function rematchButton() {
  const b = h("button", { type: "button", class: "primary big", "data-testid": "rematch" }, t("Rematch: same players, seats and pads"));
  b.addEventListener("click", () => busy(b, () => post("/api/rematch", {}).catch(report)));
  return b;
}

/** Downloads: the game log any time; CSV and BG Stats once the game is finished. */
function exports(finished = true) {
  return h(
    "p",
    { class: "exports" },
    t("Download:"),
    " ",
    h("a", { href: "/api/export/log", download: "", "data-testid": "export-log" }, t("game log")),
    finished
      ? [
          " · ",
          h("a", { href: "/api/export/csv", download: "", "data-testid": "export-csv" }, "CSV"),
          " · ",
          h("a", { href: "/api/export/bgstats", download: "", "data-testid": "export-bgstats" }, "BG Stats"),
          " · ",
          h("a", { href: "/api/export/card.svg", download: "", "data-testid": "export-card" }, t("result card")),
        ]
      : null,
  );
}

function stageOf(st) {
  if (!st.game) return { key: "new", build: () => newGameForm(() => {}) };
  const names = st.players.map((p) => p.name).join("|");
  if (newGame) {
    return {
      key: `new|${names}`,
      build: () =>
        newGameForm(
          () => {
            newGame = false;
            render(state);
          },
          () => {
            newGame = false;
            render(state);
          },
        ),
    };
  }
  const base = `${st.game}|${st.round}|${st.phase}|${names}`;
  switch (st.phase) {
    case "lobby":
      return { key: `${base}|${st.first_name}`, build: () => lobbyStage(st) };
    case "countdown":
      return {
        key: base,
        build: () =>
          h("div", {}, h("h1", {}, t("Round {round}", { round: st.round })), h("p", { class: "muted" }, t("3 – 2 – 1 {call}", { call: startCall(st.title, st.game) }))),
      };
    case "scored":
      return { key: `${base}|${st.history.length}|${st.tie_at_top}`, build: () => scoredStage(st) };
    case "finished":
      return { key: `${base}|${(st.winners || []).join("|")}`, build: () => finishedStage(st) };
    default:
      return (
        scoringStage(st, report) || {
          key: base,
          build: () => h("p", { class: "muted" }, t("Round {round}: {phase}.", { round: st.round, phase: st.phase })),
        }
      );
  }
}

/** A form with counts typed here, about to be replaced by what another phone did. */
function replacedForm(stage, key, seq) {
  const open = stage.querySelector("form.counts[data-dirty]");
  if (!open || stage.dataset.key === key) return null;
  return isMine(key, (st) => stageOf(st).key, seq) ? null : open;
}

function renderStage(st) {
  const { key, build } = stageOf(st);
  const stage = $("#stage");
  const lost = replacedForm(stage, key, st.box?.seq);
  if (lost) noteReplaced(lost, st); // what was typed stays in view beside what was saved
  if (keyed(stage, key, build)) notice.textContent = conflictWarning(st);
  if (!notice.isConnected) $("#stage").after(notice, conflictSlot);
  keyed(conflictSlot, conflictKey(st), () => conflictPanel(st));
}

whenLost((form) => {
  if (!state) return;
  noteReplaced(form, state);
  notice.textContent = conflictWarning(state);
  render(state);
});
whenChosen(() => {
  notice.textContent = "";
  if (state) render(state);
});

/** Undo beside the stage, the presses to take back, the rounds to correct. */
function renderMistakes(st) {
  const on = Boolean(st.game) && !newGame;
  keyed($("#undo-slot"), `${on}|${st.undoable}|${st.undo?.text}|${st.round}`, () => (on ? undoButton(st, report) : null));
  const playing = ["playing", "scoring"].includes(st.phase);
  const presses = $("#presses");
  const pressKey = JSON.stringify([on && playing, st.round, st.go_t_us, st.race, st.late, st.claim, st.voided]);
  keyed(presses, pressKey, () => (on && playing ? voidPanel(st, report) : null));
  presses.hidden = !presses.firstChild;
  const rounds = $("#scored-rounds");
  keyed(rounds, JSON.stringify([on, st.box?.game_id, st.phase === "finished", st.history]), () =>
    on ? roundsCard(st) : null,
  );
  rounds.hidden = !rounds.firstChild;
}

function renderTools(st) {
  const el = $("#tools");
  const key = `${st.game}|${st.phase}|${newGame}`;
  keyed(el, key, () => {
    const items = [];
    if (st.game && st.phase !== "finished") {
      items.push(
        confirmButton(
          { class: "ghost danger", "data-testid": "finish" },
          t("Finish and score now"),
          t("Tap again: the game ends now"),
          () => own(() => send("finish")).catch(report),
        ),
      );
      if (!newGame) {
        items.push(
          confirmButton({ class: "ghost", "data-testid": "new-game" }, t("New game…"), t("Tap again: leave this game"), () => {
            newGame = true;
            render(state);
          }),
        );
      }
    }
    if (st.game && st.phase !== "finished") items.push(exports(false));
    items.push(pinCode());
    items.push(tvPairing(report));
    items.push(
      h(
        "button",
        {
          type: "button",
          class: "ghost small-btn",
          "data-testid": "logout",
          onclick: () => logout().finally(() => lock(t("Locked."))),
        },
        t("Lock the table view"),
      ),
    );
    return h("div", { class: "tools" }, h("h2", {}, t("Tools")), items);
  });
}

function render(st) {
  if (!admin) return;
  boards(st);
  renderStatus(st);
  renderStage(st);
  renderSeats(st, report, newGame);
  renderMistakes(st);
  renderPhones(st, report, newGame);
  renderTools(st);
}

async function boot() {
  const s = await session().catch(() => ({ admin: false }));
  if (s.admin) unlock();
  else lock();
  run((st) => {
    state = st;
    render(st);
  });
}

boot();
