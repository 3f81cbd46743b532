// The event leaderboard: draws the board from the hub's live stream (/api/events).
// Every update replaces the thing it names (a table, a photo finish, the tournament),
// so a redelivered or repeated update changes nothing. Text only: names are the
// players', never parsed as HTML. A stream that went quiet for two of the hub's
// keepalives (a hub frozen, a TV out of the wifi: no error comes) is dropped and opened
// again, and the page says so (keepalive.js, the box's own watchdog, served by the hub).
import { choose, lang, t, tn } from "./i18n.js";
import { Watchdog } from "./keepalive.js";

const state = { tables: new Map(), finishes: [], tournament: [], broker: null, stream: "connecting" };
// the hub's admin session: its CSRF token while logged in (the PIN is on the hub's console)
const admin = { csrf: null };
const MAX_FINISHES = 12;

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

const decimals = [0, 1, 2].map((d) => new Intl.NumberFormat(lang, { minimumFractionDigits: d, maximumFractionDigits: d }));

function duration(us) {
  if (us == null) return "–";
  if (us < 1000) return `${decimals[0].format(us)} µs`;
  if (us < 1_000_000) return `${decimals[us < 10_000 ? 1 : 0].format(us / 1000)} ms`;
  return `${decimals[2].format(us / 1_000_000)} s`;
}

const PHASES = {
  idle: t("no game"), lobby: t("waiting"), countdown: t("get ready"), playing: t("playing"),
  scoring: t("scoring"), scored: t("scored"), finished: t("finished"),
};

const ONLINE = t("online");
const OFFLINE = t("offline");
const NO_GAME = t("no game yet");
const roundOf = (round, rounds) =>
  rounds ? t("round {round} of {rounds}", { round, rounds }) : t("round {round}", { round });

function tableCard(t) {
  const lowWins = t.game === "kids";
  const players = [...t.players].sort((a, b) => (lowWins ? a.total - b.total : b.total - a.total));
  const winners = new Set(t.winners);
  const leaders = new Set((t.leader || "").split(", ").filter(Boolean));
  const round = t.round ? roundOf(t.round, t.rounds) : "";
  const list = el("ol", { class: "players" });
  for (const p of players) {
    const mark = winners.has(p.name) ? "winner" : leaders.has(p.name) ? "leader" : "";
    list.append(el("li", { class: mark },
      el("span", { class: "name", text: p.name }),
      el("span", { class: "total", text: String(p.total ?? "") })));
  }
  return el("article", { class: `card phase-${t.phase}${t.online === false ? " offline" : ""}`,
                         "data-box": t.box, "data-seq": String(t.seq ?? "") },
    el("header", {},
      el("span", { class: `dot ${t.online === false ? "off" : "on"}`,
                   title: t.online === false ? OFFLINE : ONLINE }),
      el("h3", { text: t.box }),
      t.online === false
        ? el("span", { class: "offline-label", "data-testid": "offline", text: OFFLINE })
        : el("span", { class: "phase", text: Object.hasOwn(PHASES, t.phase) ? PHASES[t.phase] : t.phase })),
    el("p", { class: "game muted", text: [t.title, round].filter(Boolean).join(" · ") || NO_GAME }),
    t.players.length ? list : null,
    t.first ? el("p", { class: "first", text: `⚡ ${t.first}` }) : null,
    admin.csrf ? removeButton(t.box) : null);
}

function removeButton(box) {
  const button = el("button", { type: "button", class: "remove", "data-testid": "remove",
                                "aria-label": t("Remove table {box}", { box }), text: t("Remove") });
  button.addEventListener("click", () => act(async () => {
    await api("DELETE", `/api/tables/${encodeURIComponent(box)}`);
    notice(t("table {box} removed", { box }));  // the stream's "gone" takes it off the page
  }));
  return button;
}

// -- the admin: log in with the hub's PIN, remove a table -------------------------------

async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (admin.csrf) headers["X-CSRF-Token"] = admin.csrf;
  const response = await fetch(path, { method, headers, credentials: "same-origin",
                                       body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || t("the hub answered {status}", { status: response.status }));
  return data;
}

function notice(text) {
  const line = document.getElementById("notice");
  line.textContent = text;
  line.hidden = !text;
}

async function act(work) {
  try {
    await work();
  } catch (err) {
    notice(err.message);
  }
}

function drawAdmin() {
  const button = document.getElementById("admin");
  const form = document.getElementById("login");
  button.textContent = admin.csrf ? t("Log out") : t("Admin");
  if (admin.csrf) form.hidden = true;
  button.setAttribute("aria-expanded", String(!form.hidden));
  document.getElementById("screen-pair").hidden = !admin.csrf;
  drawTables();
}

// the venue's screens: the link that makes a screen the hub's own (hub/screens.py)
function setUpScreenPairing() {
  document.getElementById("screen-pair-button").addEventListener("click", () => act(async () => {
    const { path } = await api("GET", "/api/screens/pair");
    const link = document.getElementById("screen-pair-link");
    link.href = new URL(path, location.href).href;
    link.textContent = link.href.replace(/^https?:\/\//, "");
    document.getElementById("screen-pair-how").hidden = false;
  }));
}

function setUpAdmin() {
  setUpScreenPairing();
  const form = document.getElementById("login");
  document.getElementById("admin").addEventListener("click", () => act(async () => {
    if (admin.csrf) {
      await api("POST", "/api/logout");
      admin.csrf = null;
      notice("");
    } else {
      form.hidden = !form.hidden;
      if (!form.hidden) document.getElementById("pin").focus();
    }
    drawAdmin();
  }));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    act(async () => {
      const pin = document.getElementById("pin");
      admin.csrf = (await api("POST", "/api/login", { pin: pin.value })).csrf;
      pin.value = "";
      // the admin is told what the hub refused: messages not signed with the event's key
      const board = await api("GET", "/api/board");
      notice(board.refused
        ? tn("{n} message refused: not signed with the event's key", "{n} messages refused: not signed with the event's key", board.refused)
        : "");
      drawAdmin();
    });
  });
  act(async () => {
    const current = await api("GET", "/api/session");
    admin.csrf = current.admin ? current.csrf : null;
    drawAdmin();
  });
}

function drawTables() {
  const grid = document.getElementById("tables");
  const boxes = [...state.tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  grid.replaceChildren(...boxes.map((b) => tableCard(state.tables.get(b))));
  document.getElementById("no-tables").hidden = boxes.length > 0;
  const online = [...state.tables.values()].filter((t) => t.online !== false).length;
  const playing = [...state.tables.values()].filter((t) => t.phase === "playing").length;
  document.getElementById("summary").textContent =
    // English says "tables" even of one (as it always did); other languages choose
    tn("{online} of {n} tables online · {playing} playing", "{online} of {n} tables online · {playing} playing",
       boxes.length, { online, playing });
}

function drawTournament() {
  const body = document.getElementById("tournament");
  body.replaceChildren(...state.tournament.slice(0, 30).map((r, i) =>
    el("tr", {},
      el("td", { text: String(i + 1) }),
      el("td", { class: "name", text: r.name, title: r.tables.join(", ") }),
      el("td", { text: String(r.wins) }),
      el("td", { text: String(r.points) }),
      el("td", { text: duration(r.fastest_us) }),
      el("td", { text: duration(r.closest_us) }))));
}

function drawFinishes() {
  const list = document.getElementById("finishes");
  list.replaceChildren(...state.finishes.map((f) => {
    const runners = (f.presses || []).slice(1, 4).map((p) => `${p.name} +${duration(p.lead_us)}`);
    for (const p of (f.late || []).slice(0, 2)) runners.push(`${p.name} +${duration(p.lead_us)}`);
    return el("li", {},
      el("span", { class: "who", text: f.first }),
      el("span", { class: "where muted", text: [f.box, f.title || "", t("round {round}", { round: f.round })].join(" · ") }),
      el("span", { class: "how", text: [
        f.reaction_us != null ? t("{time} after go", { time: duration(f.reaction_us) }) : null,
        f.close ? t("too close to call") : f.lead_us != null ? t("by {time}", { time: duration(f.lead_us) }) : null,
      ].filter(Boolean).join(" · ") }),
      runners.length ? el("span", { class: "runners muted", text: runners.join("  ") }) : null);
  }));
}

function addFinish(f) {
  state.finishes = [f, ...state.finishes.filter((x) => x.key !== f.key)].slice(0, MAX_FINISHES);
}

// The link to the hub in words, whenever the page does not hear it.
const LINK_TEXT = {
  connecting: t("connecting to the hub…"),
  reconnecting: t("reconnecting to the hub…"),
};

// The dot is green only when the page hears the hub AND the hub hears the broker;
// otherwise the reason is written: the broker's next to the dot ("broker unreachable:
// ..."), the page's own link to the hub in a note (what the hub said last is stale then).
function drawStatus() {
  const dot = document.getElementById("live");
  const text = document.getElementById("broker");
  const note = document.getElementById("link-note");
  const broker = state.broker;
  const hearing = state.stream === "live";
  let status = state.stream;
  let reason = "";
  if (hearing && broker && broker.state !== "connected") {
    status = "down";
    reason = (broker.said && broker.said[lang]) || broker.text || t("broker {state}", { state: broker.state });
  }
  dot.dataset.status = status;
  dot.title = hearing ? reason || t("live") : Object.hasOwn(LINK_TEXT, status) ? LINK_TEXT[status] : status;
  text.textContent = reason;
  note.hidden = hearing;
  note.textContent = hearing ? "" : dot.title;
  document.getElementById("no-tables").textContent = status === "live"
    ? t("No table has reached the broker yet.")
    : hearing
      ? t("No tables: the hub is not connected to the broker (see above).")
      : t("No tables yet: the page is not connected to the hub (see below).");
}

function setLive(status) {
  state.stream = status;
  drawStatus();
}

let every; // how often the hub sends keepalives (ms), once it said

function connect() {
  const source = new EventSource("/api/events");
  // EventSource reconnects by itself after an error; a stream that went quiet (no error
  // comes) or that the hub refused (closed for good) is opened again when this fires
  const watchdog = new Watchdog(() => {
    source.close();
    setLive("reconnecting");
    connect();
  }, every);
  // anything the hub sends says it lives; a keepalive also says how often it comes
  const heard = (e) => {
    watchdog.heard(e && e.type === "keepalive" ? e.data : null);
    every = watchdog.every;
    if (state.stream !== "live") setLive("live");
  };
  source.addEventListener("open", heard);
  source.addEventListener("keepalive", heard);
  source.addEventListener("error", () => setLive("reconnecting"));
  source.addEventListener("board", (e) => {
    heard();
    const board = JSON.parse(e.data);
    state.tables = new Map(board.tables.map((t) => [t.box, t]));
    state.tournament = board.tournament;
    state.finishes = board.finishes;
    state.broker = board.broker || null;
    drawTables(); drawTournament(); drawFinishes(); drawStatus();
  });
  source.addEventListener("broker", (e) => { heard(); state.broker = JSON.parse(e.data); drawStatus(); });
  source.addEventListener("gone", (e) => {
    heard();
    state.tables.delete(JSON.parse(e.data).box);
    drawTables();
  });
  source.addEventListener("table", (e) => {
    heard();
    const t = JSON.parse(e.data);
    state.tables.set(t.box, t);
    drawTables();
  });
  source.addEventListener("race", (e) => { heard(); addFinish(JSON.parse(e.data)); drawFinishes(); });
  source.addEventListener("tournament", (e) => {
    heard();
    state.tournament = JSON.parse(e.data);
    drawTournament();
  });
}

// the language switch in the bar: the phone keeps the choice
document.getElementById("lang-switch")?.addEventListener("change", (e) => choose(e.target.value));
setUpAdmin();
connect();
