"""A package's names loaded when first asked for, not with the package: its module
`__getattr__` (PEP 562), so `buzzerbox --help` loads no Flask, paho or gpiozero.

    LAZY = {"create_app": "buzzerbox.hub.app"}
    __getattr__ = lazy.attributes(__name__, LAZY)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def attributes(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """The `__getattr__` of `package`: each of `names` from the module it maps to."""

    def __getattr__(name: str) -> Any:
        if name in names:
            return getattr(importlib.import_module(names[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
