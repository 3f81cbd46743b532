"""The event's hub: one leaderboard page for every table, from the broker.

    buzzerbox hub --broker mqtt://broker.local [--host H --port P]

- leaderboard.py the fold of the boxes' messages: tables, tournament, photo finishes
- tables.py      what the board holds of a box (Table) and of a player (Record)
- validate.py    every message from the broker checked, bounded and copied
- messages.py    the typed copies validate.py makes (StateMessage, RaceMessage, ...)
- record.py      the hub's own record on disk (hub.json), idle tables dropped
- (buzzerbox.live.sse.Live: Server-Sent Events from the board to every screen)
- subscriber.py  the hub's MQTT client
- commands.py    `buzzerbox hub --broker URL`: subscribe, serve, print the address
- app.py         create_app: GET / (the page, for a TV or a phone), GET /api/board
                 (JSON), GET /api/events (the live stream, a keepalive every 2 s: the
                 page says "reconnecting to the hub…" after two missed), /hub-assets/*
                 (its JS, CSS, and the box's keepalive.js), the admin's login and
                 DELETE /api/tables/<box>

Everything is served by the hub itself (a venue may be offline): no CDN, no build
step. Nothing lives in request globals: the app is built around its board and live
stream. The package itself loads nothing (`buzzerbox --help` loads no Flask): import
its modules (`from buzzerbox.hub.app import create_app`).
"""
