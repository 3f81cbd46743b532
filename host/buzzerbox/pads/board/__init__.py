"""A pad board, sans-IO: the protocol's framing (`protocol.py`), the host side of one
link (`session.py`, its SYNC rounds `syncrounds.py`), and the board's own side for the
emulator (`boardside.py`, the firmware's parser). No port, no thread, no clock: bytes
and times are handed in."""
