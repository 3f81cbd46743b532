// "Pair a TV", in the table view's tools (issue 39, item 2): the link the TV opens once
// (GET /api/tv/pair, admin only; web/members.py), written out and as a QR code. The TV
// that opened it is the table's TV: its live view is kept for it when guests fill the
// box's places.
import { get } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The button, and under it (once tapped) the TV's link, its code and what to do. */
export function tvPairing(report) {
  const link = h("a", { class: "url", "data-testid": "tv-pair-link" });
  const img = h("img", { alt: t("QR code of the TV's link"), width: 160, height: 160, class: "qr", "data-testid": "tv-pair-qr", hidden: true });
  const how = h(
    "p",
    { class: "muted small", "data-testid": "tv-pair-how" },
    t("Open this address in the TV's browser (or scan the code with the TV): it becomes this table's TV, and its live view is kept for it even when guests fill the box."),
  );
  const shown = h("div", { class: "tv-pair", hidden: true }, how, h("p", {}, link), img);
  const b = h("button", { type: "button", class: "ghost", "aria-expanded": "false", "data-testid": "tv-pair" }, t("Pair a TV"));
  b.addEventListener("click", async () => {
    if (!shown.hidden) {
      shown.hidden = true;
    } else {
      try {
        const pairing = await get("/api/tv/pair");
        // the box's own address for it; else this page's (the TV reaches the box as this phone does)
        const url = pairing.url || new URL(pairing.path, location.href).href;
        link.href = url;
        link.textContent = url.replace(/^https?:\/\//, "");
        img.hidden = !pairing.url; // no code that leads nowhere (a box on this machine only)
        if (pairing.url) img.src = `/api/qr/tv.svg?t=${Date.now()}`;
        shown.hidden = false;
      } catch (err) {
        report(err);
        return;
      }
    }
    b.setAttribute("aria-expanded", String(!shown.hidden));
    b.textContent = shown.hidden ? t("Pair a TV") : t("Hide the TV's link");
  });
  return h("div", { class: "tv-pairing" }, b, shown);
}
