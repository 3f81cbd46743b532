"""A log line's numbers as the line wrote them, for the refusals that quote them.

A refusal says the number it refuses as the person wrote it: `rounds 5e0`, not
`rounds 5.0`. The log's reader (gamelog.py) reads every number with a fraction or
an exponent as a `WrittenFloat`, a float that keeps its text and is shown by it
(`{value!r}` in a Words text); JSON integers stay ints.
"""

from __future__ import annotations


class WrittenFloat(float):
    """A JSON number with a fraction or an exponent, with the text it was written as."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> WrittenFloat:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __repr__(self) -> str:
        return self.text
