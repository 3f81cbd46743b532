# The pad board firmware: MicroPython runs this file at boot.
# Ctrl-C (what mpremote sends to take over the board) stops it and leaves the REPL.
from padboard.app import run

run()
