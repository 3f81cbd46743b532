"""`micropython.native` for the pure modules, under every interpreter.

MicroPython's compiler turns a function decorated `@micropython.native` into
machine code (the board's hot path runs about twice as fast); it knows the
decorator by its name alone and never evaluates it. CPython does evaluate it:
there this `micropython` leaves the function as it is.

PURE: imports nothing.
"""


class micropython:  # noqa: N801  (the name the MicroPython compiler looks for)
    @staticmethod
    def native(function):
        return function
