"""Issue 39, item 8 (the box's half on the broker): 5,000 forged claims do not write
5,000 log lines, and 5,000 "offline" said on a box's status do not make it put "online"
back 5,000 times: once a second at most, and the last word is the box's "online".
A real mosquitto; a stranger publishing as anyone may."""

from __future__ import annotations

import json
import logging
import time

import pytest
from buzzerbox.mqtt.nameguard import ONLINE_EVERY_S
from buzzerbox.mqtt.sign import Signer

from .mqtt_fakes import TIMEOUT_S, Attach, MakeBox, ManualClock, Mosquitto, Record
from .test_untrusted import publish

KEY = b"the-event-key-0123456789abcdef"
FLOOD = 5000


def test_a_flood_of_forged_claims_is_logged_once(
    broker: Mosquitto,
    make_box: MakeBox,
    attached: Attach,
    recorders: Record,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    publisher = attached(make_box("t7", clock), "t7", signer=Signer(KEY))
    assert publisher.wait_connected(TIMEOUT_S)
    recorder = recorders(["buzzerbox/t7/status"])
    forged = json.dumps({"owner": "evil", "host": "x", "since": 0}).encode()
    with caplog.at_level(logging.WARNING, logger="buzzerbox.mqtt.nameguard"):
        # the claims, then an "offline": the box reads them in order, and its "online"
        # put back says it has read every claim
        flood = [("buzzerbox/t7/claim", forged, False)] * FLOOD
        publish(broker.url, [*flood, ("buzzerbox/t7/status", b"offline", False)])
        assert recorder.wait(lambda ms: [m.payload for m in ms][-2:] == [b"offline", b"online"])
    assert publisher.claims_refused == FLOOD
    lines = [r for r in caplog.records if "not signed" in r.getMessage()]
    assert len(lines) == 1, [r.getMessage() for r in lines[:5]]
    assert publisher.is_connected


def test_a_flood_of_offline_is_put_right_once_a_second(
    broker: Mosquitto, make_box: MakeBox, attached: Attach, recorders: Record, clock: ManualClock
) -> None:
    publisher = attached(make_box("t8", clock), "t8")
    assert publisher.wait_connected(TIMEOUT_S)
    recorder = recorders(["buzzerbox/t8/status"])
    assert recorder.wait(lambda ms: [m.payload for m in ms] == [b"online"])  # retained
    started = time.monotonic()
    publish(broker.url, [("buzzerbox/t8/status", b"offline", False)] * FLOOD)
    flooded_s = time.monotonic() - started
    # the box's last word is "online", put back within a second of the last "offline"
    assert recorder.wait(lambda ms: len(ms) > FLOOD and ms[-1].payload == b"online"), (
        recorder.messages[-3:]
    )
    onlines = sum(m.payload == b"online" for m in recorder.messages) - 1
    most = (time.monotonic() - started) / ONLINE_EVERY_S + 2
    print(f"{FLOOD} offline in {flooded_s:.1f} s: {onlines} online put back (at most {most:.0f})")
    assert 1 <= onlines <= most
