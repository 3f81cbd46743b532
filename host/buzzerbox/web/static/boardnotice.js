// A pad board gone at the table and on the TV (issue 42, item 7): which board, and
// which players' pads went with it, as soon as the box knows; and that it is back when
// it is. The box keeps each board's status with what the pad map calls it and the pads
// wired to it (state.box.boards, pads/feed.py board_json). A press on a gone board's
// pads is lost: the box reopens its port every 0.25 s and counts its pads once it is
// back.
import { dot, fill, h, linked, names, ownName, seatClass } from "./dom.js";
import { t } from "./i18n.js";

/** How long "back" stays up once a board returns, ms. */
export const BACK_MS = 8000;

const ROLES = { stop: t("stop"), slap: t("slap") };

/** What is wrong with a board that is not online, in words. */
function troubleText(b) {
  const board = b.name || b.board;
  if (b.status === "gone") return t("Pad board {board} is not connected", { board });
  if (b.status === "silent") return t("Pad board {board} is not answering", { board });
  return t("Pad board {board} runs another protocol version: install its firmware again", { board });
}

/** A seat's pads on the board: "stop, piles 1–4 and pile 6". */
function padsText(pads) {
  const words = pads.filter((p) => p.role !== "pile").map((p) => ownName(ROLES, p.role, p.role));
  const piles = [...new Set(pads.filter((p) => p.role === "pile").map((p) => p.pile + 1))].sort((a, b) => a - b);
  for (let i = 0; i < piles.length; ) {
    let j = i;
    while (j + 1 < piles.length && piles[j + 1] === piles[j] + 1) j += 1;
    words.push(j > i ? t("piles {first}–{last}", { first: piles[i], last: piles[j] }) : t("pile {pile}", { pile: piles[i] }));
    i = j + 1;
  }
  return names(words);
}

/** The board's pads in this game, by seat: [[seat, [pad, ...]], ...]. */
function bySeat(state, b) {
  const inGame = new Map(((state.box && state.box.pads) || []).map((p) => [p.id, p]));
  const seats = new Map();
  for (const id of b.pads || []) {
    const pad = inGame.get(id);
    if (!pad || pad.seat === null || pad.seat === undefined) continue;
    if (!seats.has(pad.seat)) seats.set(pad.seat, []);
    seats.get(pad.seat).push(pad);
  }
  return [...seats].sort((a, c) => a[0] - c[0]);
}

function seatLine(state, seat, pads) {
  const name = (state.players || [])[seat]?.name ?? t("seat {seat}", { seat: seat + 1 });
  return h(
    "li",
    { class: seatClass(seat), "data-testid": `board-note-seat-${seat}` },
    dot(seat),
    " ",
    linked(t("{name}: {pads}"), { name: h("span", { class: "name" }, name), pads: padsText(pads) }),
  );
}

function troubleItem(state, b) {
  const seats = bySeat(state, b);
  let pads;
  if (!b.pads) pads = h("p", {}, t("The box does not know its pads yet: the board has not said which one it is."));
  else if (!seats.length) pads = h("p", {}, t("No pad of this game is wired to it."));
  else
    pads = [
      h("p", {}, t("Presses on these pads are lost until it is back:")),
      h("ul", { class: "board-note-seats" }, seats.map(([seat, list]) => seatLine(state, seat, list))),
    ];
  return h(
    "li",
    { class: "board-note-item", "data-testid": `board-note-${b.board}`, "data-status": b.status },
    h("p", { class: "board-note-what" }, h("strong", {}, troubleText(b))),
    pads,
  );
}

function backItem(b) {
  return h(
    "li",
    { class: "board-note-item back", "data-testid": `board-note-${b.board}`, "data-status": "back" },
    h("p", { class: "board-note-what" }, h("strong", {}, t("Pad board {board} is back: its pads count again", { board: b.name || b.board }))),
  );
}

/**
 * The board notice in `el` (hidden while every board is online): returns the function
 * that draws it from a state. A board that comes back online says so for BACK_MS.
 */
export function boardNotice(el) {
  const last = new Map(); // board -> the status it had in the last state
  const back = new Map(); // board -> performance.now() until which it says it is back
  let shown = null;
  let timer = null;

  function draw(state) {
    shown = state;
    const boards = (state.box && state.box.boards) || [];
    const now = performance.now();
    for (const b of boards) {
      const before = last.get(b.board);
      if (b.status === "online" && before !== undefined && before !== "online") back.set(b.board, now + BACK_MS);
      if (b.status !== "online") back.delete(b.board);
      last.set(b.board, b.status);
    }
    for (const [board, until] of back) if (until <= now) back.delete(board);
    const trouble = boards.filter((b) => b.status !== "online");
    const returned = boards.filter((b) => back.has(b.board));
    const players = (state.players || []).map((p) => p.name);
    const key = JSON.stringify([trouble, returned.map((b) => b.board), players, state.box?.pads || []]);
    clearTimeout(timer);
    if (back.size) timer = setTimeout(() => draw(shown), Math.max(0, Math.min(...back.values()) - now) + 50);
    if (el.dataset.key === key) return;
    el.dataset.key = key;
    el.hidden = !trouble.length && !returned.length;
    el.dataset.status = trouble.length ? "trouble" : "back";
    fill(el, h("ul", { class: "board-note-list" }, trouble.map((b) => troubleItem(state, b)), returned.map(backItem)));
  }

  return draw;
}
