"""The live stream's tests drive a box as the web tests do: the web tests' fixtures
(a box on a driven clock, its app, a viewer and an admin), from tests/web/conftest.py."""

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
