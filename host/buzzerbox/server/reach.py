"""Where phones reach the box: the addresses of its own interfaces, the default route's first.

A phone on the table's network opens the box by an address of one of the box's own
interfaces. The machine's host name is no guide: Debian and Raspberry Pi OS map it to
127.0.1.1 (or 127.0.0.1) in /etc/hosts, so looking it up finds only loopback, and a QR
code made from that leads a guest's phone nowhere (issue 38). So the addresses come from
the interfaces themselves (ifaddr, which zeroconf brings), and the one the default route
leaves by comes first: on a Pi with wifi and a cable, the one the table's router hands
out. A box listening on one address (`--host`) is reached by that one; a box with no
address but loopback is reached by no phone, and says so (`NO_NETWORK`), never a code.

The pages get the addresses with every state they are sent (`Reach.phone_urls`, looked
up again after `FRESH_S`), and `Reach.follow` tells the box when they change: wifi that
comes up after the box started reaches the console and every open page. A page opened
through an address shows codes for that address (`page_url`).
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable

#: the console's and the pages' words when no phone can reach the box
NO_NETWORK = "no network: phones cannot reach this box"
#: how long the addresses looked up are used before they are looked up again, in s
FRESH_S = 5.0
#: listening on every address: every interface's address is the box's
ALL = ("0.0.0.0", "::", "")
#: documentation addresses (RFC 5737, RFC 3849): never on a LAN, so the kernel routes
#: them by the default route. A UDP socket connected to one sends nothing; its own
#: address is then the one the default route leaves by.
ROUTE_PROBES = {socket.AF_INET: "203.0.113.1", socket.AF_INET6: "2001:db8::1"}

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def url(host: str, port: int) -> str:
    """`http://host:port/`, an IPv6 address in brackets, port 80 left out."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}/" if port == 80 else f"http://{host}:{port}/"


def interface_addresses() -> list[tuple[str, str]]:
    """(interface, address) of every address on this machine's interfaces (ifaddr)."""
    import ifaddr

    pairs: list[tuple[str, str]] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            address = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            pairs.append((adapter.nice_name, address))
    return pairs


def route_source(family: socket.AddressFamily = socket.AF_INET) -> str | None:
    """The address the default route leaves by, or None (no default route)."""
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((ROUTE_PROBES[family], 9))
            return str(probe.getsockname()[0])
    except OSError:
        return None


def _parse(text: str) -> Address | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


def _reachable(addr: Address) -> bool:
    """Whether a phone on the network could open this address: not loopback, not
    unspecified, not multicast; not an IPv6 link-local (a browser takes no zone)."""
    if addr.is_loopback or addr.is_unspecified or addr.is_multicast:
        return False
    return not (addr.version == 6 and addr.is_link_local)


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or a name, without a port) is this machine only."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    addr = _parse(host)
    return addr is not None and (addr.is_loopback or addr.is_unspecified)


def phone_addresses(
    host: str,
    adapters: Iterable[tuple[str, str]] | None = None,
    default: Iterable[str | None] | None = None,
) -> list[str]:
    """The addresses a phone can open the box at, listening on `host`: IPv4 (and IPv6
    when listening on `::`, after them), of each the default route's first (`default`:
    its IPv4 and IPv6 source), then the other interfaces' (link-local last). Empty: no
    phone can.

    `adapters` is (interface, address) pairs; by default this machine's own."""
    if host not in ALL:
        return [] if is_loopback(host) else [host]
    if adapters is None:
        adapters = interface_addresses()
    if default is None:
        default = (route_source(socket.AF_INET), route_source(socket.AF_INET6))
    versions = (4, 6) if host == "::" else (4,)
    found = [a for _, text in adapters if (a := _parse(text)) is not None]
    usable = [a for a in found if a.version in versions and _reachable(a)]
    first = {a for text in default if text and (a := _parse(text)) is not None}
    ordered = sorted(set(usable), key=lambda a: (a.version, a not in first, a.is_link_local, a))
    return [str(a) for a in ordered]


class Reach:
    """The addresses phones can open the box at, listening on `host`:`port`, looked up
    again once `fresh_s` have passed (wifi that comes up after the box started).
    `names` are the box's URLs by name (`http://buzzerbox.local/`, where it advertises
    one), listed after the addresses while it has any. `look(host)` gives the addresses
    (`phone_addresses` by default); `clock` is monotonic seconds."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        names: Iterable[str] = (),
        look: Callable[[str], list[str]] = phone_addresses,
        fresh_s: float = FRESH_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.host, self.port, self.names = host, port, tuple(names)
        self._look, self._fresh_s, self._clock = look, fresh_s, clock
        self._lock = threading.Lock()
        self._urls: list[str] = []
        self._at: float | None = None

    def phone_urls(self) -> list[str]:
        """The URLs a phone on the network can open, the default route's first."""
        with self._lock:
            now = self._clock()
            if self._at is None or now - self._at >= self._fresh_s:
                found = [url(a, self.port) for a in self._look(self.host)]
                self._urls = [*found, *self.names] if found else []
                self._at = now
            return list(self._urls)

    def __call__(self) -> list[str]:
        return self.phone_urls()

    def follow(self, changed: Callable[[list[str]], None]) -> Callable[[], None]:
        """Look at the addresses every `fresh_s` in a thread of its own and call
        `changed(urls)` when they are not the ones last seen (wifi came up, a new DHCP
        lease, the network went away); returns what stops it."""
        stop = threading.Event()
        seen = self.phone_urls()

        def watch() -> None:
            nonlocal seen
            while not stop.wait(self._fresh_s):
                now = self.phone_urls()
                if now != seen:
                    seen = now
                    changed(now)

        thread = threading.Thread(target=watch, name="reach-follow", daemon=True)
        thread.start()

        def end() -> None:
            stop.set()
            thread.join(timeout=5)

        return end

    def local_url(self) -> str:
        """The URL on this machine itself."""
        host = self.host if self.host not in ALL else "127.0.0.1"
        return url("::1" if host == "::" else host, self.port)

    def console_lines(self) -> list[str]:
        """What the console says: each address to open, or that no phone can reach it."""
        phones = self.phone_urls()
        if phones:
            return [f"open {u}" for u in phones]
        why = (
            "it listens on this machine only"
            if self.host not in ALL
            else "it has no network address but loopback: connect it to the table's wifi"
        )
        return [f"open {self.local_url()} (on this machine only)", f"{NO_NETWORK} ({why})"]


#: a Host header: a name or an IPv4 address, or an IPv6 one in brackets; then a port
HOST_HEADER = re.compile(
    r"(?P<name>[A-Za-z0-9][A-Za-z0-9.-]{0,252}|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?"
)


def page_url(host_header: str | None, phone_urls: list[str]) -> str | None:
    """The scoreboard's URL for a page opened through `host_header` ("10.0.0.5:8000"):
    that address, when a phone could open it; else the box's first address phones can
    open; None when there is none (no network: a code would lead nowhere)."""
    found = HOST_HEADER.fullmatch(host_header or "")
    if found and not is_loopback(found["name"]):
        return f"http://{found.group(0)}/"
    return phone_urls[0] if phone_urls else None
