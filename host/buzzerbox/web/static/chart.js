// The chart of totals per round: inline SVG drawn from the state's history.
import { dot, h, num, s, seatClass } from "./dom.js";
import { t, tn } from "./i18n.js";

const W = 360;
const H = 230;
const PAD = { left: 34, right: 44, top: 14, bottom: 26 };
/** The end labels' spacing when they are drawn, before they are measured. */
const LABEL_GAP = 13;

/** A step for about `ticks` grid lines: 1, 2, 2.5 or 5 times a power of ten, and
 * whole (totals are whole numbers: no 2.5 or 7.5 on the axis). */
function niceStep(range, ticks = 4) {
  const raw = range / ticks;
  const mag = Math.max(1, 10 ** Math.floor(Math.log10(raw || 1)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * mag >= raw && Number.isInteger(m * mag)) return m * mag;
  return 10 * mag;
}

/** Spread labels apart vertically so no two overlap (keeps their order). */
function spread(items, gap, lo, hi) {
  items.sort((a, b) => a.y - b.y);
  for (let i = 1; i < items.length; i++) {
    if (items[i].y - items[i - 1].y < gap) items[i].y = items[i - 1].y + gap;
  }
  const over = items.length ? items[items.length - 1].y - hi : 0;
  if (over > 0) {
    items[items.length - 1].y -= over;
    for (let i = items.length - 2; i >= 0; i--) {
      if (items[i + 1].y - items[i].y < gap) items[i].y = items[i + 1].y - gap;
    }
  }
  for (const it of items) it.y = Math.max(it.y, lo);
  return items;
}

/** Once the chart is on the page: its end labels (each player's total, in their colour)
 * spread again by their measured height, taller than LABEL_GAP in some fonts (Noto's
 * 11 px text is 15 px high). */
export function fitLabels(root) {
  const texts = [...root.querySelectorAll(".end-label")];
  let above = 0;
  let below = 0;
  for (const text of texts) {
    const b = text.getBBox();
    const baseline = Number(text.getAttribute("y"));
    above = Math.max(above, baseline - b.y);
    below = Math.max(below, b.y + b.height - baseline);
  }
  if (above + below <= LABEL_GAP) return;
  const items = texts.map((text) => ({ text, y: Number(text.dataset.want) }));
  for (const { text, y } of spread(items, above + below, PAD.top + above, H - PAD.bottom)) {
    text.setAttribute("y", y.toFixed(1));
  }
}

/** Who is which line: each player's colour and whole name, under the chart (a name
 * never cut to fit beside its line). */
export function chartLegend(state) {
  if (!(state.history || []).length) return null;
  return h(
    "ul",
    { class: "chart-legend", "data-testid": "chart-legend" },
    (state.players || []).map((p, seat) => h("li", { class: seatClass(seat), "data-testid": `chart-legend-${seat}` }, dot(seat), h("span", { class: "name" }, p.name))),
  );
}

/** The SVG of the totals, or a friendly placeholder before round 1 is scored. */
export function totalsChart(state) {
  const history = state.history || [];
  const players = state.players || [];
  if (!history.length) {
    return h(
      "p",
      { class: "muted placeholder", "data-testid": "chart-empty" },
      t("The chart grows with every round scored."),
    );
  }
  const series = players.map((p) => [0, ...history.map((r) => r.totals?.[p.name] ?? 0)]);
  const all = series.flat();
  const target = state.target || null;
  let lo = Math.min(0, ...all);
  // minus points only (Ligretto Twist): the chart ends at 0, with no empty band above
  let hi = Math.max(lo < 0 ? 0 : 1, ...all, target && target <= Math.max(...all) * 1.6 + 10 ? target : 0);
  const step = niceStep(hi - lo);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const n = history.length;
  const x = (i) => PAD.left + (i / n) * (W - PAD.left - PAD.right);
  const y = (v) => PAD.top + ((hi - v) / (hi - lo || 1)) * (H - PAD.top - PAD.bottom);

  const grid = [];
  for (let v = lo; v <= hi + 1e-9; v += step) {
    grid.push(
      s("line", { class: v === 0 ? "axis" : "grid", x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }),
      s("text", { class: "tick", x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end" }, num(v)),
    );
  }
  const every = Math.ceil(n / 10);
  const xs = [];
  for (let i = 1; i <= n; i++) {
    if (i % every && i !== n) continue;
    xs.push(s("text", { class: "tick", x: x(i), y: H - 8, "text-anchor": "middle" }, t("R{round}", { round: i })));
  }
  const targetLine =
    target && target <= hi
      ? [
          s("line", { class: "target", x1: PAD.left, x2: W - PAD.right, y1: y(target), y2: y(target) }),
          s("text", { class: "tick target-label", x: PAD.left + 4, y: y(target) - 5 }, t("target {target}", { target: num(target) })),
        ]
      : [];
  const lines = series.map((vals, seat) =>
    s(
      "g",
      { class: `series ${seatClass(seat)}`, "data-testid": `chart-line-${seat}` },
      s("polyline", { points: vals.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") }),
      vals.slice(1).map((v, i) => s("circle", { cx: x(i + 1), cy: y(v), r: 3.2 })),
    ),
  );
  const labels = spread(
    series.map((vals, seat) => ({ seat, y: y(vals[n]) + 4, v: vals[n] })),
    LABEL_GAP,
    PAD.top + 4,
    H - PAD.bottom,
  ).map(({ seat, y: ly, v }) =>
    s(
      "text",
      {
        class: `end-label ${seatClass(seat)}`,
        x: x(n) + 8,
        y: ly,
        "data-want": (y(v) + 4).toFixed(1),
        "data-testid": `chart-label-${seat}`,
      },
      s("title", {}, `${players[seat].name} ${num(v)}`),
      s("tspan", { class: "end-total" }, num(v)),
    ),
  );
  return s(
    "svg",
    {
      viewBox: `0 0 ${W} ${H}`,
      class: "totals-chart",
      role: "img",
      "aria-label": tn("Totals after {n} round: {totals}", "Totals after {n} rounds: {totals}", n, {
        totals: players.map((p) => `${p.name} ${num(p.total)}`).join(", "),
      }),
    },
    grid,
    xs,
    targetLine,
    lines,
    labels,
  );
}
