// The admin PIN form. The box prints its PIN on its console at start.
import { login } from "./api.js";
import { fill, h } from "./dom.js";

/** `text` as a sentence: capitalised and ended with a full stop. */
function sentence(text) {
  const s = String(text).trim();
  if (!s) return s;
  const first = s[0].toUpperCase() + s.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** Show the PIN form in `el`; `onDone()` once the box has let us in. */
export function pinForm(el, onDone, why = "The table view is for the table's scorekeeper.") {
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
  const button = h("button", { type: "submit", class: "primary", "data-testid": "pin-submit" }, "Unlock");
  const form = h(
    "form",
    { class: "pin-form", novalidate: true },
    h("h1", {}, "Admin PIN"),
    h("p", { class: "muted" }, sentence(why), " The PIN is shown on the box's console."),
    h("label", { for: "pin" }, "PIN"),
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
        err.status === 429 ? err.message || "Too many tries: wait a moment." : err.message || "Wrong PIN";
      input.select();
    } finally {
      button.disabled = false;
    }
  });
  fill(el, form);
  el.hidden = false;
  return input;
}
