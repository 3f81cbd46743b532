// Opt-in sound (Web Audio, made here: no sound files) and vibration, one choice: a
// browser plays sound only after a tap on the page, so the TV view and the buzzer have
// a button for it; the choice is kept on that screen (localStorage).
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

/** A short tone: `freq` Hz for `ms`, `delay` ms after `from` on the audio clock (s;
 * now if null), if the sound is on: its oscillator, or null. */
export function tone(freq, ms, delay = 0, from = null) {
  if (!soundOn()) return null;
  const ctx = context();
  const at = (from ?? ctx.currentTime) + delay / 1000;
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
  osc.at = at; // when it sounds, on the audio clock
  played += 1;
  document.body.dataset.tones = String(played); // what was played, for the tests
  return osc;
}

/** Someone was first: a rising pair. */
export const fanfare = () => tone(660, 120) && tone(990, 260, 130);

// The countdown's beeps, scheduled on the audio clock (exact, whatever the page is
// doing): a low one as each of 3, 2, 1 shows, a high one at the go.
let pending = [];

/** Cancel the beeps not yet played (the count stopped, or it is counted again). */
export function cancelBeeps() {
  for (const osc of pending) {
    try {
      osc.stop(0);
    } catch {
      // played already
    }
  }
  pending = [];
}

/** The go is `ms` away: a beep at each second still to show, and the go's. A number
 * already showing for under half a second (the count reached this screen late) has
 * its beep at once. */
export function countdownBeeps(ms) {
  cancelBeeps();
  if (!soundOn()) return;
  const from = context().currentTime; // one instant for all: exactly a second apart
  for (let n = 3; n >= 1; n -= 1) {
    if (ms - n * 1000 > -500) pending.push(tone(440, 140, Math.max(0, ms - n * 1000), from));
  }
  pending.push(tone(880, 300, Math.max(0, ms), from));
}

/** The box said go before the count here ended: the go's beep now (unless the one
 * scheduled comes within a moment anyway). */
export function goNow() {
  const scheduled = pending.at(-1);
  if (scheduled && audio && scheduled.at - audio.currentTime < 0.15) return;
  cancelBeeps();
  tone(880, 300);
}

/** A short buzz on a phone that can (a press taken, a race won), if the player turned
 * sound and vibration on (one choice: a phone set to silence stays still too). */
export function buzz(pattern = 25) {
  if (soundOn() && navigator.vibrate) navigator.vibrate(pattern);
}
