"""The namespaced network of tests/net: the box in one network namespace, the phones in
another, joined by a veth pair (iproute2), as a Pi and the guests' phones are on a
table's wifi. Made by the test and removed after it, also when it fails.

The addresses are the project's own test hosts, inside namespaces of their own: the box
10.77.0.1/24, the phones 10.77.0.2/24, each with a default route by its link (a LAN's
router stands there). The box's namespace has its own /etc/hosts (`ip netns exec`
bind-mounts /etc/netns/<name>/hosts over /etc/hosts) mapping the machine's host name to
127.0.1.1, as Debian and Raspberry Pi OS do: the trap the box fell into (issue 38).

Names carry the test run's pid (`bbx<pid><b|p|l>`, at most 15 characters), so that runs
side by side never meet; what a killed run left behind is swept at the next start.
Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN), as `bash tests/check` runs in CI.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

PREFIX = "bbx"
BOX_IP = "10.77.0.1"
PHONES_IP = "10.77.0.2"
#: the lone box, once its wifi comes up (`wire_lone`), and the phones' end of that link
LONE_IP, LONE_PEER_IP = "10.77.1.1", "10.77.1.2"
NETNS_ETC = Path("/etc/netns")


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True, timeout=30)


def in_ns(ns: str, *command: str) -> list[str]:
    """`command`, run in namespace `ns`."""
    return ["ip", "netns", "exec", ns, *command]


@dataclass(frozen=True)
class Net:
    """Two namespaces on one link: `box` (BOX_IP) and `phones` (PHONES_IP); and a
    third, `lone`, with loopback only (a box with no network)."""

    box: str
    phones: str
    lone: str

    @property
    def box_link(self) -> str:
        return f"{self.box}0"

    @property
    def phones_link(self) -> str:
        return f"{self.phones}0"

    def phones_link_up(self, up: bool) -> None:
        """The phones' end of the link down (out of the wifi) or up again."""
        ip("-n", self.phones, "link", "set", self.phones_link, "up" if up else "down")

    @property
    def names(self) -> tuple[str, str, str]:
        return (self.box, self.phones, self.lone)


def make(pid: int | None = None) -> Net:
    """The namespaces, the link, the addresses, the routes and the box's /etc/hosts."""
    if os.geteuid() != 0:
        raise PermissionError(
            "tests/net makes network namespaces: run as root (CI runs bash tests/check as root)"
        )
    if shutil.which("ip") is None:
        raise FileNotFoundError("no `ip` (iproute2): bash tests/check installs it")
    sweep()
    tag = f"{PREFIX}{pid if pid is not None else os.getpid()}"
    net = Net(box=f"{tag}b", phones=f"{tag}p", lone=f"{tag}l")
    try:
        for ns in net.names:
            ip("netns", "add", ns)
            ip("-n", ns, "link", "set", "lo", "up")
        ip("link", "add", net.box_link, "type", "veth", "peer", "name", net.phones_link)
        for ns, link, address in (
            (net.box, net.box_link, BOX_IP),
            (net.phones, net.phones_link, PHONES_IP),
        ):
            ip("link", "set", link, "netns", ns)
            ip("-n", ns, "addr", "add", f"{address}/24", "dev", link)
            ip("-n", ns, "link", "set", link, "up")
            ip("-n", ns, "route", "add", "default", "dev", link)
        hosts = NETNS_ETC / net.box / "hosts"
        hosts.parent.mkdir(parents=True, exist_ok=True)
        hosts.write_text(f"127.0.0.1\tlocalhost\n127.0.1.1\t{socket.gethostname()}\n")
    except BaseException:
        remove(net)
        raise
    return net


def wire_lone(net: Net) -> str:
    """The lone namespace's wifi comes up: a veth pair to the phones' namespace, the lone
    box at LONE_IP (its default route by it); returns that address."""
    here, there = f"{net.lone}0", f"{net.lone}1"
    ip("link", "add", here, "type", "veth", "peer", "name", there)
    for ns, link, address in ((net.lone, here, LONE_IP), (net.phones, there, LONE_PEER_IP)):
        ip("link", "set", link, "netns", ns)
        ip("-n", ns, "addr", "add", f"{address}/24", "dev", link)
        ip("-n", ns, "link", "set", link, "up")
    ip("-n", net.lone, "route", "add", "default", "dev", here)
    return LONE_IP


def remove(net: Net) -> None:
    """The namespaces (their links go with them) and the box's /etc/netns folder."""
    for ns in net.names:
        ip("netns", "del", ns, check=False)
        shutil.rmtree(NETNS_ETC / ns, ignore_errors=True)
    with contextlib.suppress(OSError):
        NETNS_ETC.rmdir()  # only if no other run's namespace has a folder there


def sweep() -> None:
    """Remove what runs that were killed left behind (their pid is gone)."""
    listed = ip("netns", "list", check=False).stdout
    for name in re.findall(rf"^({PREFIX}(\d+)[bpl])\b", listed, flags=re.M):
        ns, pid = name
        if not Path(f"/proc/{pid}").exists():
            ip("netns", "del", ns, check=False)
            shutil.rmtree(NETNS_ETC / ns, ignore_errors=True)


def chromium_in(ns: str, chromium: str, folder: Path) -> str:
    """A launcher that runs Chromium in namespace `ns`, for Playwright's executable_path
    (Playwright talks to it over pipes, which cross namespaces)."""
    script = folder / f"chromium-{ns}"
    script.write_text(f'#!/bin/sh\nexec ip netns exec {ns} {chromium} "$@"\n')
    script.chmod(0o755)
    return str(script)
