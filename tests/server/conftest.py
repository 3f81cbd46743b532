"""The server's tests that need an app use the web tests' fixtures (tests/web/conftest.py)."""

from web.conftest import (  # type: ignore[import-not-found]  # noqa: F401
    admin,
    app,
    app_config,
    box,
    client,
    clock,
    db_path,
    seconds,
)
