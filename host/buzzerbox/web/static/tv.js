// The TV view: the standings over the whole screen (12 players fit), the photo finish
// always in view, and on every race a huge "FIRST! Ann, by 245 µs". Opt-in sound.
import { countdown, run } from "./common.js";
import { $, dot, fill, h, num, seatClass, signed } from "./dom.js";
import { course, crown, lastPoints, leftCounts, placeText, ranking, takes, winnersTitle } from "./game.js";
import { t, tn } from "./i18n.js";
import { margin, presses, renderPhoto } from "./photo.js";
import { cancelBeeps, countdownBeeps, fanfare, goNow, setSound, soundOn } from "./sound.js";

const REVEAL_MS = 5000;
let seen = null; // the race shown last: game, round, first press
let shownUntil = 0;
let hideTimer = null;

function headline(state) {
  if (!state.game) return [t("No game yet"), t("Start one on the table view")];
  if (state.phase === "finished") return [winnersTitle(state.winners || []), state.title];
  const round = state.round && state.game !== "twinit" ? " · " + t("round {round}", { round: state.round }) : "";
  return [`${state.title}${round}`, course(state)];
}

function totalOf(state, p) {
  if (state.game === "twinit") return String((p.takes || []).length);
  return leftCounts(state) ? t("{n} left", { n: p.left }) : num(p.total);
}

function subOf(state, p) {
  if (state.game === "twinit") return (p.takes || []).length ? takes(p.takes) : null;
  const last = lastPoints(state, p.name);
  if (last === null) return null;
  return t("last round {points}", { points: state.game === "kids" ? tn("{n} card", "{n} cards", last) : signed(last) });
}

function renderBoard(state) {
  const [title, meta] = headline(state);
  $("#tv-title").textContent = title;
  $("#tv-meta").textContent = meta;
  const list = $("#tv-standings");
  const players = state.players || [];
  list.style.setProperty("--rows", String(Math.max(players.length, 4)));
  const winners = new Set(state.winners || []);
  fill(
    list,
    ranking(state).map((o) =>
      h(
        "li",
        {
          class: `tv-row ${seatClass(o.seat)}${winners.has(o.player.name) ? " winner" : ""}`,
          "data-testid": `tv-player-${o.seat}`,
        },
        h("span", { class: "tv-place" }, placeText(o)),
        h(
          "span",
          { class: "tv-who" },
          h("span", { class: "tv-name" }, dot(o.seat), " ", o.player.name, winners.has(o.player.name) ? crown() : null),
          h("span", { class: "tv-sub muted" }, subOf(state, o.player)),
        ),
        h("span", { class: "tv-total", "data-testid": `tv-total-${o.seat}` }, totalOf(state, o.player)),
      ),
    ),
  );
}

/** The first of the race and the runner's margin; null when nobody pressed yet. */
function race(state) {
  const list = presses(state);
  const first = list.find((p) => p.kind === "first");
  if (!first) return null;
  // a stop race's second press comes after the call ("late"): it still gives the margin
  const runner = list.find((p) => p !== first && p.lead_us !== null && p.lead_us !== undefined);
  const by = runner && runner.lead_us !== null ? margin(runner) : "";
  return { key: `${state.box?.game_id}|${state.round}|${first.seat}|${first.t_us}`, first, by };
}

function hideReveal() {
  $("#tv-reveal").hidden = true;
}

function renderReveal(state) {
  const r = race(state);
  const el = $("#tv-reveal");
  const opening = seen === null; // a race already run when the page opened is not shouted
  const fresh = Boolean(r) && r.key !== seen;
  seen = r ? r.key : "";
  if (!r || opening) return;
  if (!fresh && el.hidden) return;
  fill(
    el,
    h(
      "div",
      { class: `tv-reveal-box ${seatClass(r.first.seat)}` },
      h("p", { class: "tv-reveal-first" }, t("FIRST!")),
      h("p", { class: "tv-reveal-name", "data-testid": "tv-reveal-name" }, dot(r.first.seat), " ", r.first.name),
      h("p", { class: "tv-reveal-by", "data-testid": "tv-reveal-by" }, r.by),
    ),
  );
  if (fresh) {
    el.hidden = false;
    fanfare();
    shownUntil = performance.now() + REVEAL_MS;
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hideReveal, REVEAL_MS);
  } else if (performance.now() > shownUntil) hideReveal();
}

function soundButton() {
  const b = $("#tv-sound");
  const show = () => {
    b.setAttribute("aria-pressed", String(soundOn()));
    b.textContent = soundOn() ? t("Sound on") : t("Sound off");
  };
  b.addEventListener("click", () => {
    setSound(!soundOn());
    show();
  });
  show();
}

// the count's beeps: 3, 2, 1 and the go, on the audio clock (sound.js)
countdown.listener = { started: countdownBeeps, went: goNow, stopped: cancelBeeps };
soundButton();
$("#tv-reveal").addEventListener("click", hideReveal);
run((state) => {
  renderBoard(state);
  renderPhoto($("#photo"), state, { compact: (state.players || []).length > 6 });
  renderReveal(state);
});
