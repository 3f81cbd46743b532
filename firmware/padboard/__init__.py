"""buzzerbox pad board firmware: MicroPython for a Raspberry Pi Pico (RP2040).

PURE (no machine, rp2, sys or time; CPython can import them): protocol, clock,
debounce, core, config. Hardware glue: pio (the PIO program), app (pins, DMA,
USB serial, the main loop).
"""
