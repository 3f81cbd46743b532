"""The HTTP server plumbing shared by the box's app (web/) and the event's hub (hub/).

- listen.py     waitress, bound and sized for every live stream
- reach.py      the addresses phones open the box at (its interfaces', never loopback)
- threads.py    its worker threads, started as they are needed
- detach.py     waitress lets go of a live stream's connection, for the fanout
- loop.py       requests served on waitress's loop thread, no worker woken (viewers' streams)
- guard.py      what a client may hold: time, connections, bodies; the admin's lane
- address.py    who a client is, for the per-address caps
- door.py       how fast an address may open connections; the server's accept
- held.py       one budget for the heads and bodies connections hold
- streams.py    who gets a live stream
- security.py   the security headers of every answer (CSP, ...)
- auth.py       the admin's PIN, session cookie, CSRF token and login limits
- sessions.py   the admin sessions, kept in a file
- bodies.py     a request's JSON body, read and bounded
- refusals.py   refusals as JSON, never a 500 for a bad request

It knows nothing of the box, the rules, the pads or the store.
"""
