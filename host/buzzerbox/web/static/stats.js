// Players across the games in the box's log (GET /api/stats): games, wins, reactions.
import { get } from "./api.js";
import { $, fill, h, span } from "./dom.js";
import { t } from "./i18n.js";

const HEADS = [t("Player"), t("Games"), t("Wins"), t("Mean reaction"), t("Best"), t("Fastest stop")];

let shownFor = null;

const us = (v) => (v === null || v === undefined ? "–" : span(v));

/** Fetch and draw the stats once per game and phase change to finished or lobby. */
export function renderStats(state) {
  const key = `${state.box?.game_id}|${state.phase === "finished"}`;
  if (key === shownFor) return;
  shownFor = key;
  get("/api/stats").then((rows) => {
    const card = $("#stats-card");
    card.hidden = !rows.length;
    fill(
      $("#stats"),
      h(
        "table",
        { class: "history stats" },
        h(
          "thead",
          {},
          h("tr", {}, HEADS.map((head) => h("th", { scope: "col" }, head))),
        ),
        h(
          "tbody",
          {},
          rows.map((r, i) =>
            h(
              "tr",
              { "data-testid": `stats-${i}` },
              h("th", { scope: "row" }, r.name),
              h("td", {}, String(r.games)),
              h("td", {}, String(r.wins)),
              h("td", {}, us(r.mean_us)),
              h("td", {}, us(r.best_us)),
              h("td", {}, us(r.fastest_stop_us)),
            ),
          ),
        ),
      ),
    );
  }, () => null);
}
