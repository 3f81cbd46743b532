// The admin PIN form. The box prints its PIN on its console at start.
import { login } from "./api.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";

const WHERE = t("The PIN is shown on the box's console.");
// the word the box's own words use for its console, in the page's language
const CONSOLE = new RegExp(String.raw`\b` + t("console") + String.raw`\b`, "iu");

/** Why the PIN is asked, as one sentence, and where to find the PIN unless the box's
 * own words already say it. */
function sentence(why) {
  const text = why.trim().replace(/^./, (c) => c.toUpperCase());
  const stop = /[.!?…]$/.test(text) ? text : `${text}.`;
  return CONSOLE.test(stop) ? stop : `${stop} ${WHERE}`;
}

/** Show the PIN form in `el`; `onDone()` once the box has let us in. */
export function pinForm(el, onDone, why = t("The table view is for the table's scorekeeper.")) {
  const input = h("input", {
    id: "pin",
    name: "pin",
    type: "password",
    inputmode: "numeric",
    autocomplete: "current-password",
    required: true,
    "data-testid": "pin-input",
    "aria-describedby": "pin-error",
  });
  const error = h("p", { class: "field-error", id: "pin-error", "data-testid": "pin-error", role: "alert" });
  const button = h("button", { type: "submit", class: "primary", "data-testid": "pin-submit" }, t("Unlock"));
  const form = h(
    "form",
    { class: "pin-form", novalidate: true },
    h("h1", {}, t("Admin PIN")),
    h("p", { class: "muted", "data-testid": "pin-why" }, sentence(why)),
    h("label", { for: "pin" }, t("PIN")),
    h("div", { class: "row" }, input, button),
    error,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    button.disabled = true;
    error.textContent = "";
    try {
      await login(input.value.trim());
      input.value = "";
      onDone();
    } catch (err) {
      error.textContent =
        err.status === 429 ? err.message || t("Too many tries: wait a moment.") : err.message || t("Wrong PIN");
      input.select();
    } finally {
      button.disabled = false;
    }
  });
  fill(el, form);
  el.hidden = false;
  return input;
}
