"""A stand-in for MicroPython's `rp2` module, for CPython and the MicroPython unix port.

`asm_pio` is an assembler for the same program text the real `rp2.asm_pio`
takes (instructions called as functions, `label`, `wrap_target`, `wrap`,
delays as `[n]`), written from the RP2040 datasheet's instruction encodings
(section 3.4). It returns a `Program` with the opcodes and the settings, which
the tests run in rp2040-pio-emulator: what the Pico assembles is what the test
runs. Side-set is not supported (the firmware does not use it).

`StateMachine` and `DMA` model, under the unix port only, what the edge timer
program and its DMA ring do on the chip (see firmware/padboard/pio.py): every
change of the bench's GPIO levels (benchpins) becomes a (pins, counter) pair,
and the DMA writes those words into the firmware's ring in memory.
"""

try:
    from collections.abc import Callable
    from types import FunctionType
    from typing import Any
except ImportError:
    pass

MASK32 = 0xFFFFFFFF


class PIOASMError(Exception):
    pass


class PIO:
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2
    IN_LOW = 0
    IN_HIGH = 1
    OUT_LOW = 2
    OUT_HIGH = 3


class Program:
    """An assembled PIO program: opcodes, labels, wrap and the state machine settings."""

    def __init__(self, settings: "dict[str, Any]") -> None:
        self.opcodes: list[int] = []
        self.labels: dict[str, int] = {}
        self.wrap_target = 0
        self.wrap = -1
        self.in_shiftdir: int = settings.get("in_shiftdir", PIO.SHIFT_LEFT)
        self.out_shiftdir: int = settings.get("out_shiftdir", PIO.SHIFT_LEFT)
        self.autopush: bool = settings.get("autopush", False)
        self.autopull: bool = settings.get("autopull", False)
        self.push_thresh: int = settings.get("push_thresh", 32)
        self.pull_thresh: int = settings.get("pull_thresh", 32)
        self.fifo_join: int = settings.get("fifo_join", PIO.JOIN_NONE)

    def wrap_cycles(self) -> int:
        """Cycles from wrap_target through wrap, counting each instruction's delay."""
        return sum(1 + (op >> 8 & 0x1F) for op in self.opcodes[self.wrap_target : self.wrap + 1])


class _Instruction:
    """What an instruction call returns: `[n]` or `.delay(n)` adds n delay cycles."""

    def __init__(self, asm: "_Assembler", index: int) -> None:
        self._asm = asm
        self._index = index

    def __getitem__(self, cycles: int) -> "_Instruction":
        return self.delay(cycles)

    def delay(self, cycles: int) -> "_Instruction":
        if not 0 <= cycles <= 31:
            raise PIOASMError(f"delay {cycles} is out of range: 0-31")
        if self._asm.final:
            self._asm.program.opcodes[self._index] |= cycles << 8
        return self

    def side(self, value: int) -> "_Instruction":
        raise PIOASMError("side-set is not supported by this stand-in")


class _Assembler:
    def __init__(self, program: Program) -> None:
        self.program = program
        self.final = False  # the first pass only counts instructions and finds labels
        self.count = 0

    def start(self, final: bool) -> None:
        self.final = final
        self.count = 0
        self.program.opcodes = []

    def emit(self, word: int, target: "str | None" = None) -> _Instruction:
        index = self.count
        self.count += 1
        if self.final:
            address = 0
            if target is not None:
                if target not in self.program.labels:
                    raise PIOASMError(f"label {target} is not defined")
                address = self.program.labels[target]
            self.program.opcodes.append(word | address)
        return _Instruction(self, index)

    # directives
    def label(self, name: str) -> None:
        if not self.final:
            if name in self.program.labels:
                raise PIOASMError(f"label {name} is defined twice")
            self.program.labels[name] = self.count

    def wrap_target(self) -> None:
        self.program.wrap_target = self.count

    def wrap(self) -> None:
        if not self.count:
            raise PIOASMError("wrap before any instruction")
        self.program.wrap = self.count - 1

    # instructions (encodings: RP2040 datasheet 3.4.2-3.4.12)
    def word(self, value: int, target: "str | None" = None) -> _Instruction:
        return self.emit(value & 0xFFFF, target)

    def nop(self) -> _Instruction:
        return self.emit(0xA042)  # mov y, y

    def jmp(self, condition: "int | str", target: "str | None" = None) -> _Instruction:
        if isinstance(condition, str):
            return self.emit(0x0000, condition)
        if not 0 <= condition <= 7 or target is None:
            raise PIOASMError("jmp needs a condition 0-7 and a label")
        return self.emit(condition << 5, target)

    def wait(self, polarity: int, source: "int | Callable[..., Any]", index: int) -> _Instruction:
        if source == 0:
            code = 0  # gpio
        elif source == 6:
            code = 1  # pin (relative to in_base)
        elif callable(source):
            code = 2  # irq
        else:
            raise PIOASMError("wait source must be gpio, pin or irq")
        return self.emit(0x2000 | (polarity & 1) << 7 | code << 5 | index & 0x1F)

    def in_(self, source: int, bits: int) -> _Instruction:
        if source not in (0, 1, 2, 3, 6, 7) or not 1 <= bits <= 32:
            raise PIOASMError("in_ takes pins, x, y, null, isr or osr and 1-32 bits")
        return self.emit(0x4000 | source << 5 | bits & 0x1F)

    def out(self, destination: int, bits: int) -> _Instruction:
        if destination == 8:
            destination = 7  # exec
        if not 0 <= destination <= 7 or not 1 <= bits <= 32:
            raise PIOASMError("out takes a destination and 1-32 bits")
        return self.emit(0x6000 | destination << 5 | bits & 0x1F)

    def push(self, flags: int = 0, more: int = 0) -> _Instruction:
        flags |= more
        block = 0 if flags & 0x01 and not flags & 0x20 else 0x20  # block unless noblock
        return self.emit(0x8000 | flags & 0x40 | block)

    def pull(self, flags: int = 0, more: int = 0) -> _Instruction:
        flags |= more
        block = 0 if flags & 0x01 and not flags & 0x20 else 0x20
        return self.emit(0x8080 | flags & 0x40 | block)

    def mov(self, destination: int, source: int) -> _Instruction:
        if destination == 8:
            destination = 4  # exec
        if destination not in (0, 1, 2, 4, 5, 6, 7) or source & 7 == 4:
            raise PIOASMError("mov: no such destination or source")
        return self.emit(0xA000 | destination << 5 | source & 0x1F)

    def irq(self, mode: int, index: "int | None" = None) -> _Instruction:
        if index is None:
            index, mode = mode, 0
        return self.emit(0xC000 | mode & 0x60 | index & 0x1F)

    def set(self, destination: int, value: int) -> _Instruction:
        if destination not in (0, 1, 2, 4) or not 0 <= value <= 31:
            raise PIOASMError("set takes pins, x, y or pindirs and 0-31")
        return self.emit(0xE000 | destination << 5 | value)


_NAMES = {
    "gpio": 0,
    "pins": 0,
    "x": 1,
    "y": 2,
    "null": 3,
    "pindirs": 4,
    "pc": 5,
    "status": 5,
    "isr": 6,
    "osr": 7,
    "exec": 8,
    "not_x": 1,
    "x_dec": 2,
    "not_y": 3,
    "y_dec": 4,
    "x_not_y": 5,
    "pin": 6,
    "not_osre": 7,
    "noblock": 0x01,
    "block": 0x21,
    "iffull": 0x40,
    "ifempty": 0x40,
    "clear": 0x40,
}


def asm_pio(**settings: "Any") -> "Callable[[FunctionType], Program]":
    if settings.get("sideset_init") is not None:
        raise PIOASMError("side-set is not supported by this stand-in")

    def assemble(body: "FunctionType") -> Program:
        program = Program(settings)
        asm = _Assembler(program)
        names: dict[str, Any] = dict(_NAMES)
        names["invert"] = lambda source: source | 0x08
        names["reverse"] = lambda source: source | 0x10
        names["rel"] = lambda index: index | 0x10
        for name in ("label", "wrap_target", "wrap"):
            names[name] = getattr(asm, name)
        for name in ("word", "nop", "jmp", "wait", "in_", "out", "push", "pull", "mov", "irq"):
            names[name] = getattr(asm, name)
        names["set"] = asm.set
        # Like the real asm_pio: run the body twice with the DSL as its globals.
        scope = body.__globals__
        saved = scope.copy()
        scope.clear()
        scope.update(names)
        try:
            asm.start(False)
            body()
            asm.start(True)
            body()
        finally:
            scope.clear()
            scope.update(saved)
        if program.wrap < 0:
            program.wrap = len(program.opcodes) - 1
        if len(program.opcodes) > 32:
            raise PIOASMError(f"{len(program.opcodes)} instructions: a PIO holds 32")
        return program

    return assemble


# -- the unix-port model of the edge timer and its DMA ring -------------------

BENCH_TICK_HZ = 1000000  # the bench clock counts microseconds


def _bench() -> "Any":
    return __import__("benchpins").BENCH  # a sibling on the MicroPython path


class StateMachine:
    """Runs the edge timer: each GPIO change becomes (pins, -t mod 2**32) in its RX FIFO."""

    def __init__(self, sm_id: int, program: "Program | None" = None, freq: int = -1, **kw: "Any"):
        self.id = sm_id
        self.fifo: list[int] = []
        self._active = False
        if program is not None:
            self.init(program, freq, **kw)

    def init(self, program: Program, freq: int = -1, **kw: "Any") -> None:
        if not isinstance(program, Program):
            raise TypeError("a program from asm_pio is needed")
        in_base = kw.get("in_base")
        if in_base is None or in_base.gpio != 0:
            raise ValueError("the edge timer model reads the pins from GPIO 0")
        if freq != BENCH_TICK_HZ * program.wrap_cycles():
            raise ValueError(f"the bench runs the edge timer at {BENCH_TICK_HZ} ticks/s")
        self.program = program

    def active(self, value: "int | None" = None) -> bool:
        if value and not self._active:
            self._active = True
            _bench().start(self)
        return self._active

    def changed(self, levels: int, t: int) -> None:
        self.fifo.append(levels & MASK32)
        self.fifo.append(-t & MASK32)

    def rx_fifo(self) -> int:
        return len(self.fifo)


_DMA_FIELDS = {  # the CTRL register of an RP2040 DMA channel: name -> (shift, width)
    "enable": (0, 1),
    "high_pri": (1, 1),
    "size": (2, 2),
    "inc_read": (4, 1),
    "inc_write": (5, 1),
    "ring_size": (6, 4),
    "ring_sel": (10, 1),
    "chain_to": (11, 4),
    "treq_sel": (15, 6),
    "irq_quiet": (21, 1),
    "bswap": (22, 1),
    "sniff_en": (23, 1),
}


class DMA:
    """Moves the state machine's words into a ring in memory, as the firmware configures it."""

    def __init__(self) -> None:
        self.channel = 0  # the first free channel, as on a Pico
        self._sm: StateMachine | None = None
        self._remaining = 0
        self._mem: Any = None
        self._ring = 0
        self._at = 0

    def pack_ctrl(self, **fields: int) -> int:
        value = 1 | 1 << 21 | 0x3F << 15 | 1 << 4 | 1 << 5 | 2 << 2
        for name, field in fields.items():
            shift, width = _DMA_FIELDS[name]
            value = value & ~((1 << width) - 1 << shift) | (int(field) & (1 << width) - 1) << shift
        return value

    def unpack_ctrl(self, value: int) -> dict[str, int]:
        return {n: value >> s & (1 << w) - 1 for n, (s, w) in _DMA_FIELDS.items()}

    def config(self, **kw: "Any") -> None:
        uctypes = __import__("uctypes")
        sm = kw["read"]
        ctrl = self.unpack_ctrl(kw["ctrl"])
        expect = {"size": 2, "inc_read": 0, "inc_write": 1, "ring_sel": 1, "treq_sel": 4 + sm.id}
        for name, value in expect.items():
            if ctrl[name] != value:
                raise ValueError(f"DMA ctrl {name}={ctrl[name]}: the edge ring needs {value}")
        ring = 1 << ctrl["ring_size"]
        view = kw["write"]
        address = uctypes.addressof(view)
        base = address & ~(ring - 1)
        if base + ring != address + 4 * len(view):
            raise ValueError("the DMA ring is not aligned to its size")
        self._sm = sm
        self._mem = uctypes.bytearray_at(base, ring)
        self._ring = ring
        self._at = address - base
        self._remaining = kw["count"]

    @property
    def count(self) -> int:
        _bench().pump()
        sm = self._sm
        while sm is not None and sm.fifo and self._remaining:
            word = sm.fifo.pop(0)
            self._mem[self._at : self._at + 4] = word.to_bytes(4, "little")
            self._at = (self._at + 4) % self._ring
            self._remaining -= 1
        return self._remaining

    def active(self, value: "int | None" = None) -> bool:
        return self._remaining > 0
