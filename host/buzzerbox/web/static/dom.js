// Small DOM helpers shared by every page. Text always goes in as text (never HTML):
// player names are typed at the table.
import { lang } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

function build(el, props, children) {
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") el.textContent = value;
    else if (key === "class") el.setAttribute("class", value);
    else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "value" || key === "checked" || key === "disabled") el[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element: h("p", {class: "x", "data-testid": "y"}, "text", child...). */
export function h(tag, props = {}, ...children) {
  return build(document.createElement(tag), props, children);
}

/** An SVG element, same calling convention as h(). */
export function s(tag, props = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), props, children);
}

/** Replace the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  return build(el, {}, children);
}

export const $ = (sel, root = document) => root.querySelector(sel);

// each seat's colour as the box says it (state.box.colours): a colour follows its
// player's name through the games, not the seat
let colours = [];

/** The colours of the state the page shows now (common.js sets them on every state). */
export function useColours(list) {
  colours = Array.isArray(list) ? list : [];
}

/** The class giving a seat's player their colour (12 colours; the seat's own
 * before the box has said). */
export function seatClass(seat) {
  const c = colours[seat];
  return `p${Number.isInteger(c) ? c % 12 : seat % 12}`;
}

/** A coloured dot for a seat. */
export const dot = (seat) => h("span", { class: `dot ${seatClass(seat)}`, "aria-hidden": "true" });

const formats = new Map();
const plain = new Intl.NumberFormat(lang); // up to 3 decimals, as they come

/** `n` (0 or more) as the page's language writes it, with `digits` decimals:
 * 12.345 in English, 12,345 in German. */
export function decimal(n, digits = 0) {
  if (!formats.has(digits)) {
    formats.set(digits, new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  }
  return formats.get(digits).format(n);
}

/** A lead over the first press: µs below 1 ms, then ms to the µs, then s. */
export function lead(us) {
  if (us === null || us === undefined) return "";
  const sign = us < 0 ? "−" : "+";
  const a = Math.abs(us);
  if (a < 1000) return `${sign}${decimal(a)} µs`;
  if (a < 1_000_000) return `${sign}${decimal(a / 1000, 3)} ms`;
  return `${sign}${decimal(a / 1_000_000, 3)} s`;
}

/** A duration said in words for people: "0.42 s", "35 ms". */
export function span(us) {
  const a = Math.abs(us);
  if (a < 1000) return `${decimal(a)} µs`;
  if (a < 1_000_000) return `${decimal(Math.round(a / 1000))} ms`;
  return `${decimal(a / 1_000_000, 2)} s`;
}

/** English only ("3 rounds"): a text a person reads uses tn() of i18n.js. */
export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A number as people write it: a true minus sign for negatives (−38, never -38). */
export const num = (n) => (n < 0 ? `−${plain.format(-n)}` : plain.format(n));

/** A signed number for round points: +8, −3, 0. */
export const signed = (n) => (n > 0 ? `+${plain.format(n)}` : n < 0 ? `−${plain.format(-n)}` : "0");

const listed = (list) =>
  typeof Intl !== "undefined" && Intl.ListFormat
    ? new Intl.ListFormat(lang, { type: "conjunction" }).formatToParts(list)
    : list.flatMap((value, i) => [...(i ? [{ type: "literal", value: ", " }] : []), { type: "element", value }]);

/** Names as a language lists them: "Ann, Ben and Cem". */
export const names = (list) => listed(list).map((part) => part.value).join("");

/** The same list on the page, each name an element of its own (whole: fit.js). */
export const nameList = (list) => listed(list).map((part) => (part.type === "element" ? h("span", { class: "name" }, part.value) : part.value));

/** A translated sentence with elements in it: linked(t("Start one on the {link}."),
 * { link: h("a", …) }) gives the text around the element, the element in its place. */
export function linked(text, parts) {
  return text.split(/(\{\w+\})/).map((bit) => {
    const key = bit.slice(1, -1);
    return bit.startsWith("{") && Object.hasOwn(parts, key) ? parts[key] : bit;
  });
}

const graphemes = typeof Intl !== "undefined" && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;

/** `text` cut to at most `max` characters as people see them (an emoji or "ö" is one,
 * never split), with "…" when cut. */
export function clip(text, max) {
  const parts = graphemes ? [...graphemes.segment(text)].map((g) => g.segment) : Array.from(text);
  return parts.length <= max ? text : `${parts.slice(0, Math.max(1, max - 1)).join("")}…`;
}

/** Keep `el`'s content while `key` is unchanged, else rebuild it with `make()`. */
export function keyed(el, key, make) {
  if (el.dataset.key === key) return false;
  el.dataset.key = key;
  el.replaceChildren();
  build(el, {}, [make()]);
  return true;
}

/** A button that asks for a second tap before it acts (no confirm() dialogs). */
export function confirmButton(props, label, ask, act) {
  let armed = null;
  const btn = h("button", { type: "button", ...props }, label);
  btn.addEventListener("click", () => {
    if (armed) {
      clearTimeout(armed);
      armed = null;
      btn.textContent = label;
      btn.classList.remove("armed");
      act();
      return;
    }
    btn.textContent = ask;
    btn.classList.add("armed");
    armed = setTimeout(() => {
      armed = null;
      btn.textContent = label;
      btn.classList.remove("armed");
    }, 4000);
  });
  return btn;
}

// table[key] if the table has that key of its own, else `otherwise`: a name the box
// sends ("constructor", "__proto__") is never looked up on Object's prototype
export function ownName(table, key, otherwise = undefined) {
  return Object.hasOwn(table, key) ? table[key] : otherwise;
}
