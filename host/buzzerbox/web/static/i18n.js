// The pages' words in the reader's language. Every text a person sees goes through
// t() (or tn() where it has a plural), written in English with {name} placeholders:
//   t("{name} was first!", { name })      tn("{n} card", "{n} cards", n, { n })
// The English text is the message's key (gettext's msgid). Until the catalogs are
// loaded (issue 25), the English text is shown.

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
}

/** The text `msgid` in the page's language, its {placeholders} filled from `params`. */
export function t(msgid, params = {}) {
  return fill(msgid, params);
}

/** As t(), with the plural form for `n`. */
export function tn(singular, plural, n, params = {}) {
  return fill(n === 1 ? singular : plural, { n, ...params });
}
