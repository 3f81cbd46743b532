// The QR codes: the wifi one when the box has one (asked for only then: a box without a
// wifi answers its address with a 404); the scoreboard's, and "Play on this phone" while
// phones may be pads, are every page's (common.js).
import { run } from "./common.js";
import { $ } from "./dom.js";

const wifi = $("#wifi-qr");
run((state) => {
  const has = Boolean(state.box && state.box.wifi);
  if (has && !wifi.getAttribute("src")) wifi.src = "/api/qr/wifi.svg";
  $("#wifi-card").hidden = !has;
});
