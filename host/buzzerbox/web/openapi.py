"""The OpenAPI 3.1 document of the JSON API, served at /api/openapi.json.

The contract between the box and its pages: what each endpoint takes and answers.
The state object is the one of rules/game-log.md (what `buzzerbox replay`
prints), plus "box": what the pages need besides the game.
"""

from __future__ import annotations

from typing import Any

from buzzerbox import __version__

JSON = "application/json"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def _error(description: str) -> dict[str, Any]:
    return _json(_ref("Error"), description)


def _op(summary: str, responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"summary": summary, "responses": responses, **extra}


def _body(schema: dict[str, Any], media: str = JSON) -> dict[str, Any]:
    return {"required": True, "content": {media: {"schema": schema}}}


ADMIN: list[dict[str, list[str]]] = [{"adminSession": [], "csrfToken": []}]
STATE = {"200": _json(_ref("State"), "the state object")}
CHANGE_REFUSED = {
    "400": _error("malformed: the reason, and the player or field it concerns"),
    "403": _error("not the admin session, or no valid X-CSRF-Token"),
    "409": _error("the rules refuse it now: the reason"),
}
GAME_PARAM = {
    "name": "game",
    "in": "query",
    "required": False,
    "description": "a game id from GET /api/games (default: the current game)",
    "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"},
}
EXPORT_REFUSED = {
    "400": _error("game is no game id"),
    "404": _error("no such game in the log"),
    "409": _error("no game yet, or (csv, bgstats) the game is not finished"),
}

SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {"type": "string", "description": "a reason a person understands"},
            "field": {"type": "string", "description": "the player or field it concerns"},
        },
    },
    "Pad": {
        "type": "object",
        "required": ["id", "role", "seat", "pile", "label"],
        "properties": {
            "id": {"type": "string"},
            "role": {"enum": ["stop", "slap", "pile"]},
            "seat": {"type": "integer", "minimum": 0},
            "pile": {"type": ["integer", "null"], "minimum": 0},
            "label": {"type": "string"},
            "enrolled": {
                "type": "boolean",
                "description": "re-seated for this game by enrolment (else the pad map's seat)",
            },
        },
    },
    "PadTestEdge": {
        "type": "object",
        "description": "a raw pad edge, as the pad test shows it",
        "required": ["n", "pad", "role", "seat", "pile", "edge", "t_us", "note"],
        "properties": {
            "n": {"type": "integer", "description": "counts the edges since the box started"},
            "pad": {"type": "string", "description": "the pad id (a virtual pad: s<seat>-...)"},
            "role": {"enum": ["stop", "slap", "pile", None]},
            "seat": {"type": ["integer", "null"]},
            "pile": {"type": ["integer", "null"]},
            "edge": {"enum": ["press", "release"]},
            "t_us": {"type": "integer", "description": "box timeline (µs)"},
            "note": {
                "type": ["string", "null"],
                "description": "null: played; else why not (refused, enrolled, not in the map)",
            },
        },
    },
    "Enrolment": {
        "type": "object",
        "description": (
            '{"seat": n}: the next press of a pad enrols it for seat n in this game; '
            '{"seat": null}: stop waiting; {"reset": true}: back to the pad map'
        ),
        "properties": {
            "seat": {"type": ["integer", "null"], "minimum": 0},
            "reset": {"type": "boolean"},
        },
    },
    "Box": {
        "type": "object",
        "description": "what the box adds to the state object for its pages",
        "required": ["simulated", "pads", "countdown_ends_us", "now_us", "urls", "admin", "seq"],
        "properties": {
            "simulated": {"type": "boolean", "description": "virtual pads, no hardware"},
            "pads": {"type": "array", "items": _ref("Pad")},
            "countdown_ends_us": {
                "type": ["integer", "null"],
                "description": "when the running countdown ends, box timeline (µs)",
            },
            "countdown": {
                "enum": ["go", "split", None],
                "description": "go: 3-2-1 then the start signal; split: Twin It! 3-2-1",
            },
            "now_us": {"type": "integer", "description": "the box clock when this was made"},
            "urls": {"type": "array", "items": {"type": "string"}},
            "admin": {"type": "boolean", "description": "this session is the admin"},
            "seq": {"type": "integer", "description": "the log seq of the last event"},
            "game_id": {"type": ["integer", "null"]},
            "variants": {"type": "array", "items": {"type": "string"}},
            "lit": {"type": "array", "items": {"type": "string"}, "description": "pad ids lit"},
            "open_pads": {"type": "boolean", "description": "anyone may press virtual pads"},
            "wifi": {"type": "boolean", "description": "GET /api/qr/wifi.svg is available"},
            "enrolling": {
                "type": ["integer", "null"],
                "description": "the seat whose pad the next press enrols (POST /api/enrol)",
            },
            "pad_test": {
                "type": "array",
                "items": _ref("PadTestEdge"),
                "description": "the last raw pad edges, oldest first (at most 16)",
            },
        },
    },
    "State": {
        "type": "object",
        "description": "the state object of game-log.md; phase idle before any game",
        "required": ["game", "round", "phase", "players", "winners", "history", "box"],
        "properties": {
            "game": {"enum": ["ligretto", "twist", "kids", "twinit", None]},
            "title": {"type": ["string", "null"]},
            "round": {"type": "integer", "minimum": 0},
            "phase": {
                "enum": ["idle", "lobby", "countdown", "playing", "scoring", "scored", "finished"]
            },
            "players": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "total"],
                    "properties": {"name": {"type": "string"}, "total": {"type": "integer"}},
                },
            },
            "winners": {"type": "array", "items": {"type": "string"}},
            "caller": {"type": ["string", "null"]},
            "history": {"type": "array", "items": {"type": "object"}},
            "undoable": {"type": ["string", "null"]},
            "rejected": {"type": "array", "items": {"type": "object"}},
            "box": _ref("Box"),
        },
    },
    "NewGame": {
        "type": "object",
        "required": ["game", "players"],
        "properties": {
            "game": {"enum": ["ligretto", "twist", "kids", "twinit"]},
            "players": {"type": "array", "items": {"type": "string"}},
            "target": {"enum": [50, 99, 150]},
            "rounds": {"type": "integer", "minimum": 1},
            "variants": {"type": "array", "items": {"type": "string"}},
            "first": {"type": "integer", "minimum": 0, "description": "twinit: who starts"},
        },
    },
    "TableEntry": {
        "type": "object",
        "description": "a game-log event the table posts (go, press, release come from the box)",
        "required": ["type"],
        "properties": {
            "type": {
                "enum": [
                    "round",
                    "caller",
                    "stall",
                    "stacks",
                    "middle",
                    "left",
                    "claim",
                    "void",
                    "amend",
                    "finish",
                    "undo",
                ]
            },
            "seat": {"type": "integer", "minimum": 0, "description": "caller, void"},
            "t_us": {"type": "integer", "minimum": 0, "description": "void: the press's time"},
            "round": {"type": "integer", "minimum": 1, "description": "amend: a scored round"},
            "counts": {
                "type": "object",
                "additionalProperties": {"type": "integer"},
                "description": "stacks, middle, left: {name: n} for every player",
            },
            "result": {"enum": ["pair", "steal", "error", "split"], "description": "claim"},
            "victim": {"type": "string", "description": "claim steal"},
        },
    },
    "PadEdge": {
        "type": "object",
        "required": ["seat", "pad"],
        "properties": {
            "seat": {"type": "integer", "minimum": 0},
            "pad": {"enum": ["stop", "slap", "pile"]},
            "pile": {"type": "integer", "minimum": 0},
        },
    },
    "GameSummary": {
        "type": "object",
        "required": ["id", "game", "players", "finished", "winners"],
        "properties": {
            "id": {"type": "integer"},
            "game": {"type": "string"},
            "players": {"type": "array", "items": {"type": "string"}},
            "phase": {"type": "string"},
            "finished": {"type": "boolean"},
            "winners": {"type": "array", "items": {"type": "string"}},
            "started": {"type": "number", "description": "Unix time"},
            "updated": {"type": "number", "description": "Unix time"},
        },
    },
    "Session": {
        "type": "object",
        "required": ["admin", "csrf"],
        "properties": {"admin": {"type": "boolean"}, "csrf": {"type": ["string", "null"]}},
    },
}

PATHS: dict[str, Any] = {
    "/api/state": {"get": _op("The state object, and what the box adds", STATE)},
    "/api/events": {
        "get": _op(
            "The live stream (Server-Sent Events): `id: <seq>`, `event: state`, "
            "`data: <state>`; the full state on connect unless Last-Event-ID is current; "
            "a comment every 15 s",
            {
                "200": {"description": "the stream", "content": {"text/event-stream": {}}},
                "503": _error("too many streams open: retry later"),
            },
            parameters=[{"name": "Last-Event-ID", "in": "header", "schema": {"type": "string"}}],
        )
    },
    "/api/login": {
        "post": _op(
            "Log in as the admin with the PIN shown on the box's console",
            {
                "200": _json(
                    {
                        "type": "object",
                        "required": ["csrf"],
                        "properties": {"csrf": {"type": "string"}},
                    },
                    "the admin session cookie is set; send csrf as X-CSRF-Token",
                ),
                "400": _error("no PIN given"),
                "403": _error("wrong PIN"),
                "429": _error("too many wrong PINs: Retry-After says when to try again"),
            },
            requestBody=_body(
                {"type": "object", "required": ["pin"], "properties": {"pin": {"type": "string"}}}
            ),
        )
    },
    "/api/logout": {"post": _op("End the admin session", {"200": _json(_ref("Session"), "ok")})},
    "/api/session": {"get": _op("This session", {"200": _json(_ref("Session"), "the session")})},
    "/api/game": {
        "post": _op(
            "Start a new game (the old one stays in the log)",
            {**STATE, **CHANGE_REFUSED},
            requestBody=_body(_ref("NewGame")),
            security=ADMIN,
        )
    },
    "/api/event": {
        "post": _op(
            "A table entry: round, caller, stall, stacks, middle, left, claim, finish, undo",
            {**STATE, **CHANGE_REFUSED},
            requestBody=_body(_ref("TableEntry")),
            security=ADMIN,
        )
    },
    "/api/pads/press": {
        "post": _op(
            "Press a virtual pad (simulated box; admin, or anyone with --open-pads)",
            {**STATE, **CHANGE_REFUSED},
            requestBody=_body(_ref("PadEdge")),
            security=ADMIN,
        )
    },
    "/api/pads/release": {
        "post": _op(
            "Release a virtual pad",
            {**STATE, **CHANGE_REFUSED},
            requestBody=_body(_ref("PadEdge")),
            security=ADMIN,
        )
    },
    "/api/enrol": {
        "post": _op(
            "Enrol a real pad for a seat by pressing it: the next press of a pad is the seat's "
            "in this game (kept in the log; between rounds; a simulated box refuses: 409)",
            {**STATE, **CHANGE_REFUSED},
            requestBody=_body(_ref("Enrolment")),
            security=ADMIN,
        )
    },
    "/api/games": {
        "get": _op(
            "The games in the log, the newest first",
            {"200": _json({"type": "array", "items": _ref("GameSummary")}, "the games")},
        )
    },
    "/api/import": {
        "post": _op(
            "Import a game log (v1, JSON lines) as a new game; rejected lines are listed",
            {**STATE, **CHANGE_REFUSED},
            requestBody=_body({"type": "string"}, "text/plain"),
            security=ADMIN,
        )
    },
    "/api/export/log": {
        "get": _op(
            "The game log (v1, JSON lines)",
            {
                "200": {"description": "the log", "content": {"application/x-ndjson": {}}},
                **EXPORT_REFUSED,
            },
            parameters=[GAME_PARAM],
        )
    },
    "/api/export/csv": {
        "get": _op(
            "A finished game's score sheet (CSV)",
            {"200": {"description": "the sheet", "content": {"text/csv": {}}}, **EXPORT_REFUSED},
            parameters=[GAME_PARAM],
        )
    },
    "/api/export/bgstats": {
        "get": _op(
            "A finished game as a BG Stats play: the push-link JSON and the link",
            {
                "200": _json(
                    {
                        "type": "object",
                        "required": ["play", "link"],
                        "properties": {"play": {"type": "object"}, "link": {"type": "string"}},
                    },
                    "the play",
                ),
                **EXPORT_REFUSED,
            },
            parameters=[GAME_PARAM],
        )
    },
    "/api/qr/scoreboard.svg": {
        "get": _op(
            "A QR code of the scoreboard's address",
            {
                "200": {"description": "SVG", "content": {"image/svg+xml": {}}},
                "404": _error("the box knows no address"),
            },
        )
    },
    "/api/qr/wifi.svg": {
        "get": _op(
            "A QR code to join the table's Wi-Fi",
            {
                "200": {"description": "SVG", "content": {"image/svg+xml": {}}},
                "404": _error("no Wi-Fi configured"),
            },
        )
    },
}


def document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "buzzerbox", "version": __version__},
        "paths": PATHS,
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "adminSession": {"type": "apiKey", "in": "cookie", "name": "session"},
                "csrfToken": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"},
            },
        },
    }
