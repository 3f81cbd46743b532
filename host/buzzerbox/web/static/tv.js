// The TV view: the standings over the whole screen (12 players fit, no name cut), the
// photo finish always in view and readable across the room, and the big moments
// taking the screen (tvmoments.js): FIRST!, the call, Twin It!'s steals, errors and
// splits, the winners with everyone's totals. Opt-in sound.
import { boardNotice } from "./boardnotice.js";
import { countdown, run } from "./common.js";
import { fitNames } from "./fit.js";
import { $, dot, fill, h, num, seatClass, signed } from "./dom.js";
import { course, crown, lastPoints, leftCounts, placeText, ranking, takes } from "./game.js";
import { t, tn } from "./i18n.js";
import { renderPhoto } from "./photo.js";
import { cancelBeeps, countdownBeeps, fanfare, goNow, setSound, soundOn } from "./sound.js";
import { moments } from "./tvmoments.js";

const REVEAL_MS = 5000;

function headline(state) {
  if (!state.game) return [t("No game yet"), t("Start one on the table view")];
  if (state.phase === "finished") {
    const names = state.winners || [];
    const won = names.length > 1 ? t("{names} win!", { names: names.join(" & ") }) : t("{name} wins!", { name: names[0] || t("Nobody") });
    return [won, state.title];
  }
  const title = state.round && state.game !== "twinit" ? t("{title} · round {round}", { title: state.title, round: state.round }) : state.title;
  return [title, course(state)];
}

function totalOf(state, p) {
  if (state.game === "twinit") return String((p.takes || []).length);
  return leftCounts(state) ? t("{n} left", { n: p.left }) : num(p.total);
}

/** The last round's points (or a Twin It! player's takes), in a column of their own:
 * they never take room from the name. */
function lastOf(state, p) {
  if (state.game === "twinit") return (p.takes || []).length ? takes(p.takes) : null;
  const last = lastPoints(state, p.name);
  if (last === null) return null;
  return [
    h("span", { class: "tv-last-label" }, t("last round")),
    h("span", { class: "tv-last-pts" }, state.game === "kids" ? tn("{n} card", "{n} cards", last, { n: last }) : signed(last)),
  ];
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
    ranking(state).map((o) => {
      const last = lastOf(state, o.player);
      return h(
        "li",
        {
          class: `tv-row ${seatClass(o.seat)}${winners.has(o.player.name) ? " winner" : ""}`,
          "data-testid": `tv-player-${o.seat}`,
        },
        h("span", { class: "tv-place" }, placeText(o)),
        h(
          "span",
          { class: "tv-name", "data-testid": `tv-name-${o.seat}` },
          dot(o.seat),
          " ",
          o.player.name,
          winners.has(o.player.name) ? crown() : null,
        ),
        h("span", { class: "tv-last", "data-testid": `tv-last-${o.seat}` }, last),
        h("span", { class: "tv-total", "data-testid": `tv-total-${o.seat}` }, totalOf(state, o.player)),
      );
    }),
  );
}

// -- the big moments --------------------------------------------------------------------

let seen = null; // the keys of the moments of the last state (null: none yet)
let current = null; // the key of the moment on the screen, or of the last one shown
let dismissed = null; // a moment that stays (the winners) tapped away
let hideTimer = null;

function hideMoment() {
  const el = $("#tv-reveal");
  if (!el.hidden && current === el.dataset.key && el.dataset.hold === "true") dismissed = current;
  el.hidden = true;
}

function renderMoment(state) {
  const el = $("#tv-reveal");
  const list = moments(state);
  const opening = seen === null; // what had happened when the page opened is not shouted
  const fresh = opening ? [] : list.filter((m) => !seen.has(m.key));
  seen = new Set(list.map((m) => m.key));
  // a split's count says the split itself over the whole screen (common.js): its moment
  // does not show under the count
  if (state.box?.countdown === "split") {
    if (!el.hidden) hideMoment();
    return;
  }
  const held = list.find((m) => m.hold && m.key !== dismissed);
  const onScreen = !el.hidden ? list.find((m) => m.key === current) : null;
  const next = held || fresh[0] || onScreen;
  if (!next) {
    if (!el.hidden) hideMoment(); // taken back (an undo): the board again
    return;
  }
  const made = next.make();
  const same = next.key === current && !el.hidden;
  if (same && el.textContent === made.textContent) return; // nothing new to say
  fill(el, made);
  el.hidden = false; // laid out, so its names can be fitted (fit.js)
  el.dataset.kind = next.kind;
  el.dataset.key = next.key;
  el.dataset.hold = String(Boolean(next.hold));
  if (same) return; // the same moment, brought up to date (the runner's margin came)
  current = next.key;
  el.hidden = false;
  countdown.tick(); // the call after the count, if it is up, gives way now
  fanfare();
  clearTimeout(hideTimer);
  if (!next.hold) hideTimer = setTimeout(hideMoment, REVEAL_MS);
}

/** The photo finish beside the board, whole on the screen with the QR code under it:
 * up to 4 presses (all with 6 players or fewer) and every false start, fewer of each
 * (the rest counted: "and 6 more") until it fits. Nothing on a TV scrolls. */
function renderSide(state) {
  const side = $(".tv-side");
  const photo = $("#photo");
  const race = (state.claim?.slaps?.length || (state.race || []).length) + (state.late || []).length;
  const fouls = (state.false_starts || []).length;
  let most = (state.players || []).length > 6 ? 4 : race;
  let mostFalse = fouls;
  const draw = () => {
    renderPhoto(photo, state, { most, mostFalse });
    fitNames(side); // measured as shown: a long name made smaller
  };
  draw();
  const over = () => side.scrollHeight > side.clientHeight + 1 && getComputedStyle(side).overflowY !== "visible";
  while (over() && (mostFalse > 0 || most > 1)) {
    if (mostFalse > 1 || (mostFalse > 0 && most <= 1)) mostFalse -= 1;
    else most -= 1;
    draw();
  }
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
// a slap within the call's 1.2 s after the go: its moment takes the call's place
countdown.yieldsTo = () => !$("#tv-reveal").hidden;
soundButton();
$("#tv-reveal").addEventListener("click", hideMoment);
const boards = boardNotice($("#board-note")); // a pad board gone, and its pads
let shown = null; // the state on the screen: its photo finish is fitted again on a resize
addEventListener("resize", () => shown && renderSide(shown));
run((state) => {
  shown = state;
  boards(state);
  renderBoard(state);
  renderSide(state);
  renderMoment(state);
});
