"""The scoreboard on the local network: `buzzerbox.local` by mDNS, its URL and QR code.

Phones find the box as `http://buzzerbox.local/`: python-zeroconf answers for the
host name and advertises an `_http._tcp` service that phones and laptops list.
Several boxes on one network (an event with many tables) take `buzzerbox-2`,
`buzzerbox-3`, ...: a name already answered for by another address is skipped.

The network is reached only through a `Registrar` (a `zeroconf.Zeroconf`, or a fake
in tests) and a `Resolve` function, so nothing here touches a socket by itself.
"""

from __future__ import annotations

import io
import ipaddress
import logging
import socket
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from buzzerbox.appliance.errors import MdnsError
from buzzerbox.options import ALL_ADDRESSES
from buzzerbox.server.reach import NO_NETWORK, interface_addresses, phone_addresses
from buzzerbox.server.reach import url as http_url

if TYPE_CHECKING:
    from zeroconf import ServiceInfo

log = logging.getLogger(__name__)

SERVICE_TYPE = "_http._tcp.local."
DEFAULT_NAME = "buzzerbox"
#: how many numbered names (`buzzerbox-2` ...) to try before giving up
MAX_NAMES = 32

#: addresses held by another host for a name, `.local.` included: empty if free
Resolve = Callable[[str], set[str]]


class Registrar(Protocol):
    """What the box needs of `zeroconf.Zeroconf`."""

    def register_service(
        self, info: ServiceInfo, ttl: int | None = None, allow_name_change: bool = False
    ) -> None: ...

    def update_service(self, info: ServiceInfo) -> None: ...

    def unregister_service(self, info: ServiceInfo) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Announcement:
    """The box as phones see it: a host name, a port and the addresses behind them."""

    name: str = DEFAULT_NAME
    port: int = 80
    addresses: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not valid_name(self.name):
            raise MdnsError(
                f"name {self.name!r} is not allowed: use 1-63 of a-z, 0-9 and -, "
                "not starting or ending with -"
            )
        if not 1 <= self.port <= 65535:
            raise MdnsError(f"port {self.port} is not allowed: give 1-65535")

    @property
    def host(self) -> str:
        return f"{self.name}.local"

    @property
    def url(self) -> str:
        """The scoreboard's address by name: what the QR code holds."""
        return http_url(self.host, self.port)

    @property
    def address_urls(self) -> list[str]:
        """The same by IP address, for a phone that cannot resolve `.local`."""
        return [http_url(a, self.port) for a in self.addresses]


def valid_name(name: str) -> bool:
    """A DNS label in lower case: 1-63 of a-z, 0-9 and -, not starting or ending with -."""
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789-")
    return (
        0 < len(name) <= 63
        and set(name) <= allowed
        and not name.startswith("-")
        and not name.endswith("-")
    )


def local_addresses(adapters: Iterable[tuple[str, str]] | None = None) -> tuple[str, ...]:
    """The IPv4 addresses phones can reach the box at: the default route's first, not
    loopback, link-local last (server/reach.py, as `serve` finds them).

    `adapters` is (interface, address) pairs; by default the host's own (ifaddr).
    """
    return tuple(phone_addresses(ALL_ADDRESSES, adapters))


def host_addresses() -> set[str]:
    """Every address on this machine's interfaces now, whatever a phone can reach."""
    return {address.split("%", 1)[0] for _, address in interface_addresses()}


def choose_name(
    wanted: str,
    own: Sequence[str],
    resolve: Resolve,
    ours: Callable[[], Iterable[str]] = host_addresses,
) -> str:
    """`wanted`, or the first of `wanted-2`, `wanted-3`, ... no other host answers for.

    An answer with our own address is not another host's, nor is a loopback address
    (127.0.0.1, ::1): avahi-daemon (Raspberry Pi OS runs it) answers for the host name
    with the loopback's too, and only this host hears that. Our own are `own` and
    whatever this host has once the answer came (`ours`): at boot the box may look up
    its addresses before DHCP gave it one, which avahi then answers with (seen in
    tests/realstack: a box alone on its network took `table-07-2`).
    """
    for n in range(1, MAX_NAMES + 1):
        name = wanted if n == 1 else f"{wanted}-{n}"
        answers = resolve(f"{name}.local.")
        mine = set(own) | set(ours()) if answers else set(own)
        others = {a for a in answers if not ipaddress.ip_address(a).is_loopback} - mine
        if not others:
            return name
        log.info("%s.local is taken by %s", name, ", ".join(sorted(others)))
    raise MdnsError(
        f"{wanted}.local and {MAX_NAMES - 1} numbered names are all taken: "
        "give the box another --name"
    )


def service_info(ann: Announcement, instance: str | None = None) -> ServiceInfo:
    """The `_http._tcp` service record that names the box and its scoreboard.

    `instance` is the full service name to keep (zeroconf may have renamed it).
    """
    from zeroconf import ServiceInfo

    label = "buzzerbox scoreboard" if ann.name == DEFAULT_NAME else f"buzzerbox {ann.name}"
    return ServiceInfo(
        SERVICE_TYPE,
        instance or f"{label}.{SERVICE_TYPE}",
        port=ann.port,
        properties={"path": "/", "host": socket.gethostname()},
        server=f"{ann.host}.",
        addresses=[socket.inet_aton(a) for a in ann.addresses],
    )


def zeroconf_resolver(zc: object, timeout_ms: int = 1500) -> Resolve:
    """A `Resolve` that asks the network through a running `zeroconf.Zeroconf`."""
    from zeroconf import Zeroconf

    # exported by `zeroconf` but missing from its __all__
    from zeroconf._services.info import AddressResolverIPv4

    assert isinstance(zc, Zeroconf)

    def resolve(host: str) -> set[str]:
        resolver = AddressResolverIPv4(host)
        if resolver.request(zc, timeout_ms):
            return set(resolver.parsed_addresses())
        return set()

    return resolve


class Advertiser:
    """Advertises an `Announcement` while open: `with Advertiser(ann) as ann: ...`.

    The name actually taken (`buzzerbox-2` when another box has `buzzerbox`) is in
    the announcement it returns.
    """

    def __init__(
        self,
        ann: Announcement,
        registrar: Callable[[], Registrar] | None = None,
        resolve: Callable[[Registrar], Resolve] | None = None,
    ) -> None:
        self.wanted = ann
        self.announcement = ann
        self._make = registrar or _zeroconf
        self._resolve = resolve or zeroconf_resolver
        self._zc: Registrar | None = None
        self._info: ServiceInfo | None = None

    def start(self) -> Announcement:
        zc = self._make()
        try:
            name = choose_name(self.wanted.name, self.wanted.addresses, self._resolve(zc))
            ann = Announcement(name, self.wanted.port, self.wanted.addresses)
            info = service_info(ann)
            zc.register_service(info, allow_name_change=True)
        except BaseException:
            zc.close()
            raise
        self._zc, self._info, self.announcement = zc, info, ann
        return ann

    def refresh(self, addresses: tuple[str, ...]) -> bool:
        """Follow new addresses (wifi came up, a new DHCP lease); True if they changed."""
        zc = self._zc
        if zc is None or addresses == self.announcement.addresses:
            return False
        ann = Announcement(self.announcement.name, self.announcement.port, addresses)
        info = service_info(ann, self._info.name if self._info is not None else None)
        zc.update_service(info)
        self._info, self.announcement = info, ann
        return True

    def stop(self) -> None:
        zc, info = self._zc, self._info
        self._zc = self._info = None
        if zc is None:
            return
        try:
            if info is not None:
                zc.unregister_service(info)
        finally:
            zc.close()

    def __enter__(self) -> Announcement:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _zeroconf() -> Registrar:
    try:
        from zeroconf import IPVersion, Zeroconf
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise MdnsError("python-zeroconf is not installed: pip install zeroconf") from exc
    zc: Registrar = Zeroconf(ip_version=IPVersion.V4Only)
    return zc


def qr_text(data: str) -> str:
    """`data` as a QR code made of text blocks, for a terminal or the Pi's screen."""
    import segno

    out = io.StringIO()
    segno.make(data, error="m").terminal(out=out, compact=True)
    return out.getvalue()


def banner(ann: Announcement, *, advertised: bool = True) -> str:
    """What the console shows: the URL, its QR code, and the plain addresses. The code
    holds the name while the box advertises it (`advertised`), else its first address;
    with no address but loopback, no code (it would lead nowhere): the console says so."""
    if not ann.addresses:
        return f"buzzerbox: {NO_NETWORK}: connect the box to the table's wifi\n"
    target = ann.url if advertised else ann.address_urls[0]
    how = f"advertised by mDNS as {ann.host}: " if advertised else ""
    lines = [
        f"buzzerbox scoreboard: {target}",
        f"{how}scan it with a phone on the same network:",
        qr_text(target).rstrip("\n"),
    ]
    if others := [u for u in ann.address_urls if u != target]:
        where = "or, where a phone cannot open .local: " if advertised else "or: "
        lines.append(where + "  ".join(others))
    return "\n".join(lines) + "\n"
