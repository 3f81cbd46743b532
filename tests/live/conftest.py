"""These tests drive a box as the web tests do, on the web tests' fixtures (a box on
a driven clock, its app, a viewer and an admin: tests/web/conftest.py)."""

from web.conftest import *  # type: ignore[import-not-found]  # noqa: F403
