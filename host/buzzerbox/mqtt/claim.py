"""One name, one box: the claim on `buzzerbox/<box>/claim` that tells two boxes apart.

Two boxes with one name (two made from one SD image) would throw each other off the
broker every second: both use the client id `buzzerbox-box-<name>`, and a broker
keeps one connection per client id. So each box says who it is, retained, on every
connection: `{"owner": <this box's id>, "host": ..., "since": <its first claim>}`,
after subscribing to that topic (the broker sends the retained claim first, then
the box's own claim back).

- Our own claim back, and no other seen: the name is ours; publishing starts.
- Another's retained claim: it may be stale (a box renamed, replaced, or gone). If
  it is older than ours we wait `GRACE_S` before publishing anything: a box that is
  alive sees our claim and puts its own back at once.
- Another's retained claim is only ever a hint (anyone may leave one, a box that is
  gone cannot defend it): an older one makes us wait `GRACE_S`, a newer one nothing.
- Another's live claim (one it publishes while we are connected: a box that is
  there): a clash. The earlier claim keeps the name; the later box stops publishing,
  says "offline" and why, and tries again after a while (`lose_retry_s` of nameguard.py,
  30 s doubling to 10 min): never for good on one message, which a stranger on the
  broker may have sent. With a key (sign.py) a claim that does not verify is ignored.
- A claim is a lease a live box proves (issue 39, item 4): each claim we put carries a
  fresh `nonce`, and a claim put to answer another's names that claim's nonce
  (`answers`). The earlier box makes us give way only with a claim that answers our
  latest: a box that is there answers at once, a recording of a claim (captured on the
  broker, signed, replayed whenever we come back) cannot. An earlier claim that does
  not answer ours is CHALLENGE: we put ours again with a fresh nonce (at most once a
  `CHALLENGE_EVERY_S`), answering it; an earlier box still there answers that, and
  then we lose.
- A connection right after one that lasted less than `GRACE_S` (thrown off, maybe
  by a box with our name) also waits `GRACE_S` before publishing.

The box's id (`machine_id`) is the Pi's serial number (else /etc/machine-id, else the
network card's address) with its data folder: unique per board, also for two SD
cards made from one image, and stable over restarts. The decision is pure.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

#: how long a box whose name holds another box's claim waits before publishing
GRACE_S = 5.0
#: an earlier claim that does not answer ours is challenged at most this often (s)
CHALLENGE_EVERY_S = 1.0

OURS = "ours"
WAIT = "wait"
LOSE = "lose"
REPUBLISH = "republish"
CHALLENGE = "challenge"
NOTHING = "nothing"


def machine_id() -> str:
    """This board's own id: the Pi's serial, else /etc/machine-id, else the MAC."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Serial" and value.strip().strip("0"):
                return value.strip().lower()
    except OSError:
        pass
    for path in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            value = Path(path).read_text().strip()
        except OSError:
            continue
        if value:
            return value
    return f"{uuid.getnode():012x}"


def owner_id(data_dir: str | Path, machine: str | None = None) -> str:
    """The id of one box: this machine and its data folder (two boxes on one machine
    differ too), 16 hex digits."""
    key = f"{machine or machine_id()}\0{Path(data_dir).resolve()}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Claim:
    owner: str
    host: str
    since: float
    nonce: str = ""  # fresh in every claim put
    answers: str = ""  # the nonce of the claim this one answers ("": none)

    def payload(self) -> bytes:
        data = {"owner": self.owner, "host": self.host, "since": self.since}
        return json.dumps(data | {"nonce": self.nonce, "answers": self.answers}).encode()

    @staticmethod
    def parse(payload: bytes) -> Claim | None:
        """A claim, or None for anything else (an empty payload: no claim)."""
        if len(payload) > 1024:
            return None
        try:
            data: Any = json.loads(payload)
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        owner, host, since = data.get("owner"), data.get("host"), data.get("since")
        if not (isinstance(owner, str) and isinstance(host, str) and 0 < len(owner) <= 64):
            return None
        if isinstance(since, bool) or not isinstance(since, int | float):
            return None
        nonce, answers = data.get("nonce", ""), data.get("answers", "")
        if not (isinstance(nonce, str) and isinstance(answers, str)):
            return None
        host = host[:64].encode("utf-8", "replace").decode()
        return Claim(owner, host, float(since), nonce[:64], answers[:64])

    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since))


class Claimant:
    """What one box makes of the claims it sees; `mine` is its own claim."""

    def __init__(self, owner: str, host: str) -> None:
        self.owner = owner
        self.host = host
        self.since: float | None = None
        self.other: Claim | None = None
        self._claimed = False  # a claim of ours went out on an earlier connection
        self._foreign_retained = False
        self.nonce = ""  # the nonce of the latest claim we put
        self._challenged_at: float | None = None

    def mine(self, now: float) -> Claim:
        """Our claim for this connection (the time of our first one, kept after)."""
        if self.since is None:
            self.since = now
        return Claim(self.owner, self.host, self.since, self.nonce)

    def put(self, now: float, answers: str = "") -> Claim:
        """A claim of ours to put now: a fresh nonce, answering `answers`."""
        self.nonce = secrets.token_hex(8)
        return replace(self.mine(now), answers=answers)

    def may_challenge(self, now: float) -> bool:
        """Whether a challenge may go out at `now` (monotonic s): one a CHALLENGE_EVERY_S."""
        if self._challenged_at is not None and now - self._challenged_at < CHALLENGE_EVERY_S:
            return False
        self._challenged_at = now
        return True

    def connected(self, *, wary: bool = False) -> None:
        """A new connection: what was seen on the last one no longer counts. `wary`:
        the last one was short (thrown off? another box may use our name): wait
        GRACE_S even if the claim is ours."""
        self._foreign_retained = wary

    def seen(self, claim: Claim | None, retained: bool) -> str:
        """OURS (publish), WAIT (GRACE_S first), LOSE (stop: `other` has the name),
        REPUBLISH (ours is the older claim: put it back, then publish), CHALLENGE (an
        older claim that does not answer our latest: put ours again) or NOTHING."""
        if claim is None:
            return NOTHING
        if claim.owner == self.owner:
            if retained:
                return NOTHING  # ours from before: our own comes back next
            self._claimed = True
            return WAIT if self._foreign_retained else OURS
        mine = self.mine(claim.since)
        if retained:
            # a retained claim is only a hint: anyone may have left it, and a box that
            # is gone cannot defend it. An older one: wait GRACE_S (a box still there
            # puts its claim back, live, within a second: then we lose); a newer one:
            # ours replaces it, and its box, if any, loses when it sees ours
            if (claim.since, claim.owner) < (mine.since, mine.owner):
                self._foreign_retained = True
                self.other = claim
            return NOTHING
        self.other = claim
        if (claim.since, claim.owner) < (mine.since, mine.owner):
            return LOSE if self.nonce and claim.answers == self.nonce else CHALLENGE
        return REPUBLISH

    def refusal(self, box: str, broker: str) -> str:
        other = self.other
        who = "another box"
        if other is not None:
            who = f"the box on host {other.host!r} (id {other.owner[:8]}) since {other.when()}"
        return (
            f"the box name {box!r} is already used on {broker} by {who}: "
            "give this box a name of its own (--box-name NAME, or box_name in the config); "
            "this box plays on without publishing"
        )
