// The result card (an image the box draws: /api/export/card.svg) shared or saved from
// the phone: the share sheet with the card as a PNG file where the browser can share
// files (navigator.canShare), else the PNG downloaded; the SVG if no PNG can be made.
import { h } from "./dom.js";
import { t } from "./i18n.js";

const CARD = "/api/export/card.svg";
const SCALE = 2; // twice the card's size: sharp on a phone's screen

/** The box's card drawn into a PNG file by the browser (its canvas: no library). */
export async function cardPng(name) {
  const img = new Image();
  img.src = `${CARD}?t=${Date.now()}`;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.naturalWidth * SCALE;
  canvas.height = img.naturalHeight * SCALE;
  const ctx = canvas.getContext("2d");
  ctx.scale(SCALE, SCALE);
  ctx.drawImage(img, 0, 0);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
  if (!blob) throw new Error("this browser cannot make a PNG");
  return new File([blob], name, { type: "image/png" });
}

function download(href, name) {
  const a = h("a", { href, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
}

/** Share the card, or save it; `say(text)` tells what happened. */
async function shareCard(name, title, say) {
  let file;
  try {
    file = await cardPng(`${name}.png`);
  } catch {
    say(t("The card is saved as an SVG: this browser could not turn it into a PNG."));
    download(CARD, `${name}.svg`);
    return;
  }
  const data = { files: [file], title, text: `${title} · buzzerbox` };
  if (navigator.canShare?.(data)) {
    try {
      await navigator.share(data);
      say(t("Shared."));
      return;
    } catch (err) {
      if (err.name === "AbortError") return say(""); // the sheet was closed: nothing to do
      say(t("The phone would not share the card: it is saved instead."));
    }
  } else say(t("Saved: this browser cannot share files, the card is in your downloads."));
  const url = URL.createObjectURL(file);
  download(url, file.name);
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The button (and its note) for a finished game's card. */
export function shareButton(state) {
  const note = h("span", { class: "muted small", role: "status", "data-testid": "share-note" });
  const label = navigator.share ? t("Share the result card") : t("Save the result card");
  const b = h("button", { type: "button", class: "ghost", "data-testid": "share-card" }, label);
  const name = `buzzerbox-game-${state.box?.game_id ?? "result"}`;
  const title = state.winners?.length
    ? t("{names} won {game}", { names: state.winners.join(" & "), game: state.title })
    : state.title || "buzzerbox";
  b.addEventListener("click", async () => {
    b.disabled = true;
    try {
      await shareCard(name, title, (text) => {
        note.textContent = text;
      });
    } finally {
      b.disabled = false;
    }
  });
  return h("p", { class: "share" }, b, " ", note);
}
