"""Words the rules say in more than one place: where a game stands, a seat that is not
there. Words, never a language: the text is said at the edge (buzzerbox.i18n)."""

from __future__ import annotations

from buzzerbox.errors import Words, plural_words
from buzzerbox.rules.phase import Phase

WHERE = {
    Phase.LOBBY: Words("no round has started yet"),
    Phase.COUNTDOWN: Words("round {round} is counting down"),
    Phase.PLAYING: Words("round {round} is playing"),
    Phase.SCORING: Words("round {round} is over and being scored"),
    Phase.SCORED: Words("round {round} is scored and the next has not started"),
    Phase.FINISHED: Words("the game is finished"),
}


def no_seat(seat: object, seats: int) -> Words:
    """A seat that does not exist (the rules', the box's and the phones' words)."""
    return Words(
        "seat {seat!r} does not exist: this game has seats 0-{last}",
        {"seat": seat, "last": seats - 1},
    )


def player_count(title: str, least: int, most: int, n: int) -> Words:
    return plural_words(
        "{title} is for {least} to {most} players: {n} was named",
        "{title} is for {least} to {most} players: {n} were named",
        n,
        {"title": title, "least": least, "most": most},
    )


def refused(what: Words, where: Words, allowed: Words) -> Words:
    """`what` is refused now: `where` the game stands, and what is `allowed`."""
    return Words("{what}: {where}; {allowed}", {"what": what, "where": where, "allowed": allowed})


def not_amendable(title: str, field: str, amends: tuple[str, ...]) -> Words:
    """An amend of a field this game's rounds do not have: the fields it has."""
    fields: object = amends[0]
    if len(amends) == 2:
        fields = Words("{field} and/or {other}", {"field": amends[0], "other": amends[1]})
    said = {"title": title, "field": field, "fields": fields}
    return Words("{title} rounds have no {field} to amend: give {fields}", said)


def amendable(being_scored: bool, scored: int) -> Words:
    """What amend takes, said to an amend of a round it cannot take: the round being
    scored (`being_scored`), or one not among the `scored` rounds."""
    if being_scored:
        return Words(
            "enter its counts (undo takes an entry back): amend corrects a round once it is scored"
        )
    if scored == 0:
        return Words("amend corrects a scored round: no round is scored yet")
    if scored == 1:
        return Words("amend corrects a scored round: only round 1 is scored")
    return Words("amend corrects a scored round: rounds 1-{last} are scored", {"last": scored})
