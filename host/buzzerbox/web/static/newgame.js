// The new-game form: game, players, target or rounds, variants.
import { post } from "./api.js";
import { h } from "./dom.js";
import { busy, clearErrors } from "./forms.js";
import { TITLES } from "./game.js";
import { t } from "./i18n.js";

const GAMES = {
  ligretto: { min: 2, max: 12, note: t("2–12 players: a box of 4 sets serves 4, two boxes 8, three 12") },
  twist: { min: 2, max: 4, rounds: 5, note: t("2–4 players, 5 rounds unless agreed; fewest cards left win") },
  kids: { min: 2, max: 5, rounds: 3, note: t("2–5 players, 3 rounds; fewest cards left win") },
  twinit: { min: 2, max: 8, note: t("The first to 5 takes wins") },
};

const VARIANTS = {
  ligretto: [
    ["row-storage", t("The row as interim storage")],
    ["one-card", t("Turn the hand one card at a time")],
  ],
  kids: [["beginners", t("Beginners' version (own piles, from age 4)")]],
};

const STORE = "buzzerbox.newgame";

function remembered() {
  try {
    return JSON.parse(localStorage.getItem(STORE)) || {};
  } catch {
    return {};
  }
}

/** The form; `onCreated()` after the box has made the game. */
export function newGameForm(onCreated, onCancel = null) {
  const last = remembered();
  let game = last.game in GAMES ? last.game : "ligretto";
  const names = (last.players || []).length >= 2 ? [...last.players] : ["", ""];

  const formError = h("p", { class: "form-error", role: "alert", "data-testid": "newgame-error" });
  const gamePick = h("div", { class: "segmented wrap", role: "radiogroup", "aria-label": t("Game") });
  const playersEl = h("ol", { class: "player-list", "data-testid": "player-list" });
  const playersError = h("p", { class: "field-error", "data-testid": "players-error", role: "alert" });
  const addBtn = h("button", { type: "button", class: "ghost", "data-testid": "add-player" }, t("+ Add a player"));
  const courseEl = h("div", { class: "course" });
  const variantsEl = h("div", { class: "variants" });
  const note = h("p", { class: "muted small" });
  const submit = h("button", { type: "submit", class: "primary big", "data-testid": "create-game" }, t("Start the game"));

  const mode = { value: last.mode === "rounds" ? "rounds" : "target" };
  const target = { value: [50, 99, 150].includes(last.target) ? last.target : 99 };
  const roundsInput = h("input", {
    type: "number",
    inputmode: "numeric",
    min: 1,
    max: 99,
    value: String(last.rounds || 5),
    id: "rounds",
    "data-testid": "rounds",
  });

  function radio(group, value, label, checked, onpick, testid) {
    const id = `${group}-${value}`;
    return [
      h("input", {
        type: "radio",
        name: group,
        id,
        value,
        checked,
        onchange: () => onpick(value),
      }),
      h("label", { for: id, "data-testid": testid }, label),
    ];
  }

  function drawGames() {
    gamePick.replaceChildren(
      ...Object.keys(GAMES).flatMap((g) =>
        radio("game", g, TITLES[g], g === game, (v) => {
          game = v;
          drawAll();
        }, `game-${g}`),
      ),
    );
  }

  function drawPlayers() {
    const { min, max } = GAMES[game];
    while (names.length < min) names.push("");
    playersEl.replaceChildren(
      ...names.map((n, i) =>
        h(
          "li",
          { class: "player-row" },
          // the seat's number, not a colour: a player's colour is theirs, given by the
          // box when the game starts (it follows the name through the games)
          h("span", { class: "seat-no", "aria-hidden": "true" }, String(i + 1)),
          h("input", {
            type: "text",
            value: n,
            maxlength: 24,
            autocomplete: "off",
            autocapitalize: "words",
            enterkeyhint: "next",
            placeholder: t("Player {n}", { n: i + 1 }),
            "aria-label": t("Player {n}", { n: i + 1 }),
            "data-testid": `player-name-${i}`,
            oninput: (e) => {
              names[i] = e.target.value;
            },
          }),
          h(
            "button",
            {
              type: "button",
              class: "icon",
              "aria-label": t("Remove player {n}", { n: i + 1 }),
              disabled: names.length <= min,
              onclick: () => {
                names.splice(i, 1);
                drawPlayers();
              },
            },
            "×",
          ),
        ),
      ),
    );
    addBtn.disabled = names.length >= max;
  }

  function drawCourse() {
    courseEl.replaceChildren();
    if (game === "ligretto") {
      const targets = h(
        "div",
        { class: "segmented", role: "radiogroup", "aria-label": t("Target") },
        [50, 99, 150].flatMap((t) =>
          radio("target", String(t), String(t), mode.value === "target" && target.value === t, () => {
            mode.value = "target";
            target.value = t;
            drawCourse();
          }, `target-${t}`),
        ),
      );
      courseEl.append(
        h("p", { class: "label" }, t("Play to")),
        targets,
        h(
          "div",
          { class: "segmented" },
          // one group with the targets: the arrows go from 150 on to a number of rounds
          radio("target", "rounds", t("Or a number of rounds"), mode.value === "rounds", () => {
            mode.value = "rounds";
            drawCourse();
          }, "mode-rounds"),
        ),
        ...(mode.value === "rounds"
          ? [h("div", { class: "row" }, h("label", { for: "rounds" }, t("Rounds")), roundsInput)]
          : []),
      );
    } else if (GAMES[game].rounds) {
      if (!last.rounds || last.game !== game) roundsInput.value = String(GAMES[game].rounds);
      courseEl.append(h("div", { class: "row" }, h("label", { for: "rounds" }, t("Rounds")), roundsInput));
    }
  }

  function drawVariants() {
    const list = VARIANTS[game] || [];
    variantsEl.replaceChildren(
      ...(list.length ? [h("p", { class: "label" }, t("Variants"))] : []),
      ...list.map(([value, label]) =>
        h(
          "label",
          { class: "check" },
          h("input", {
            type: "checkbox",
            value,
            checked: (last.variants || []).includes(value),
            "data-testid": `variant-${value}`,
          }),
          label,
        ),
      ),
    );
  }

  function drawAll() {
    drawGames();
    drawPlayers();
    drawCourse();
    drawVariants();
    note.textContent = GAMES[game].note;
  }

  addBtn.addEventListener("click", () => {
    names.push("");
    drawPlayers();
    playersEl.querySelector("li:last-child input")?.focus();
  });

  const form = h(
    "form",
    { class: "new-game", novalidate: true, "data-testid": "newgame-form" },
    h("h1", {}, t("New game")),
    h("p", { class: "label" }, t("Game")),
    gamePick,
    note,
    h("p", { class: "label" }, t("Players, in seat order")),
    playersEl,
    playersError,
    addBtn,
    courseEl,
    variantsEl,
    formError,
    h("div", { class: "actions" }, submit, onCancel ? h("button", { type: "button", class: "ghost", onclick: onCancel }, t("Cancel")) : null),
  );

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    clearErrors(form);
    const players = names.map((n) => n.trim()).filter(Boolean);
    const body = { game, players };
    const variants = [...variantsEl.querySelectorAll("input:checked")].map((i) => i.value);
    if (variants.length) body.variants = variants;
    if (game === "ligretto") {
      if (mode.value === "target") body.target = target.value;
      else body.rounds = Number(roundsInput.value);
    } else if (GAMES[game].rounds) body.rounds = Number(roundsInput.value);
    await busy(submit, async () => {
      try {
        await post("/api/game", body);
        localStorage.setItem(
          STORE,
          JSON.stringify({ game, players, mode: mode.value, target: target.value, rounds: body.rounds, variants }),
        );
        onCreated();
      } catch (err) {
        const where = err.field && err.field !== "game" && err.field !== "target" && err.field !== "rounds" ? playersError : formError;
        where.textContent = err.message;
      }
    });
  });

  drawAll();
  return form;
}
