"""The OpenAPI 3.1 document of the JSON API, served at /api/openapi.json.

The contract between the box and its pages: what each endpoint takes and answers.
The state object is the one of buzzerbox/rules/game-log.md (what `buzzerbox replay` prints),
plus "box": what the pages need besides the game. The document is a data file
shipped with the package (openapi.json, edited as JSON); its version is the
package's, filled in when it is read.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any

from buzzerbox import __version__


@cache
def _load() -> dict[str, Any]:
    text = resources.files("buzzerbox.web").joinpath("openapi.json").read_text(encoding="utf-8")
    doc: dict[str, Any] = json.loads(text)
    doc["info"]["version"] = __version__
    return doc


def document() -> dict[str, Any]:
    """The document (a copy: the caller may change it)."""
    return copy.deepcopy(_load())
