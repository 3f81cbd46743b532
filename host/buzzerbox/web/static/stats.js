// The Stats tab: players across the finished games (GET /api/stats: wins in all and per
// game, best round, winning streaks, the quickest stop), and the past games of the log
// (GET /api/games), each to view, download or play again. Fetched when a game starts or
// ends, never on a press: mid-game the figures do not move.
import { get, post, session } from "./api.js";
import { run } from "./common.js";
import { $, confirmButton, fill, h, nameList, signed } from "./dom.js";
import { t, tn } from "./i18n.js";
import { dayOf, outcome, pastGame, titleOf, whenOf } from "./pastgame.js";

const PAGE = 20; // past games shown at first, and more with each tap

$("#stats-title").textContent = t("Players across games");
$("#past-title").textContent = t("Past games");

let shownFor = null;
let shown = PAGE;
let withUnplayed = false; // games made and left before their first round: shown on a tap
let isAdmin = false;
const admin = session().then(
  (s) => (isAdmin = Boolean(s && s.admin)),
  () => false,
);

const tenths = new Intl.NumberFormat(document.documentElement.lang || undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const seconds = (us) => t("{s} s", { s: tenths.format(us / 1e6) });

function bestRound(game, best) {
  if (!best) return null;
  const where = t("round {round}, {day}", { round: best.round, day: dayOf(best.started) });
  return game === "kids"
    ? tn("best round: {n} card left ({where})", "best round: {n} cards left ({where})", best.points, { where })
    : tn("best round: {points} point ({where})", "best round: {points} points ({where})", Math.abs(best.points), {
        points: signed(best.points),
        where,
      });
}

function streakLine(streak) {
  const n = streak.longest;
  if (!n) return null;
  const text =
    n >= 2 && streak.current === n
      ? tn("Longest winning streak: {n} game, still going", "Longest winning streak: {n} games in a row, still going", n)
      : tn("Longest winning streak: {n} game", "Longest winning streak: {n} games in a row", n);
  const now = streak.current >= 2 && streak.current < n ? tn("now {n} in a row", "now {n} in a row", streak.current) : null;
  return h("p", { "data-testid": "stats-streak" }, now ? t("{longest} · {now}", { longest: text, now }) : text);
}

function playerCard(r, i) {
  const q = r.quickest_call;
  return h(
    "li",
    { class: "player-stat", "data-testid": `stats-${i}`, "data-name": r.name },
    h("h3", {}, r.name),
    h("p", { class: "wins", "data-testid": "stats-wins" }, tn("{wins} of {n} game won", "{wins} of {n} games won", r.games, { wins: r.wins })),
    h(
      "ul",
      { class: "per-game" },
      r.by_game.map((g) => {
        const best = bestRound(g.game, g.best_round);
        const won = tn("{wins} of {n} won", "{wins} of {n} won", g.games, { wins: g.wins });
        return h(
          "li",
          { "data-testid": `stats-game-${g.game}` },
          h("strong", {}, titleOf(g.game)),
          " ",
          best ? t("{won} · {best}", { won, best }) : won,
        );
      }),
    ),
    streakLine(r.streak),
    q
      ? h(
          "p",
          { class: "muted small", "data-testid": "stats-quickest" },
          t("Quickest stop: {time} after the go ({game}, {day})", {
            time: seconds(q.us),
            game: titleOf(q.game),
            day: dayOf(q.started),
          }),
        )
      : null,
  );
}

function renderStats(rows) {
  $("#stats-note").textContent = rows.length
    ? t("Finished games only: a game left without its end counts for nobody.")
    : t("No game has been finished yet: the figures come with the first.");
  fill($("#stats"), rows.map(playerCard));
}

function exportLinks(g) {
  const link = (path, label, id) => h("a", { href: `${path}?game=${g.id}`, download: "", "data-testid": `${id}-${g.id}` }, label);
  const log = link("/api/export/log", t("game log"), "past-log");
  // the score sheets are made of a finished game only (the log of any)
  const sheets = g.finished
    ? [" · ", link("/api/export/csv", t("CSV"), "past-csv"), " · ", link("/api/export/bgstats", t("BG Stats"), "past-bgstats")]
    : null;
  return h("p", { class: "exports" }, h("span", {}, t("Download:")), " ", log, sheets);
}

function viewButton(g, panel) {
  const b = h("button", { type: "button", class: "small-btn", "aria-expanded": "false", "data-testid": `past-view-${g.id}` }, t("View"));
  b.addEventListener("click", () => {
    const open = panel.hidden;
    panel.hidden = !open;
    b.setAttribute("aria-expanded", String(open));
    b.textContent = open ? t("Hide") : t("View");
    if (open && !panel.dataset.loaded) {
      fill(panel, h("p", { class: "muted small" }, t("Loading…")));
      get(`/api/games/${g.id}`).then(
        (view) => {
          panel.dataset.loaded = "1";
          fill(panel, pastGame(view));
        },
        (err) => fill(panel, h("p", { class: "notice bad", role: "alert" }, err.message)),
      );
    }
  });
  return b;
}

function rematchButton(g, note) {
  return confirmButton(
    { class: "small-btn", "data-testid": `past-rematch-${g.id}` },
    t("Rematch"),
    t("Tap again: a new game"),
    () =>
      post(`/api/games/${g.id}/rematch`, {}).then(
        () => location.assign("/table"),
        (err) => {
          note.hidden = false;
          note.textContent = err.message;
        },
      ),
  );
}

function pastRow(g, currentId) {
  const panel = h("div", { class: "past-view", "data-testid": `past-panel-${g.id}`, hidden: true });
  const note = h("p", { class: "notice bad", role: "alert", hidden: true });
  return h(
    "li",
    { class: `past-game${g.finished ? "" : " unfinished"}`, "data-testid": `past-${g.id}` },
    h("p", { class: "past-when muted small" }, whenOf(g.started)),
    h("p", { class: "past-what" }, h("strong", {}, titleOf(g.game)), " · ", nameList(g.players)),
    h("p", { class: "past-winner", "data-testid": `past-winner-${g.id}` }, outcome(g, currentId)),
    h("div", { class: "past-actions" }, viewButton(g, panel), isAdmin ? rematchButton(g, note) : null),
    exportLinks(g),
    note,
    panel,
  );
}

/** A game made and left before its first round (not the one at the table now). */
const unplayed = (g, currentId) => !g.finished && g.phase === "lobby" && g.id !== currentId;

function renderPast(all, currentId) {
  const hidden = all.filter((g) => unplayed(g, currentId)).length;
  const games = withUnplayed ? all : all.filter((g) => !unplayed(g, currentId));
  const list = games.slice(0, shown);
  fill($("#past"), list.length ? list.map((g) => pastRow(g, currentId)) : h("li", { class: "muted" }, t("No game in the log yet.")));
  const more = games.length - list.length;
  fill(
    $("#past-more-slot"),
    more > 0
      ? h(
          "button",
          {
            type: "button",
            class: "ghost",
            "data-testid": "past-more",
            onclick: () => {
              shown += PAGE;
              renderPast(all, currentId);
            },
          },
          tn("Show {n} older game", "Show {n} older games", Math.min(more, PAGE)),
        )
      : null,
    hidden
      ? h(
          "button",
          {
            type: "button",
            class: "ghost",
            "data-testid": "past-unplayed",
            "aria-pressed": String(withUnplayed),
            onclick: () => {
              withUnplayed = !withUnplayed;
              renderPast(all, currentId);
            },
          },
          withUnplayed
            ? tn("Hide {n} game left before its first round", "Hide {n} games left before their first round", hidden)
            : tn("Show {n} game left before its first round", "Show {n} games left before their first round", hidden),
        )
      : null,
    !isAdmin && list.length ? h("span", { class: "muted small" }, t("A rematch is started by the scorekeeper, logged in on the Table tab.")) : null,
  );
}

run((state) => {
  const currentId = state.box?.game_id ?? null;
  const key = `${currentId}|${state.phase === "finished"}`;
  if (key === shownFor) return;
  shownFor = key;
  get("/api/stats").then(renderStats, () => null);
  Promise.all([get("/api/games"), admin]).then(([games]) => renderPast(games, currentId), () => null);
});
