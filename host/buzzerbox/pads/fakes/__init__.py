"""The pads' fakes, in one place (as gpiozero's pins/mock.py is): nothing here runs on
the box itself, save `buzzerbox fake-board` (port.py).

- padboard.py  FakeBoard + BoardClock: a board emulator's core; SyncLine: the sync wire
- usb.py    UsbLink, UsbRig: emulated boards on a realistic USB link
- pulse.py  a pulser on the fake sync wire
- port.py   a fake board on a pty or TCP (`buzzerbox fake-board`)
- pins.py   gpiozero's MockFactory on a hand-driven clock; a hand on a pad
- wires.py  boards wired in-process to host sessions; waiting on real ports
- edges.py  a final pad edge as the arbiter hands one to the box

The one hand-driven clock is buzzerbox.testing.ManualClock (a board's own clock,
BoardClock, runs off a host clock with an offset and a drift: another idea).
"""
