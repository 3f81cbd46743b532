"""The phases of a game, owned by the rules and compared by every layer.

A `Phase` is a `str` (StrEnum): it is written to JSON and to the log's summary as
its value ("playing"), and compares equal to that text, so state objects read back
from JSON compare with the members too.
"""

from enum import StrEnum
from typing import Final


class Phase(StrEnum):
    """Where a game stands (game-log.md, `phase`)."""

    #: the box has no game loaded (never the phase of a game itself)
    IDLE = "idle"
    #: no round has started yet
    LOBBY = "lobby"
    #: a round has started, the start signal is due
    COUNTDOWN = "countdown"
    #: the round is on: presses count
    PLAYING = "playing"
    #: the round is over, the table enters its counts
    SCORING = "scoring"
    #: the round is scored, the next has not started
    SCORED = "scored"
    #: the game is over: `winners` is set
    FINISHED = "finished"


#: between rounds: no round is counting down, playing or being scored
BETWEEN_ROUNDS = frozenset({Phase.LOBBY, Phase.SCORED})
#: a round is under way: the pads are live or about to be
IN_ROUND = frozenset({Phase.COUNTDOWN, Phase.PLAYING})

# `Phase.PLAYING` is looked up through the enum class on each use, about eight times
# what a module's global costs: the pad paths, taken for most lines of a log, use these.
LOBBY: Final = Phase.LOBBY
COUNTDOWN: Final = Phase.COUNTDOWN
PLAYING: Final = Phase.PLAYING
SCORING: Final = Phase.SCORING
