// The QR codes: the scoreboard always, the wifi one when the box has one.
import { run } from "./common.js";
import { $ } from "./dom.js";

const wifi = $("#wifi-qr");
let hasWifi = false; // the state says whether the box has a wifi to share
const showWifi = () => {
  $("#wifi-card").hidden = !(hasWifi && wifi.complete && wifi.naturalWidth > 0);
};
wifi.addEventListener("load", showWifi);
wifi.addEventListener("error", showWifi);
run((state) => {
  hasWifi = Boolean(state.box && state.box.wifi);
  showWifi();
});
