"""The appliance's errors (install, mDNS), under the one root (buzzerbox/errors.py)."""

from __future__ import annotations

from buzzerbox.errors import BuzzerboxError


class PackageFileMissingError(BuzzerboxError, FileNotFoundError):
    """A file the package ships is not there (a broken install)."""


class MdnsError(BuzzerboxError, RuntimeError):
    """The box could not be advertised on the network."""
