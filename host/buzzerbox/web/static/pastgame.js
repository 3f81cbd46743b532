// One past game drawn (GET /api/games/<id>): its players ranked with their totals, and
// its rounds, points per player. A line of the list: when, which game, who, who won.
import { dot, h, names, num, ownName, seatClass, signed } from "./dom.js";
import { TITLES, crown, placeText, ranking } from "./game.js";
import { t } from "./i18n.js";

const lang = () => document.documentElement.lang || undefined;


export const titleOf = (game) => ownName(TITLES, game, game);

/** A game's day, as the reader's language writes it. */
export const dayOf = (unix) => new Date(unix * 1000).toLocaleDateString(lang(), { day: "numeric", month: "short", year: "numeric" });

/** When a game started: its day and time. */
export const whenOf = (unix) => new Date(unix * 1000).toLocaleString(lang(), { dateStyle: "medium", timeStyle: "short" });

/** Who won a game of the list, or why nobody did. */
export function outcome(g, currentId) {
  if (!g.finished) return g.id === currentId ? t("being played now") : t("not finished: it counts for nobody");
  if (!g.winners.length) return t("nobody won");
  return g.winners.length > 1 ? t("{names} won", { names: names(g.winners) }) : t("{name} won", { name: g.winners[0] });
}

/** The game as it ended: players in their places with totals, then points per round. */
export function pastGame(view) {
  const twinit = view.game === "twinit";
  const winners = new Set(view.winners);
  const order = ranking({ game: view.game, phase: view.phase, players: view.standings });
  const seatOf = new Map(view.standings.map((p, seat) => [p.name, seat]));
  const value = (p) => (twinit ? String((p.takes || []).length) : num(p.total));
  const standings = h(
    "ol",
    { class: "past-standings" },
    order.map((o) =>
      h(
        "li",
        { class: seatClass(o.seat), "data-testid": `past-place-${o.seat}` },
        h("span", { class: "place" }, placeText(o)),
        dot(o.seat),
        h("span", { class: "name" }, o.player.name),
        winners.has(o.player.name) ? crown() : null,
        h("span", { class: "total" }, value(o.player)),
      ),
    ),
  );
  if (!view.history.length) return h("div", { class: "past-view-body" }, standings);
  const rounds = h(
    "table",
    { class: "history" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "#"),
        view.standings.map((p, seat) => h("th", { scope: "col" }, dot(seat), " ", h("span", { class: "name" }, p.name))),
      ),
    ),
    h(
      "tbody",
      {},
      view.history.map((r) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, String(r.round)),
          view.standings.map((p) => {
            const pts = r.points?.[p.name];
            const won = (r.winners || []).includes(p.name);
            return h(
              "td",
              { class: `${won ? "caller" : ""} ${seatClass(seatOf.get(p.name))}` },
              pts === undefined ? "–" : view.game === "kids" ? String(pts) : signed(pts),
              won ? h("span", { class: "star", title: t("won the round") }, "★") : null,
            );
          }),
        ),
      ),
    ),
  );
  return h(
    "div",
    { class: "past-view-body" },
    standings,
    h("div", { class: "scroll-x", tabindex: "0", "aria-label": t("Points per round") }, rounds),
  );
}
