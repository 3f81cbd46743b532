// The pages' words in the reader's language. Every text a person sees goes through
// t() (or tn() where it has a plural), written in English with {name} placeholders:
//   t("{name} was first!", { name })      tn("{n} card", "{n} cards", n, { n })
// The English text is the message's key (gettext's msgid). The page's language is
// the one its <html lang> names (the box chose it: server/language.py); its catalog
// (/i18n/<lang>.json, made from the gettext catalogs) is loaded before any module
// that imports this one runs. A text the catalog lacks is said in English.

// (no page: a module run under node, in the tests: English)
export const lang = globalThis.document?.documentElement?.lang || "en";

async function load() {
  if (lang === "en") return {};
  try {
    const answer = await fetch(`/i18n/${lang}.json`, { credentials: "same-origin" });
    return answer.ok ? (await answer.json()).messages : {};
  } catch {
    return {}; // the box is not answering: English, until the page is loaded again
  }
}

const messages = await load();
const plurals = new Intl.PluralRules(lang);

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
}

/** The text `msgid` in the page's language, its {placeholders} filled from `params`. */
export function t(msgid, params = {}) {
  const text = messages[msgid];
  return fill(typeof text === "string" && text ? text : msgid, params);
}

/** As t(), with the plural form for `n` ({n} is filled in too). */
export function tn(singular, plural, n, params = {}) {
  const forms = messages[singular];
  const one = plurals.select(n) === "one";
  const own = Array.isArray(forms) ? forms[one ? 0 : 1] : "";
  return fill(own || (n === 1 ? singular : plural), { n, ...params });
}

/** Say a page in another language: the phone keeps the choice (a cookie the box
 * reads for every page, a year long), and the page is drawn again in it. */
export function choose(language) {
  document.cookie = `lang=${encodeURIComponent(language)}; path=/; max-age=31536000; samesite=lax`;
  location.reload();
}
