// Too close to call (issue 41): a press carries its timing error (`error_us`, ±; none: a
// wired pad, good to the µs). Two presses no further apart than their two errors added
// up cannot be told apart, so no page declares a margin between them: it says they were
// too close to call and how it was decided. The same judgement as the rules' too_close
// (rules/timing.py), which makes such a stop race a tie and such a claim a split.
import { lead } from "./dom.js";
import { t } from "./i18n.js";

export const errorOf = (p) => (p && p.error_us) || 0;

/** Whether presses `a` and `b` ({t_us, error_us}) are too close to call. */
export const tooClose = (a, b) => Math.abs(b.t_us - a.t_us) <= errorOf(a) + errorOf(b);

const amount = (us) => lead(us).slice(1); // "0.200 ms", in the page's language

/** How a race too close to call was decided, as the rules have it: Twin It!'s dispute is
 * a split (the pair turned over on 3); a stop race the table's (it names the caller). */
export function decidedBy(state) {
  if (state.game === "twinit") return t("The rules' way: a split, the pair turned over on 3.");
  return state.caller ? t("The table named {name} the caller.", { name: state.caller }) : t("The table names the caller.");
}

/** "by 1.234 ms over Ben", or, too close to call, "too close to call with Ben: 0.200 ms
 * apart, each timed to ±0.900 ms". */
export function marginWords(first, runner) {
  if (!tooClose(first, runner)) return t("by {lead} over {name}", { lead: amount(runner.lead_us ?? runner.t_us - first.t_us), name: runner.name });
  const error = Math.max(errorOf(first), errorOf(runner));
  const gap = Math.abs(runner.t_us - first.t_us);
  if (!error) return t("too close to call with {name}: the same µs", { name: runner.name });
  return t("too close to call with {name}: {gap} apart, timed to ±{error}", { name: runner.name, gap: amount(gap), error: amount(error) });
}
