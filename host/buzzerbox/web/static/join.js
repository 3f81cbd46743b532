// The QR codes: the scoreboard always, the wifi one when the box has one (asked for
// only then: a box without a wifi answers its address with a 404).
import { run } from "./common.js";
import { $ } from "./dom.js";

const wifi = $("#wifi-qr");
run((state) => {
  const has = Boolean(state.box && state.box.wifi);
  if (has && !wifi.getAttribute("src")) wifi.src = "/api/qr/wifi.svg";
  $("#wifi-card").hidden = !has;
  $("#buzzer-card").hidden = !(state.game && state.box?.phones?.on);
});
