// Form pieces for the table view: count fields with steppers, and errors placed
// at the field they concern (the rules' own words, as the box sends them).
import { dot, h } from "./dom.js";
import { t } from "./i18n.js";

/** A number field for one player: − [ n ] +, with its error line under it. */
export function counter({ seat, name, label, value = "", min = 0, max = 40, badge = null, hint = null, testid }) {
  const input = h("input", {
    type: "number",
    inputmode: "numeric",
    pattern: "[0-9]*",
    min,
    max,
    step: 1,
    id: `${testid}-input`,
    name,
    "data-testid": testid,
    "data-name": name,
    "aria-describedby": `${testid}-error`,
    value: value === null || value === undefined ? "" : String(value),
  });
  const bump = (d) => () => {
    const n = input.value === "" ? (d > 0 ? min - 1 : min + 1) : Number(input.value);
    input.value = String(Math.max(min, Math.min(max, n + d)));
    input.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const error = h("p", {
    class: "field-error",
    id: `${testid}-error`,
    "data-testid": `${testid}-error`,
    role: "alert",
  });
  const row = h(
    "div",
    { class: "count-row", "data-seat": seat },
    h(
      "label",
      { for: `${testid}-input`, class: "count-label" },
      dot(seat),
      h("span", { class: "name" }, label || name),
      badge ? h("span", { class: "badge" }, badge) : null,
      hint ? h("span", { class: "hint muted small" }, hint) : null,
    ),
    h(
      "div",
      { class: "stepper" },
      h("button", { type: "button", class: "step", "aria-label": t("one less for {name}", { name }), onclick: bump(-1) }, "−"),
      input,
      h("button", { type: "button", class: "step", "aria-label": t("one more for {name}", { name }), onclick: bump(1) }, "+"),
    ),
    error,
  );
  return { row, input, error };
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Which player an error is about. The rules lead with the player when they can
 * ("Cara: 12 cards…"); else the last player named is the one to correct ("…only
 * possible for the caller, Ben; Cara has 1 to 10 cards left"); else the box's
 * `field`. null: the whole form.
 */
export function fieldOf(err, names) {
  const msg = err.message || "";
  const lead = names.find((n) => msg.startsWith(`${n}:`) || msg.startsWith(`${n} `));
  if (lead) return lead;
  let best = null;
  let at = -1;
  for (const n of names) {
    const re = new RegExp(`(^|[^\\p{L}\\p{N}])${escape(n)}(?![\\p{L}\\p{N}])`, "gu");
    for (const m of msg.matchAll(re)) {
      if (m.index > at) {
        at = m.index;
        best = n;
      }
    }
  }
  if (best) return best;
  return err.field && names.includes(err.field) ? err.field : null;
}

/** Clear the errors of a form. */
export function clearErrors(form) {
  for (const el of form.querySelectorAll(".field-error, .form-error")) el.textContent = "";
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
}

/** Put `err` at its field (by player name) or at the form's top. */
export function showError(form, err, fields, formError) {
  const names = Object.keys(fields);
  const who = fieldOf(err, names);
  if (who && fields[who]) {
    fields[who].error.textContent = err.message;
    fields[who].input.setAttribute("aria-invalid", "true");
    fields[who].input.focus({ preventScroll: true });
    fields[who].row.scrollIntoView({ block: "center", behavior: "smooth" });
  } else {
    formError.textContent = err.message;
    formError.scrollIntoView({ block: "center", behavior: "smooth" });
  }
}

/** Counts {name: n} from the fields; a blank field is left out (the rules say what is missing). */
export function countsOf(fields) {
  const counts = Object.create(null); // a player may be called "__proto__"
  for (const [name, f] of Object.entries(fields)) {
    if (f.input.value.trim() !== "") counts[name] = Number(f.input.value);
  }
  return counts;
}

/** A submit button that shows it is busy while `work` runs. */
export async function busy(button, work) {
  button.disabled = true;
  button.classList.add("busy");
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.classList.remove("busy");
  }
}
