"""The security headers of every page the box and the hub serve, once.

A strict Content-Security-Policy (scripts, styles, images and connections from the
server itself only: it runs offline, no CDN), no MIME sniffing, no referrer, and
HTML never cached (the page frames are tiny; a phone must never show yesterday's).
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Response


def csp(form_action: str) -> str:
    """The policy; `form_action` is where forms may post ("'self'" or "'none'")."""
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "connect-src 'self'",
            "base-uri 'none'",
            f"form-action {form_action}",
            "frame-ancestors 'none'",
        ]
    )


def security_headers(form_action: str = "'self'") -> Callable[[Response], Response]:
    """An after-request hook that sets the headers a response does not set itself."""
    policy = csp(form_action)

    def headers(response: Response) -> Response:
        response.headers.setdefault("Content-Security-Policy", policy)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        if response.mimetype == "text/html":
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    return headers
