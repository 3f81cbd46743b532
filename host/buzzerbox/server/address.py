"""Who a client is, for the per-address caps (guard.py, held.py, door.py, streams.py)."""

from __future__ import annotations

import functools
import ipaddress


@functools.lru_cache(maxsize=4096)
def address_key(host: str) -> str:
    """Who a client is, for the per-address caps: its IPv4 address, or its IPv6 /64.
    Asked two or three times for every connection (the guard, the stream's places):
    the last few thousand answers are kept (ipaddress took a tenth of the server's
    loop at the door: tests/bench/README.md, issue 40)."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return "::1" if ip.is_loopback else str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


#: the box's own machine (its kiosk screen, the tests) is not capped per address
UNCAPPED = frozenset({"127.0.0.1", "::1"})
