// Opt-in sound (Web Audio, made here: no sound files) and vibration. A browser plays
// sound only after a tap on the page, so the TV view has a button for it; the choice
// is kept on that screen (localStorage).
const KEY = "buzzerbox.sound";
let audio = null;
let played = 0;

export const soundOn = () => localStorage.getItem(KEY) === "on";

function context() {
  if (!audio) audio = new AudioContext();
  if (audio.state === "suspended") audio.resume();
  return audio;
}

/** Turn the sound on or off (call it from a tap: the browser allows sound then). */
export function setSound(on) {
  localStorage.setItem(KEY, on ? "on" : "off");
  if (on) context();
}

/** A short tone: `freq` Hz for `ms`, `delay` ms from now, if the sound is on. */
export function tone(freq, ms, delay = 0) {
  if (!soundOn()) return false;
  const ctx = context();
  const at = ctx.currentTime + delay / 1000;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = "triangle";
  osc.frequency.value = freq;
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(0.3, at + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + ms / 1000);
  osc.connect(gain).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + ms / 1000 + 0.02);
  played += 1;
  document.body.dataset.tones = String(played); // what was played, for the tests
  return true;
}

/** The countdown starts: one low tone. */
export const ready = () => tone(440, 160);

/** The go: a high one. */
export const go = () => tone(880, 260);

/** Someone was first: a rising pair. */
export const fanfare = () => tone(660, 120) && tone(990, 260, 130);

/** A short buzz on a phone that can (a press taken, a race won); silent elsewhere. */
export function buzz(pattern = 25) {
  if (navigator.vibrate) navigator.vibrate(pattern);
}
