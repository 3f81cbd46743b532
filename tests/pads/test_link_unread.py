"""A link says when a board's bytes wait on this host, unread or read and not yet handed
over (`SerialLink.has_unread`): the pad sources ask it before they call a board silent,
so a reader starved of the CPU never makes its board's presses late (issue 40's bench
under load lost a press and its release that way). Real ptys, real threads."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import pytest
from buzzerbox.pads.link.serialport import LinkEvent, SerialLink
from buzzerbox.testing import ManualClock


@pytest.fixture
def pty() -> Iterator[tuple[int, str]]:
    """A pty pair: the board's end (its master fd) and the path the link opens."""
    master, slave = os.openpty()
    path = os.ttyname(slave)
    os.close(slave)
    yield master, path
    os.close(master)


def test_a_line_read_and_not_yet_handed_over_is_unread_until_it_is(
    pty: tuple[int, str],
) -> None:
    master, path = pty
    opened, handing, gate, handed = (threading.Event() for _ in range(4))

    def put(event: LinkEvent) -> None:
        if event.kind == "opened":
            opened.set()
        elif event.kind == "data":
            handing.set()
            gate.wait(10)  # the link's thread, starved between its read and the sources
            handed.set()

    link = SerialLink(0, path, put, clock=ManualClock(0))
    link.start()
    try:
        assert opened.wait(10)
        assert not link.has_unread()  # open, nothing sent
        os.write(master, b"T 1 2\n")
        assert handing.wait(10)
        assert link.has_unread()  # read, in the thread's hands
        gate.set()
        assert handed.wait(10)
    finally:
        link.stop()
