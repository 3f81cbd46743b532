// The emulated pad board as a process: the real MicroPython UF2 and a littlefs
// image of firmware/ in rp2040js (chip.mjs), its USB CDC serial on a TCP port
// (127.0.0.1, port 0) for the host, emulated time capped at a fraction of wall time.
//
//   node runner.mjs --uf2 FILE --bootrom FILE --fs FILE [--ratio R] [--clock FILE]
//
// --clock FILE: the emulated time now, in us, kept in FILE (16 bytes: the same
// float64 twice, so a reader that sees two different values knows it read mid-write)
// for a host that runs on the emulated clock (tests/firmware/emulator.py `EmuClock`).
// It is written before every line leaves the board, at every command, and at least
// every CLOCK_STEP instructions while capped (STEP uncapped, as during a boot), so a
// host's stamp of anything the board sent or did is never earlier than the emulated
// moment it happened.
//
// Control: JSON lines on stdin; reports: JSON lines on stdout ("ev" names them).
//   {"cmd": "now"}                                  -> {"ev": "now", "t": us}
//   {"cmd": "drive", "after": us, "events": [[dt, gpio, level], ...]}
//        levels 0/1 (null releases), dt from base = now + after -> {"ev": "drive", "base": us}
//   {"cmd": "ratio", "ratio": R}   cap emulated time at R x wall time (0: uncapped)
//   {"cmd": "reset", "unplug": bool}  power-cycle the chip (the flash is kept);
//                                  with unplug the host's connection is closed too
//   {"cmd": "quiet", "on": bool}   stop or start the per-line reports below
// Reports: {"ev": "port", "port": N}; {"ev": "sm", "t": us} when the edge timer starts;
//   {"ev": "in", "t": us, "line": "..."}   a line from the board, t = when it left
//   {"ev": "out", "t": us, "line": "..."}  a host line, t = when its "\n" reached the board
//   {"ev": "pin", "t": us, "gpio": N, "level": 0|1|null}  a drive applied to a pin
//   {"ev": "slip", "t": us}                the emulator fell behind its cap
// Times are emulated microseconds since the runner started (they go on across resets);
// every report also carries "w", the wall clock when it was made (CLOCK_MONOTONIC in
// us, the clock of Python's time.monotonic): emulated time against wall time.
import { openSync, readFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { Chip, uf2Blocks } from './chip.mjs';

const FS_OFFSET = 0xa0000;
const FLASH_BYTES = 2 * 1024 * 1024;
const SLICE_MS = 20; // wall time per macrotask before I/O gets a turn
const SLIP_NS = 2_000_000; // behind the cap by more than this: slip, do not burst
const STEP = 20000; // instructions run between two looks at the wall clock
const CLOCK_STEP = 2000; // with --clock: ~20-40 emulated us, the host clock's grain

function args(argv) {
  const out = { ratio: '0' };
  for (let i = 2; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  for (const need of ['uf2', 'bootrom', 'fs']) {
    if (!out[need]) throw new Error(`--${need} is missing: runner.mjs --uf2 F --bootrom F --fs F`);
  }
  return out;
}

const opts = args(process.argv);
const flash = new Uint8Array(FLASH_BYTES).fill(0xff);
for (const [offset, payload] of uf2Blocks(readFileSync(opts.uf2))) flash.set(payload, offset);
flash.set(readFileSync(opts.fs), FS_OFFSET);
const romBytes = readFileSync(opts.bootrom);
const bootrom = new Uint32Array(romBytes.buffer, romBytes.byteOffset, romBytes.byteLength / 4);

let epochNs = 0; // emulated ns before the current chip was reset
let chip = null;
let client = null;
let reports = true;
let ratio = Number(opts.ratio);
let capWall = 0;
let capNs = 0;

// every report carries `w`: the wall clock (CLOCK_MONOTONIC, as Python's time.monotonic) in us
const wallUs = () => Number(process.hrtime.bigint() / 1000n);
const clockFd = opts.clock ? openSync(opts.clock, 'r+') : null;
const clockNow = new Float64Array(2);
function publish() {
  if (clockFd === null) return;
  clockNow[0] = clockNow[1] = (epochNs + chip.nanos) / 1000;
  writeSync(clockFd, clockNow, 0, 16, 0);
}

const say = (obj) => process.stdout.write(JSON.stringify({ ...obj, w: wallUs() }) + '\n');
const us = (ns) => Math.round((epochNs + ns) / 1000);

function lines(kind) {
  let pending = '';
  return (bytes, ns) => {
    pending += Buffer.from(bytes).toString('latin1');
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      if (reports) say({ ev: kind, t: us(ns), line: pending.slice(0, nl) });
      pending = pending.slice(nl + 1);
    }
    if (pending.length > 4096) pending = '';
  };
}

function boot() {
  const inLines = lines('in');
  const outLines = lines('out');
  chip = new Chip(flash, bootrom, {
    onIn(bytes, ns) {
      publish();
      if (client) client.write(Buffer.from(bytes));
      inLines(bytes, ns);
    },
    onOutDelivered: outLines,
    onSmStart: (ns) => say({ ev: 'sm', t: us(ns) }),
    onPin: (ns, gpio, level) => say({ ev: 'pin', t: us(ns), gpio, level }),
  });
}

function setRatio(r) {
  ratio = r;
  capWall = performance.now();
  capNs = chip.nanos;
}

function step() {
  const until = performance.now() + SLICE_MS;
  while (performance.now() < until) {
    let limit = Infinity;
    if (ratio > 0) {
      limit = capNs + (performance.now() - capWall) * 1e6 * ratio;
      if (chip.nanos >= limit) {
        setTimeout(step, 1);
        return;
      }
      if (limit - chip.nanos > SLIP_NS) {
        say({ ev: 'slip', t: us(chip.nanos) });
        capWall = performance.now();
        capNs = chip.nanos;
        limit = capNs + SLIP_NS / 4;
      }
    }
    chip.run(limit, clockFd === null || ratio === 0 ? STEP : CLOCK_STEP);
    publish();
  }
  setImmediate(step);
}

function command(text) {
  publish(); // a host that reads this command's answer stamps it no earlier than now
  let cmd;
  try {
    cmd = JSON.parse(text);
  } catch {
    say({ ev: 'error', error: `not JSON: ${text}` });
    return;
  }
  switch (cmd.cmd) {
    case 'now':
      say({ ev: 'now', t: us(chip.nanos) });
      break;
    case 'drive': {
      const base = chip.nanos + (cmd.after || 0) * 1000;
      for (const [dt, gpio, level] of cmd.events) chip.schedule(base + dt * 1000, gpio, level);
      say({ ev: 'drive', base: us(base) });
      break;
    }
    case 'ratio':
      setRatio(Number(cmd.ratio));
      say({ ev: 'ratio', ratio });
      break;
    case 'reset': {
      epochNs += chip.nanos;
      flash.set(chip.mcu.flash.subarray(0, FLASH_BYTES));
      if (cmd.unplug && client) {
        client.destroy();
        client = null;
      }
      boot();
      setRatio(ratio);
      say({ ev: 'reset', t: us(0) });
      break;
    }
    case 'quiet':
      reports = !cmd.on;
      break;
    default:
      say({ ev: 'error', error: `unknown command ${cmd.cmd}: now drive ratio reset quiet` });
  }
}

boot();
const server = createServer((socket) => {
  if (client) client.destroy();
  client = socket;
  socket.setNoDelay(true);
  socket.on('data', (data) => chip.hostSend(data));
  socket.on('error', () => {});
  socket.on('close', () => {
    if (client === socket) client = null;
  });
});
server.listen(0, '127.0.0.1', () => say({ ev: 'port', port: server.address().port }));
createInterface({ input: process.stdin }).on('line', command).on('close', () => process.exit(0));
setRatio(ratio);
setImmediate(step);
