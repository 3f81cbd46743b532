"""One name, one box, on the broker: the publisher's `NameGuard`.

claim.py decides (pure); this module does what the decision asks on the connection
(network thread): on every connection it subscribes to the box's `claim` and
`status` topics and puts the box's claim (signed, with a key); it reads what comes
there; when another box holds the name it says "offline" and holds the link (not
for good: a claim may be a stranger's), trying again after `lose_retry_s`, doubling
up to `LOSE_RETRY_MAX_S`; a claim that does not verify (with a key) is ignored and
counted (`refused`); an "offline" said by another while this box publishes is put
right.
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

    def claim(self, client: mqtt.Client) -> int:
        """A new connection: listen on the claim and the status, put our claim; its mid.
        After a connection shorter than `grace_s` (thrown off?) the claim waits too."""
        now = time.monotonic()
        wary = self._last_up is not None and now - self._last_up < self.grace_s
        self._last_up = now
        self.claimant.connected(wary=wary)
        client.subscribe([(self.claim_topic, 1), (self.status_topic, 1)])
        mine = signed(self.signer, self.claim_topic, self.claimant.mine(self._wall()).payload())
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
                client.publish(message.topic, ONLINE, qos=1, retain=True)
            return None
        if message.topic != self.claim_topic:
            return None
        if self.signer is not None and payload and self.signer.verify(message.topic, payload):
            self.refused += 1  # not from a box of the event: a stranger's
            log.warning("mqtt: box %s: a claim on its name that is not signed: ignored", self.name)
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
        if verdict == claims.REPUBLISH:
            who = self.claimant.other.host if self.claimant.other else "?"
            log.warning(
                "mqtt: box %s: the box on host %r tried to use this name too", self.name, who
            )
            mine = signed(self.signer, message.topic, self.claimant.mine(0).payload())
            client.publish(message.topic, mine, qos=1, retain=True)
        return verdict
