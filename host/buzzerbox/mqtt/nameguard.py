"""One name, one box, on the broker: the publisher's `NameGuard`.

claim.py decides (pure); this module does what the decision asks on the connection
(network thread): on every connection it subscribes to the box's `claim` and
`status` topics and puts the box's claim (signed, with a key); it reads what comes
there; when another box holds the name it says "offline" and holds the link (not
for good: a claim may be a stranger's), trying again after `lose_retry_s`, doubling
up to `LOSE_RETRY_MAX_S`; an earlier claim that does not answer ours is challenged
(claim.py: a recording cannot make this box give way); a claim that does not verify
(with a key) is ignored and counted (`refused`); an "offline" said by another while
this box publishes is put right, at most once an `ONLINE_EVERY_S` (the rest when it is
due: `put_right`), and what a flood of them or of claims says is logged at most once a
`LOG_EVERY_S`, with the count (issue 39, item 8).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import paho.mqtt.client as mqtt

from buzzerbox.errors import Words
from buzzerbox.mqtt import claim as claims
from buzzerbox.mqtt.connect import REFUSED, BrokerLink
from buzzerbox.mqtt.sign import Signer, signed
from buzzerbox.mqtt.topics import OFFLINE, ONLINE, topic

log = logging.getLogger(__name__)

#: a box that lost its name tries again after this (s), doubling up to the max
LOSE_RETRY_S = 30.0
LOSE_RETRY_MAX_S = 600.0
#: "online" put back at most this often (s), however many "offline" a stranger says
ONLINE_EVERY_S = 1.0
#: one kind of warning logged at most this often (s), with how many there were
LOG_EVERY_S = 60.0


class Quiet:
    """A warning said at most once a LOG_EVERY_S, with the count of the others."""

    def __init__(self, every_s: float = LOG_EVERY_S) -> None:
        self.every_s = every_s
        self.count = 0
        self._said_at: float | None = None
        self._since = 0

    def warn(self, message: str, *args: object) -> None:
        self.count += 1
        self._since += 1
        now = time.monotonic()
        if self._said_at is not None and now - self._said_at < self.every_s:
            return
        more = f" ({self._since} times in the last {self.every_s:g} s)" if self._since > 1 else ""
        log.warning(message + more, *args)
        self._said_at, self._since = now, 0


class NameGuard:
    """Holds box `name` on the broker of `link` for the publisher."""

    def __init__(
        self,
        name: str,
        claimant: claims.Claimant,
        link: BrokerLink,
        signer: Signer | None,
        *,
        grace_s: float = claims.GRACE_S,
        lose_retry_s: float = LOSE_RETRY_S,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.name = name
        self.claimant = claimant
        self.link = link
        self.signer = signer
        self.grace_s = grace_s
        self.lose_retry_s = lose_retry_s
        self._wall = wall_clock
        self.claim_topic = topic(name, "claim")
        self.status_topic = topic(name, "status")
        #: claims on our name that did not verify (with a key): ignored
        self.refused = 0
        self._losses = 0
        self._last_up: float | None = None  # when the last connection was accepted
        self._online_at: float | None = None  # when "online" was last put back
        self._owed_online = False
        self._unsigned, self._clashes = Quiet(), Quiet()

    def claim(self, client: mqtt.Client) -> int:
        """A new connection: listen on the claim and the status, put our claim; its mid.
        After a connection shorter than `grace_s` (thrown off?) the claim waits too."""
        now = time.monotonic()
        wary = self._last_up is not None and now - self._last_up < self.grace_s
        self._last_up = now
        self.claimant.connected(wary=wary)
        client.subscribe([(self.claim_topic, 1), (self.status_topic, 1)])
        mine = signed(self.signer, self.claim_topic, self.claimant.put(self._wall()).payload())
        return client.publish(self.claim_topic, mine, qos=1, retain=True).mid

    def greeted(self) -> None:
        """The box publishes under its name: a later loss waits `lose_retry_s` again."""
        self._losses = 0

    def heard(
        self, client: mqtt.Client, message: mqtt.MQTTMessage, publishing: Callable[[], bool]
    ) -> str | None:
        """A message on the box's topics. The claim's verdict for the publisher (OURS,
        WAIT, REPUBLISH, NOTHING), or None: nothing for it (not a claim, not ours to
        heed, or LOSE, done here). `publishing`: whether this box publishes now."""
        payload = bytes(message.payload)
        if message.topic == self.status_topic:
            # "offline" while this box holds the name and publishes (the box that gave
            # way said it, or a stranger): the truth goes back
            if payload == OFFLINE.encode() and not message.retain and publishing():
                self._owed_online = True
                self.put_right(client)
            return None
        if message.topic != self.claim_topic:
            return None
        if self.signer is not None and payload and self.signer.verify(message.topic, payload):
            self.refused += 1  # not from a box of the event: a stranger's
            self._unsigned.warn(
                "mqtt: box %s: a claim on its name that is not signed: ignored", self.name
            )
            return None
        verdict = self.claimant.seen(claims.Claim.parse(payload), message.retain)
        if verdict == claims.LOSE:
            # not for good: a claim may be a stranger's (without a key, nothing tells);
            # the status says the truth meanwhile: this box publishes nothing
            reason = self.claimant.refusal(self.name, self.link.broker.url)
            retry_s = min(self.lose_retry_s * 2**self._losses, LOSE_RETRY_MAX_S)
            self._losses += 1
            client.publish(self.status_topic, OFFLINE, qos=1, retain=True)
            said = {"reason": reason, "s": round(retry_s)}
            self.link.hold(REFUSED, Words("{reason} (trying again in {s} s)", said), retry_s)
            return None
        other = self.claimant.other
        if verdict == claims.REPUBLISH or (
            verdict == claims.CHALLENGE and self.claimant.may_challenge(time.monotonic())
        ):
            who = other.host if other else "?"
            self._clashes.warn(
                "mqtt: box %s: the box on host %r claims this name too", self.name, who
            )
            answer = self.claimant.put(0, answers=other.nonce if other else "")
            client.publish(
                message.topic,
                signed(self.signer, message.topic, answer.payload()),
                qos=1,
                retain=True,
            )
        return verdict

    def put_right(self, client: mqtt.Client) -> None:
        """Put "online" back if an "offline" said by another is owed it and the last was
        put back ONLINE_EVERY_S ago (the publisher calls this at least every second)."""
        now = time.monotonic()
        if not self._owed_online or (
            self._online_at is not None and now - self._online_at < ONLINE_EVERY_S
        ):
            return
        self._owed_online, self._online_at = False, now
        client.publish(self.status_topic, ONLINE, qos=1, retain=True)
