"""What a pad board is built with: pins, rates, buffer sizes.

PURE data. hardware/pico-pinout.md is the source of truth for the pin numbers;
keep the two in step. A board build picks its layout by LAYOUT.
"""

FW_VERSION = "0.1.0"

# Layouts: which GPIO each input channel is on (channel = index), which GPIO
# each LED output is on (output = index). Pads pull up inside the RP2040 and
# close to ground, so a pressed pad reads 0.
LAYOUTS = {
    # 24 pads and two lamp outputs: three seat zones of Ligretto Twist's 8 pile
    # pads (the 32 pads of 4 zones take a second board), or 12 stop pads and more.
    "pads24": {
        "pads": tuple(range(0, 23)) + (26,),
        "leds": (27, 28),
    },
    # 12 pads, each with its own light (12-seat Ligretto stop pads).
    "pads12": {
        "pads": tuple(range(0, 12)),
        "leds": tuple(range(12, 23)) + (26,),
    },
}
LAYOUT = "pads24"

# The clock probe: an output the firmware toggles to learn the board time now
# (for TICK and SYNC). It must lie inside the PIO's input window (GPIO 0-31).
# GPIO 25 drives the Pico's own LED, which therefore glows while the firmware
# runs. Not usable on a Pico W, where GPIO 25 belongs to the radio.
PROBE_GPIO = 25

# Inputs inside the window that only make noise: GPIO 29 reads VSYS/3 through a
# divider, a level between low and high. Their input buffers are switched off.
QUIET_GPIOS = (29,)

TICK_HZ = 1000000  # board clock rate; the PIO runs at TICK_HZ * LOOP_CYCLES
# core.PadBoard.tick() every TICK_MS: a TICK then after an EDGE or while a debounce lock
# waits to end; while EDGEs flow every probes.BUSY_TICK_MS, idle every
# probes.IDLE_TICK_MS (the spec: at least every 100 ms)
TICK_MS = 10
DEBOUNCE_US = 5000  # default debounce window
DEBOUNCE_MAX_US = 1000000  # DEBOUNCE accepts 0..DEBOUNCE_MAX_US
# The last channel of a layout takes the sync wire (hardware/sync-wire.md): a
# clean push-pull pulse, 60 ms long. It keeps this short window of its own,
# whatever DEBOUNCE says, so no pad setting can swallow a pulse or delay its release.
SYNC_DEBOUNCE_US = 1000

RING_WORDS = 2048  # DMA ring for PIO words (two per input change): 8 KiB, 0.5 s at 2,000 edges/s
QUEUE_FRAMES = 64  # frames waiting for the host
MAX_PENDING_PROBES = 8  # clock probes in flight (TICK and SYNC requests)
