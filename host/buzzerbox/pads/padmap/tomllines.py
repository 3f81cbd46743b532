"""Where things are in a TOML text, for messages that name the line.

tomllib gives values, not positions; this finds the line of a table header
(``[gpio]``, the n-th ``[[pad]]``) or of a key inside it by reading the text.
Inline tables are not found (None): a message then names the entry instead.
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"\s*(\[\[?)\s*([A-Za-z0-9_-]+)\s*\]")


class TomlLines:
    """Line numbers (1-based) of headers and keys in one TOML text."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.headers: list[tuple[int, str]] = []  # (line, "[[pad" or "[gpio")
        for n, line in enumerate(self.lines, 1):
            m = _HEADER.match(line)
            if m:
                self.headers.append((n, f"{m.group(1)}{m.group(2)}"))

    def _block(self, header: str | None, index: int) -> tuple[int, int] | None:
        """(first, last) line of the `index`-th `header` block; None: the top level."""
        if header is None:
            end = self.headers[0][0] - 1 if self.headers else len(self.lines)
            return 1, end
        found = [i for i, (_, h) in enumerate(self.headers) if h == header]
        if index >= len(found):
            return None
        i = found[index]
        end = self.headers[i + 1][0] - 1 if i + 1 < len(self.headers) else len(self.lines)
        return self.headers[i][0], end

    def line(self, header: str | None, index: int = 0, key: str | None = None) -> int | None:
        """The line of `key` in the `index`-th `header` (``"[[pad"``, ``"[gpio"``, None for
        the top level), or of the header itself; None if it is not written as such."""
        block = self._block(header, index)
        if block is None:
            return None
        first, last = block
        if key is None:
            return first
        pattern = re.compile(rf"\s*{re.escape(key)}\s*=")
        for n in range(first, last + 1):
            if pattern.match(self.lines[n - 1]):
                return n
        return first if header is not None else None
