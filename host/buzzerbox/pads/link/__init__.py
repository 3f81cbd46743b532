"""Transports of a pad board's bytes, one a module (as pyserial's): `serialport.py`, the
pyserial link thread (a real port, a pty, or any pyserial URL). The protocol's framing
and the board session are in board/, apart from the transport."""
