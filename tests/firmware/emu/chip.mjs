// One emulated Pico: rp2040js 1.4.1 with what it lacks for this firmware
// (see PROVENANCE.md and README.md beside this file):
//  - PIO state machines step in lock-step with the emulated clock, one
//    instruction per sys_clk/CLKDIV, charging 1 + delay cycles, enabled ones only;
//  - pins: an undriven input reads its pull, an output reads what it drives, an
//    outside drive (a pad) applies only while the pin is an input;
//  - USB OUT: the host's bytes are queued and an armed OUT buffer is answered only
//    when there are bytes, never with an empty packet.
import { RP2040, USBCDC } from 'rp2040js';

const NS_PER_CYCLE = 8; // 125 MHz
const FLASH_BASE = 0x10000000;
const UF2_MAGIC0 = 0x0a324655;
const UF2_MAGIC1 = 0x9e5d5157;
const SIO_KEY = 0x40014; // IO_BANK0 peripheral key (address >>> 14 << 2)
const PADS_KEY = 0x4001c;
const GPIOS = 30;

const quiet = {
  debug() {},
  info() {},
  warn() {},
  error(name, msg) {
    process.stderr.write(`rp2040js ${name}: ${msg}\n`);
  },
};

export function uf2Blocks(data) {
  const blocks = [];
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let at = 0; at + 512 <= data.length; at += 512) {
    if (view.getUint32(at, true) !== UF2_MAGIC0 || view.getUint32(at + 4, true) !== UF2_MAGIC1) {
      throw new Error(`UF2 block at byte ${at} has no UF2 magic`);
    }
    const address = view.getUint32(at + 12, true);
    const size = view.getUint32(at + 16, true);
    blocks.push([address - FLASH_BASE, data.subarray(at + 32, at + 32 + size)]);
  }
  return blocks;
}

export class Chip {
  // flash: a Uint8Array image of the whole flash (kept across resets);
  // bootrom: Uint32Array; hooks: { onIn(bytes, ns), onOutDelivered(bytes, ns), onSmStart(ns) }
  constructor(flash, bootrom, hooks) {
    this.hooks = hooks;
    const mcu = (this.mcu = new RP2040());
    mcu.logger = quiet;
    mcu.loadBootrom(bootrom); // resets, which erases the flash: fill it after
    mcu.flash.set(flash.subarray(0, Math.min(flash.length, mcu.flash.length)));
    mcu.core.PC = FLASH_BASE;
    this.clock = mcu.clock;
    this.cycles = 0; // CPU cycles since reset
    this.drive = new Array(GPIOS).fill(null); // outside drive per GPIO: null, 0 or 1
    this.pinsDirty = true;
    this.levels = 0;
    this.events = []; // [ns, gpio, level], sorted by ns
    this.outQueue = []; // host bytes not yet taken by the device
    this.armed = null; // [endpoint, size] of an OUT buffer the device armed
    this._modelPins();
    this._lockStepPio();
    this._usb();
  }

  get nanos() {
    return this.clock.nanos;
  }

  // -- pins ------------------------------------------------------------------

  _modelPins() {
    const mcu = this.mcu;
    const dirty = () => {
      this.pinsDirty = true;
    };
    const wrap = (obj) => {
      const write = obj.writeUint32.bind(obj);
      obj.writeUint32 = (offset, value) => {
        write(offset, value);
        dirty();
      };
    };
    wrap(mcu.sio);
    wrap(mcu.peripherals[SIO_KEY]);
    wrap(mcu.peripherals[PADS_KEY]);
    Object.defineProperty(mcu, 'gpioValues', { get: () => this._levels() });
  }

  _levels() {
    if (!this.pinsDirty) return this.levels;
    this.pinsDirty = false;
    let levels = 0;
    const gpio = this.mcu.gpio;
    for (let i = 0; i < GPIOS; i++) {
      const pin = gpio[i];
      let level;
      if (pin.outputEnable) level = pin.outputValue;
      else if (this.drive[i] !== null) level = this.drive[i] === 1;
      else level = pin.pullupEnabled; // pulled up, or pulled down / floating: 0
      if (pin.rawInputValue !== level) pin.setInputValue(level);
      if (pin.inputValue) levels |= 1 << i;
    }
    this.levels = levels >>> 0;
    return this.levels;
  }

  // Drive `gpio` to `level` (0/1) from outside at emulated time `ns`; null releases it.
  schedule(ns, gpio, level) {
    const events = this.events;
    let i = events.length;
    while (i > 0 && events[i - 1][0] > ns) i--;
    events.splice(i, 0, [ns, gpio, level]);
  }

  _applyDue() {
    const events = this.events;
    const now = this.clock.nanos;
    let n = 0;
    while (n < events.length && events[n][0] <= now) {
      this.drive[events[n][1]] = events[n][2];
      this.hooks.onPin?.(now, events[n][1], events[n][2]);
      n++;
    }
    if (n) {
      events.splice(0, n);
      this.pinsDirty = true;
    }
  }

  // -- PIO in lock-step ------------------------------------------------------

  _lockStepPio() {
    this.machines = [];
    for (const pio of this.mcu.pio) {
      pio.run = () => {}; // no free-running steps on JavaScript timers
      for (const sm of pio.machines) {
        this.machines.push({ sm, pio, due: 0, on: false });
      }
    }
  }

  _stepPio() {
    const now = this.cycles;
    for (const m of this.machines) {
      const sm = m.sm;
      if (!sm.enabled) {
        m.on = false;
        continue;
      }
      if (!m.on) {
        m.on = true;
        m.due = now;
        if (m === this.machines[0]) this.hooks.onSmStart?.(this.clock.nanos);
      }
      const div = (sm.clockDivInt || 65536) + sm.clockDivFrac / 256;
      while (m.due <= now) {
        const before = sm.cycles;
        sm.step();
        const spent = sm.cycles - before;
        m.due += div * (spent > 0 ? spent : 1);
      }
    }
  }

  // -- USB -------------------------------------------------------------------

  _usb() {
    const usb = this.mcu.usbCtrl;
    const cdc = (this.cdc = new USBCDC(usb));
    cdc.onSerialData = (bytes) => this.hooks.onIn?.(bytes, this.clock.nanos);
    usb.onEndpointRead = (endpoint, size) => {
      if (endpoint === cdc.outEndpoint) {
        this.armed = [endpoint, size];
        this._feedOut();
      }
    };
    const finish = usb.finishRead.bind(usb);
    usb.finishRead = (endpoint, buffer) => {
      finish(endpoint, buffer);
      if (endpoint === cdc.outEndpoint) this.hooks.onOutDelivered?.(buffer, this.clock.nanos);
    };
  }

  // The host sent `bytes` (a Uint8Array or Buffer).
  hostSend(bytes) {
    for (const b of bytes) this.outQueue.push(b);
    this._feedOut();
  }

  _feedOut() {
    if (!this.armed || !this.outQueue.length) return;
    const [endpoint, size] = this.armed;
    this.armed = null;
    const take = this.outQueue.splice(0, Math.min(size, this.outQueue.length));
    this.mcu.usbCtrl.endpointReadDone(endpoint, Uint8Array.from(take));
  }

  // -- running ---------------------------------------------------------------

  // Run until emulated time `limitNs` or `maxInstructions`, whichever first.
  run(limitNs, maxInstructions) {
    const { core } = this.mcu;
    const clock = this.clock;
    for (let i = 0; i < maxInstructions && clock.nanos < limitNs; i++) {
      if (this.events.length && this.events[0][0] <= clock.nanos) this._applyDue();
      let cycles;
      if (core.waiting) {
        // asleep (WFI): advance to the next alarm, one PIO step of 25 cycles at most
        const next = clock.nanosToNextAlarm;
        cycles = next > 0 ? Math.min(25, Math.max(1, Math.ceil(next / NS_PER_CYCLE))) : 25;
      } else {
        cycles = core.executeInstruction();
      }
      this.cycles += cycles;
      clock.tick(cycles * NS_PER_CYCLE);
      this._stepPio();
    }
  }
}
