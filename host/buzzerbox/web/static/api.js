// The box's JSON API, its live state stream and the admin session.
import { Watchdog } from "./keepalive.js";
import { applyPatch } from "./patch.js";
import { t } from "./i18n.js";

let csrf = null;
let authLost = null;
let stateSink = null; // follow()'s: a POST that answers with the state shows it at once

/** `fn(error)` runs when the box no longer takes our admin session (401/403). */
export function whenAuthLost(fn) {
  authLost = fn;
}

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error) || t("the box answered {status}", { status }));
    this.status = status;
    this.code = (body && body.code) || null;
    this.field = (body && body.field) || null;
  }
}

async function call(method, path, body) {
  const headers = { Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin", cache: "no-store" };
  if (method !== "GET") {
    headers["Content-Type"] = "application/json";
    if (csrf) headers["X-CSRF-Token"] = csrf;
    init.body = JSON.stringify(body ?? {});
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, { error: t("the box cannot be reached: is the phone on its wifi?") });
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const err = new ApiError(response.status, data);
    if ((err.status === 401 || err.status === 403) && path !== "/api/login" && authLost) authLost(err);
    throw err;
  }
  return data;
}

export const get = (path) => call("GET", path);
export async function post(path, body) {
  const data = await call("POST", path, body);
  if (data && typeof data === "object" && data.box && stateSink) stateSink(data);
  return data;
}

/** A game-log event for the table: {type: "stacks", counts: {...}} and so on. */
export const send = (type, fields = {}) => post("/api/event", { type, ...fields });

/** The admin session: {admin, csrf}. Keeps the CSRF token for later posts. */
export async function session() {
  const s = await get("/api/session");
  csrf = s.csrf || csrf;
  return s;
}

export async function login(pin) {
  if (!csrf) await session().catch(() => null);
  const r = await post("/api/login", { pin });
  csrf = (r && r.csrf) || csrf;
  return r;
}

export async function logout() {
  await post("/api/logout", {});
  await session().catch(() => null);
}

/**
 * Follow the state: /api/state now, then the live stream /api/events: the full
 * state (`state`), then what changed (`delta`, a JSON Patch applied to the stream's
 * copy of the state, so each page's render gets a whole state as before).
 * EventSource reconnects by itself (sending Last-Event-ID: the box sends the deltas
 * since, or the full state); when the phone wakes up the state is fetched again; a
 * delta that does not fit opens a new stream (no Last-Event-ID: the full state), and
 * so does a stream that went quiet for two keepalives (keepalive.js).
 * `onState(state)` gets every new state;
 * `onStatus("live" | "reconnecting" | "connecting")` the connection's.
 */
export function follow(onState, onStatus = () => {}) {
  let latest = null;
  const seqOf = (state) => (state && state.box && Number(state.box.seq)) || 0;
  // states come by the stream (in order: always shown), by fetches and as answers
  // to posts, which never replace a newer state (by the box's log seq)
  const show = (state) => {
    latest = state;
    onState(state);
  };
  const deliver = (state) => {
    if (!latest || seqOf(state) >= seqOf(latest)) show(state);
  };
  stateSink = deliver;
  const refresh = () => {
    get("/api/state").then(deliver, () => onStatus("reconnecting"));
  };
  let every; // how often the box sends keepalives (ms), once it said
  const connect = () => {
    const source = new EventSource("/api/events");
    let base = null; // the stream's state: the deltas apply to it
    const close = () => {
      watchdog.stop();
      source.close();
    };
    const resync = () => {
      close();
      connect();
    };
    const watchdog = new Watchdog(() => {
      onStatus("reconnecting"); // the box went quiet: no error comes, so ask again
      resync();
    }, every);
    const heard = () => {
      watchdog.heard();
      onStatus("live");
    };
    source.addEventListener("keepalive", (e) => {
      watchdog.heard(e.data);
      every = watchdog.every;
      onStatus("live");
    });
    source.addEventListener("state", (e) => {
      heard();
      try {
        base = JSON.parse(e.data);
      } catch {
        resync(); // a bad message: start again with the whole state
        return;
      }
      show(base);
    });
    source.addEventListener("delta", (e) => {
      heard();
      try {
        if (!base) throw new Error("a delta before the state");
        base = applyPatch(base, JSON.parse(e.data));
      } catch {
        resync();
        return;
      }
      show(base);
    });
    source.addEventListener("open", heard);
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) {
        onStatus("reconnecting");
        return;
      }
      // refused outright (the box restarting): EventSource gives up, we do not
      watchdog.stop();
      onStatus("offline");
      setTimeout(() => {
        connect();
        refresh();
      }, 3000);
    });
  };
  connect();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refresh();
  });
  window.addEventListener("pageshow", (e) => {
    if (e.persisted) refresh();
  });
  refresh();
  return { refresh, latest: () => latest };
}
