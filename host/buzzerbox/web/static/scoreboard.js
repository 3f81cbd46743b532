// The scoreboard for everyone: standings, course, caller, winners, chart, history.
import { chartLegend, fitLabels, totalsChart } from "./chart.js";
import { run } from "./common.js";
import { $, dot, fill, h, linked, nameList, num, ownName, seatClass, signed } from "./dom.js";
import { claimNews, course, crown, fewestWins, foulNews, lastPoints, leftCounts, placeText, ranking, takes, winnersTitle } from "./game.js";
import { renderPhoto } from "./photo.js";
import { shareButton } from "./share.js";
import { t, tn } from "./i18n.js";

const VARIANT_NAMES = {
  "row-storage": t("row as storage"),
  "one-card": t("one card at a time"),
  beginners: t("beginners"),
};

/** Round points as the game counts them: Ligretto Kids counts cards, not points. */
const points = (state, n) => (state.game === "kids" ? tn("{n} card", "{n} cards", n) : signed(n));

function heroLines(state) {
  const r = state.round;
  switch (state.phase) {
    case "lobby":
      return [
        tn("{n} player at the table", "{n} players at the table", state.players.length),
        state.game === "twinit"
          ? state.first_name
            ? t("{name} starts", { name: state.first_name })
            : t("Waiting for the start")
          : t("Waiting for round 1"),
      ];
    case "countdown":
      return [t("Round {round}", { round: r }), t("Get ready…")];
    case "playing":
      if (state.claim) return [t("{claimant} claims a pair!", { claimant: state.claim.claimant }), t("The table settles it")];
      if (state.game === "twinit") return [claimNews(state) || t("Game on"), t("Slap when you see a pair")];
      return [t("Round {round} is on", { round: r }), foulNews(state) || t("First to call stop ends it")];
    case "scoring":
      if (state.caller) return [t("{name} called stop", { name: state.caller }), t("Round {round} is being counted", { round: r })];
      if (state.stalled) return [t("Round {round} stalled", { round: r }), t("Nobody could play: it is counted as it lies")];
      return [t("Round {round} is over", { round: r }), t("Being counted")];
    case "scored": {
      const line = state.tie_at_top ? t("Tie at the top: play on until one leads") : t("Round {round} is next", { round: r + 1 });
      const last = (state.history || []).at(-1) || {};
      if (state.game === "kids" && last.winners) {
        return [t("Round {round}: {names} won it", { round: r, names: last.winners.join(" & ") }), line];
      }
      const lastRound = state.players.map((p) => ({ ...p, total: lastPoints(state, p.name) ?? 0 }));
      const best = ranking({ ...state, players: lastRound })[0];
      return [
        best
          ? t("Round {round}: best {name} {points}", { round: r, name: best.player.name, points: signed(best.v) })
          : t("Round {round} scored", { round: r }),
        line,
      ];
    }
    default:
      return ["", ""];
  }
}

function renderHero(state) {
  const el = $("#hero");
  if (!state.game) {
    fill(
      el,
      h("h1", {}, t("No game yet")),
      h("p", { class: "muted" }, linked(t("Start one on the {link}."), { link: h("a", { href: "/table" }, t("table view")) })),
    );
    return;
  }
  const meta = h(
    "p",
    { class: "hero-meta", "data-testid": "meta" },
    h("span", { class: "chip" }, state.title),
    state.round && state.game !== "twinit"
      ? h("span", { class: "chip", "data-testid": "round" }, t("Round {round}", { round: state.round }))
      : null,
    course(state) ? h("span", { class: "chip", "data-testid": "course" }, course(state)) : null,
    ((state.box && state.box.variants) || []).map((v) => h("span", { class: "chip variant" }, ownName(VARIANT_NAMES, v, v))),
  );
  if (state.phase === "finished") {
    const names = state.winners || [];
    const scoreOf = (n) => state.players.find((p) => p.name === n);
    el.classList.add("won");
    fill(
      el,
      meta,
      h(
        "div",
        { class: "winners", "data-testid": "winners" },
        crown("crown big"),
        h("h1", {}, winnersTitle(names)),
        h("p", { class: "muted" }, names.length ? winnersLine(state, scoreOf(names[0]), names.length > 1) : ""),
      ),
      shareButton(state),
    );
    return;
  }
  el.classList.remove("won");
  const [big, small] = heroLines(state);
  fill(
    el,
    meta,
    h("h1", { "data-testid": "headline", class: `fit phase-${state.phase}` }, big),
    h("p", { class: "muted", "data-testid": "subline" }, small),
  );
}

/** "with 12 points after 3 rounds", "with 5 takes". */
function winnersLine(state, winner, each) {
  if (state.game === "twinit") {
    const n = (winner?.takes || []).length;
    return tn("with {n} take", "with {n} takes", n);
  }
  const total = num(winner?.total ?? 0);
  const n = (state.history || []).length;
  if (fewestWins(state)) {
    return each
      ? tn("with {total} cards each after {n} round", "with {total} cards each after {n} rounds", n, { total })
      : tn("with {total} cards after {n} round", "with {total} cards after {n} rounds", n, { total });
  }
  return each
    ? tn("with {total} points each after {n} round", "with {total} points each after {n} rounds", n, { total })
    : tn("with {total} points after {n} round", "with {total} points after {n} rounds", n, { total });
}

function extra(state, p) {
  const bits = [];
  if (state.game === "ligretto" && (p.stack !== null && p.stack !== undefined)) {
    bits.push(t("stack {n}", { n: p.stack }));
    if (p.middle !== null && p.middle !== undefined) bits.push(t("middle {n}", { n: p.middle }));
  }
  if (state.game === "twist") {
    if (leftCounts(state)) bits.push(t("total {total}", { total: num(p.total) }));
    if (p.round_fouls && leftCounts(state)) bits.push(tn("{n} foul this round", "{n} fouls this round", p.round_fouls));
    else if (p.fouls) bits.push(tn("{n} foul in the game", "{n} fouls in the game", p.fouls));
  }
  return bits;
}

function barFraction(state, p) {
  if (state.game === "twinit") return (p.takes || []).length / (state.takes_to_win || 5);
  if (state.target) return p.total / state.target;
  if (state.game === "twist" || state.game === "kids") {
    // fewest cards (or minus points) lead: the leader's bar is full
    const fewest = Math.min(...state.players.map((q) => Math.abs(q.total)));
    return (fewest + 1) / (Math.abs(p.total) + 1);
  }
  const max = Math.max(1, ...state.players.map((q) => Math.abs(q.total)));
  return Math.abs(p.total) / max;
}

/**
 * One row per seat, kept from state to state: the bars grow, a changed total
 * pops, and rows glide to their new places when the ranking changes.
 */
function standingRow(seat) {
  const fillEl = h("span", { class: "bar-fill" });
  const row = h(
    "li",
    { "data-testid": `player-${seat}`, "data-seat": seat },
    h("span", { class: "place" }),
    h(
      "span",
      { class: "who" },
      h("span", { class: "name-line" }),
      h("span", { class: "sub muted small" }),
      h("span", { class: `bar ${seatClass(seat)}`, "aria-hidden": "true" }, fillEl),
      h("span", { class: "takes-slot" }),
    ),
    h("span", { class: "total", "data-testid": `total-${seat}` }),
  );
  return row;
}

function renderStandings(state) {
  const el = $("#standings");
  $("#standings-card").hidden = !state.game;
  if (!state.game) return;
  const key = `${state.box?.game_id}|${state.players.map((p) => p.name).join("|")}`;
  if (el.dataset.key !== key) {
    el.dataset.key = key;
    fill(el, state.players.map((_, seat) => standingRow(seat)));
  }
  const winners = new Set(state.winners || []);
  // the rows stand in ranking order: find each seat's by its data-seat
  const rows = [...el.children];
  const bySeat = new Map(rows.map((row) => [Number(row.dataset.seat), row]));
  // places within the list: a hero growing above it moves no row
  const topOf = (row) => row.getBoundingClientRect().top - el.getBoundingClientRect().top;
  const before = new Map(rows.map((row) => [row, topOf(row)]));
  const order = ranking(state);
  for (const o of order) {
    const { seat, player: p } = o;
    const row = bySeat.get(seat);
    const last = lastPoints(state, p.name);
    const called = state.caller === p.name && ["scoring", "scored"].includes(state.phase);
    row.className = `standing ${seatClass(seat)}${winners.has(p.name) ? " winner" : ""}${called ? " called" : ""}`;
    row.dataset.name = p.name;
    row.querySelector(".place").textContent = placeText(o);
    fill(
      row.querySelector(".name-line"),
      dot(seat),
      h("span", { class: "name" }, p.name),
      winners.has(p.name) ? crown() : null,
      called ? h("span", { class: "badge", "data-testid": "called" }, t("called")) : null,
    );
    const sub = row.querySelector(".sub");
    sub.textContent = [last !== null ? t("last round {points}", { points: points(state, last) }) : null, ...extra(state, p)]
      .filter(Boolean)
      .join(" · ");
    sub.hidden = !sub.textContent;
    const twinit = state.game === "twinit";
    row.querySelector(".bar").hidden = twinit;
    row.querySelector(".bar-fill").style.width = `${Math.max(0, Math.min(1, barFraction(state, p))) * 100}%`;
    fill(
      row.querySelector(".takes-slot"),
      twinit ? ((p.takes || []).length ? takes(p.takes) : h("span", { class: "muted small" }, t("no take yet"))) : null,
    );
    const total = row.querySelector(".total");
    const byLeft = leftCounts(state);
    row.classList.toggle("left-count", byLeft);
    total.title = byLeft ? t("cards left") : "";
    const text = twinit ? String((p.takes || []).length) : byLeft ? String(p.left) : num(p.total);
    if (total.textContent !== text) {
      if (total.textContent !== "") {
        total.classList.remove("bump");
        void total.offsetWidth; // restart the animation
        total.classList.add("bump");
      }
      total.textContent = text;
    }
    el.append(row); // in ranking order
  }
  // glide from the old places to the new ones (the rows are opaque, and one moving up
  // passes over the others); with reduced motion they simply stand in their places
  if (matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  for (const row of rows) {
    if (!row.animate) continue;
    for (const running of row.getAnimations()) running.cancel(); // the new one starts where it was
    const dy = Math.round(before.get(row) - topOf(row));
    row.style.zIndex = "";
    if (!dy) continue;
    row.style.zIndex = dy > 0 ? "2" : "1";
    const glide = row.animate([{ transform: `translateY(${dy}px)` }, { transform: "none" }], {
      duration: 450,
      easing: "cubic-bezier(0.2, 0.8, 0.2, 1)",
    });
    glide.finished.then(
      () => (row.style.zIndex = ""),
      () => null, // cancelled: a newer glide took over
    );
  }
}

function renderHistory(state) {
  const card = $("#history-card");
  const history = state.history || [];
  card.hidden = !state.game || !history.length;
  if (card.hidden) return;
  const players = state.players;
  const cell = (r, p, seat) => {
    const pts = r.points?.[p.name];
    const detail =
      state.game === "ligretto" && r.middle && r.stacks ? `${r.middle[p.name]} − 2×${r.stacks[p.name]}` : "";
    const won = r.caller === p.name || (r.winners || []).includes(p.name);
    return h(
      "td",
      { class: `${won ? "caller" : ""} ${seatClass(seat)}`, "data-testid": `cell-${r.round}-${seat}` },
      h("span", { class: "pts" }, pts === undefined ? "–" : state.game === "kids" ? String(pts) : signed(pts)),
      won ? h("span", { class: "star", title: r.caller === p.name ? t("called stop") : t("won the round") }, "★") : null,
      detail ? h("span", { class: "detail" }, detail) : null,
    );
  };
  fill(
    $("#history"),
    h(
      "table",
      { class: "history" },
      h(
        "thead",
        {},
        h("tr", {}, h("th", { scope: "col" }, "#"), players.map((p, seat) => h("th", { scope: "col" }, dot(seat), " ", h("span", { class: "name" }, p.name)))),
      ),
      h(
        "tbody",
        {},
        [...history].reverse().map((r) =>
          h("tr", {}, h("th", { scope: "row" }, String(r.round)), players.map((p, seat) => cell(r, p, seat))),
        ),
      ),
      h(
        "tfoot",
        {},
        h("tr", {}, h("th", { scope: "row" }, "Σ"), players.map((p) => h("td", { class: "sum" }, num(p.total)))),
      ),
    ),
  );
}

/** A phone too narrow for every column: say so, and who is out of sight. */
function historyHint() {
  const box = $("#history");
  const hint = $("#history-hint");
  const table = box.querySelector("table");
  if (!table || box.scrollWidth <= box.clientWidth + 1) {
    hint.hidden = true;
    return;
  }
  const right = box.getBoundingClientRect().right;
  const hidden = [...table.querySelectorAll("thead th")].filter((th) => th.getBoundingClientRect().left >= right - 8);
  hint.hidden = false;
  const names = nameList(hidden.map((th) => th.textContent.trim()));
  const key = JSON.stringify(hidden.map((th) => th.textContent));
  if (hint.dataset.key === key) return; // the same: not drawn again on every scroll
  hint.dataset.key = key;
  fill(hint, hidden.length ? linked(t("Swipe the table sideways for {names} →", { names: "{names}" }), { names }) : t("Swipe the table sideways for every column →"));
}

function render(state) {
  renderHero(state);
  renderStandings(state);
  const chartCard = $("#chart-card");
  chartCard.hidden = !state.game || state.game === "twinit";
  if (!chartCard.hidden) fitLabels(fill($("#chart"), totalsChart(state), chartLegend(state)));
  $("#photo-card").hidden = !state.game;
  if (state.game) renderPhoto($("#photo"), state, { compact: true });
  renderHistory(state);
  historyHint();
}

addEventListener("resize", historyHint);
$("#history").addEventListener("scroll", historyHint, { passive: true });

run(render);
