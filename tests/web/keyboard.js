// The keyboard test's tools in a page (tests/web/keyboard.py evaluates this through
// the DevTools protocol): marks on the controls, their focus ring, and the clicks,
// form submissions and requests the keys cause, caught and noted, never let through.
() => {
  const labelOf = (el) => el.labels && el.labels[0]
    || (el.nextElementSibling && el.nextElementSibling.matches("label") ? el.nextElementSibling : null);
  const seeThrough = (el) => el.matches("input[type=radio], input[type=checkbox]")
    && getComputedStyle(el).opacity === "0" && labelOf(el);
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const ringOf = (el) => {
    const cs = getComputedStyle(seeThrough(el) ? labelOf(el) : el);
    return [cs.outlineStyle, cs.outlineWidth, cs.outlineColor, cs.boxShadow];
  };
  const name = (el) => el.dataset.testid || el.id
    || `${el.tagName.toLowerCase()} "${(el.getAttribute("aria-label") || el.textContent || el.value || "").trim().slice(0, 30)}"`;
  const kind = (el) => {
    if (el.matches("a[href]")) return "link";
    if (el.matches("input[type=radio]")) return "radio";
    if (el.matches("input[type=checkbox]")) return "check";
    if (el.matches("input, textarea, select")) return "field";
    if (el.matches("button, summary, [role=button]")) return "button";
    return "region";
  };
  const log = {clicks: [], requests: []};
  window.kb = {
    log,
    mark() {
      const all = [...document.querySelectorAll(
        "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex], [role=button]")];
      const controls = all.filter((el) => !el.disabled && !el.closest("[hidden], [inert]")
        && !(kind(el) === "region" && el.tabIndex < 0)
        && (shown(el) || (seeThrough(el) && shown(labelOf(el)))));
      window.kbRing = new Map(controls.map((el) => [el, ringOf(el).join("|")]));
      return controls.map((el, i) => {
        el.dataset.kb = String(i);
        return {kb: String(i), name: name(el), kind: kind(el),
                group: el.type === "radio" ? el.name : null, tabindex: el.tabIndex};
      });
    },
    here() {
      const el = document.activeElement;
      if (!el || el === document.body || el === document.documentElement) return null;
      const [style, width, color, shadow] = ringOf(el);
      const outline = style !== "none" && parseFloat(width) >= 2 && !/, 0\)$|transparent/.test(color);
      const was = window.kbRing && window.kbRing.get(el);
      const changed = was !== undefined && was !== [style, width, color, shadow].join("|");
      return {kb: el.dataset.kb ?? null, name: name(el), kind: kind(el),
              ring: (outline || shadow !== "none") && changed,
              editable: kind(el) !== "field" || !(el.readOnly || el.disabled)};
    },
    take() {
      const out = {clicks: log.clicks.splice(0), requests: log.requests.splice(0)};
      return out;
    },
  };
  const caught = (e) => {
    const el = e.target instanceof Element ? e.target : null;
    log.clicks.push(el ? (el.dataset.kb ?? name(el)) : String(e.target));
    e.preventDefault();
    e.stopImmediatePropagation();
  };
  window.addEventListener("click", caught, true);
  window.addEventListener("submit", caught, true);
  // a request is kept in and answered here with an empty object, never failed (a buzzer
  // that saw its press fail takes itself for offline and refuses the next key on the
  // phone, rightly; the pads send a press only once the one before it is answered)
  window.fetch = (url) => {
    log.requests.push(String(url));
    return Promise.resolve(new Response("{}", { headers: { "Content-Type": "application/json" } }));
  };
  return true;
}
