// The table view's seats and pads: which pad is whose (enrolment of real pads: the
// box waits for the next press of a pad), or a note that the pads are virtual.
import { post } from "./api.js";
import { $, dot, fill, h, linked, ownName, seatClass } from "./dom.js";
import { busy } from "./forms.js";
import { t, tn } from "./i18n.js";

const ROLES = { stop: t("stop"), slap: t("slap"), pile: t("pile") };

function padsOf(st, seat) {
  return ((st.box && st.box.pads) || []).filter((p) => p.seat === seat);
}

/** Enrolment: {seat} waits for the next press of a pad; {seat: null} stops; {reset: true}. */
function enrol(button, body, report) {
  return busy(button, () => post("/api/enrol", body).catch(report));
}

function resetButton(report) {
  const b = h("button", { type: "button", class: "ghost small-btn", "data-testid": "enrol-reset" }, t("Back to the pad map's seats"));
  b.addEventListener("click", () => enrol(b, { reset: true }, report));
  return b;
}

/** Pile numbers as people write them: "1–8", or "1, 3, 4" when some are not there. */
function pileNumbers(piles) {
  const n = piles.map((p) => p.pile + 1).sort((a, b) => a - b);
  const run = n.every((v, i) => !i || v === n[i - 1] + 1);
  return run ? `${n[0]}–${n.at(-1)}` : n.join(", ");
}

const ROLE_WORDS = { stop: () => t("stop pad"), slap: () => t("slap pad") };

/** One seat's pads in a line: its stop or slap pad, then its piles in one item (a
 * Twist seat has 8: "stop pad, 8 pile pads (1–8)"), enrolled pads each by name. The
 * virtual pads' labels repeat the player's name: they are said by their role; a real
 * pad by its role and id ("stop · pad north": the box's `label` is English). */
function padList(pads, simulated) {
  if (!pads.length) return t("no pad yet");
  const piles = pads.filter((p) => p.role === "pile" && !p.enrolled && p.pile !== null);
  const grouped = piles.length > 2 ? piles : [];
  const named = (pad) => {
    if (!simulated) return t("{role} · pad {id}", { role: ownName(ROLES, pad.role, pad.role), id: pad.id });
    if (pad.role === "pile") return t("pile {n}", { n: pad.pile + 1 });
    return ownName(ROLE_WORDS, pad.role, () => pad.role)();
  };
  const items = pads
    .filter((pad) => !grouped.includes(pad))
    .map((pad) => [named(pad), pad.enrolled ? h("span", { class: "badge ok enrolled" }, t("enrolled")) : null]);
  if (grouped.length) {
    const n = grouped.length;
    items.push(tn("{n} pile pad ({piles})", "{n} pile pads ({piles})", n, { piles: pileNumbers(grouped) }));
  }
  return items.map((item, i) => [i ? ", " : "", item]);
}

/** The seats card: shown between rounds; `hidden` while a new game is being made. */
export function renderSeats(st, report, hidden = false) {
  const card = $("#seats-card");
  card.hidden = !st.game || !["lobby", "scored"].includes(st.phase) || hidden;
  if (card.hidden) return;
  const box = st.box || {};
  const pads = box.pads || [];
  const waitingSeat = box.enrolling ?? null;
  const key = JSON.stringify([box.game_id, st.players.map((p) => p.name), pads, waitingSeat, box.simulated]);
  if (card.dataset.key === key) return;
  card.dataset.key = key;
  const unused = pads.filter((p) => p.seat >= st.players.length).length;
  const enrolled = pads.some((p) => p.enrolled);
  fill(
    $("#seats"),
    st.players.map((p, seat) => {
      const waiting = waitingSeat === seat;
      const mine = padsOf(st, seat);
      const button = h(
        "button",
        { type: "button", class: `ghost small-btn${waiting ? " armed" : ""}`, "data-testid": `enrol-${seat}` },
        waiting ? t("Cancel") : mine.length ? t("Reassign the pad") : t("Enrol a pad"),
      );
      button.addEventListener("click", () => enrol(button, { seat: waiting ? null : seat }, report));
      return h(
        "li",
        { class: `seat ${seatClass(seat)}${waiting ? " waiting" : ""}`, "data-testid": `seat-${seat}` },
        dot(seat),
        h(
          "span",
          { class: "who" },
          h("span", { class: "name" }, p.name),
          h(
            "span",
            { class: "muted small", "data-testid": `seat-pads-${seat}`, "aria-live": "polite" },
            waiting ? t("Press {name}'s pad now…", { name: p.name }) : padList(mine, box.simulated),
          ),
        ),
        box.simulated ? null : button,
      );
    }),
    box.simulated
      ? h("li", { class: "muted small note" }, linked(t("A simulated box: its virtual pads are on {link}."), { link: h("a", { href: "/pads" }, t("Pads")) }))
      : [
          h(
            "li",
            { class: "muted small note" },
            t("Tap a seat's button, then press that player's pad: it is theirs for this game, in place of the seat's pad of that role."),
            " ",
            unused
              ? tn(
                  "{n} pad of the pad map is for seats this game does not have.",
                  "{n} pads of the pad map are for seats this game does not have.",
                  unused,
                )
              : "",
            unused ? " " : "",
            h("a", { href: "/pads", "data-testid": "pad-test-link" }, t("Test the pads")),
          ),
          enrolled ? h("li", { class: "note" }, resetButton(report)) : null,
        ],
  );
}

/** Phones as pads: the host's switch, and each seat a phone took, to free it. */
export function renderPhones(st, report, hidden = false) {
  const card = $("#phones");
  const phones = (st.box && st.box.phones) || { on: false, taken: [] };
  card.hidden = !st.game || st.phase === "finished" || hidden;
  if (card.hidden) return;
  const key = JSON.stringify([phones, st.players.map((p) => p.name)]);
  if (card.dataset.key === key) return;
  card.dataset.key = key;
  const toggle = h(
    "button",
    { type: "button", class: "ghost", "aria-pressed": String(phones.on), "data-testid": "phones-toggle" },
    phones.on ? t("Phones as pads: on") : t("Phones as pads: off"),
  );
  toggle.addEventListener("click", () => busy(toggle, () => post("/api/phones", { on: !phones.on }).catch(report)));
  fill(
    card,
    h("h2", {}, t("Phones as pads")),
    h(
      "p",
      { class: "muted small" },
      phones.on
        ? t("Guests scan the code, tap “Play on this phone” and pick their seat once.")
        : t("Switch on to let each guest's phone be their seat's buzzer."),
    ),
    toggle,
    phones.on && phones.taken.length
      ? h(
          "ul",
          { class: "seats", "data-testid": "phone-seats" },
          phones.taken.map((seat) => {
            const free = h(
              "button",
              { type: "button", class: "ghost small-btn", "data-testid": `phone-free-${seat}` },
              t("Free the seat"),
            );
            free.addEventListener("click", () => busy(free, () => post("/api/phones/free", { seat }).catch(report)));
            return h(
              "li",
              { class: `seat ${seatClass(seat)}` },
              dot(seat),
              h(
                "span",
                { class: "who" },
                h("span", { class: "name" }, st.players[seat]?.name ?? t("seat {seat}", { seat: seat + 1 })),
                (phones.offline || []).includes(seat)
                  ? h("span", { class: "phone-offline small", "data-testid": `phone-offline-${seat}` }, t("its phone is offline"))
                  : h("span", { class: "muted small" }, t("a phone")),
              ),
              free,
            );
          }),
        )
      : null,
  );
}
