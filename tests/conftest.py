"""Settings for every test folder.

Hypothesis keeps its example database in the temp folder, not in the checkout.
"""

import contextlib
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from buzzerbox.pads.fakes.port import FakeBoardPort
from hypothesis.configuration import set_hypothesis_home_dir

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "buzzerbox-hypothesis")

# When a hypothesis test fails, its pytest plugin imports libcst to suggest a patch, and
# libcst warns (mypy_extensions.TypedDict is deprecated): with filterwarnings = error that
# turns the failure report into an INTERNALERROR. Import it now, its warning silenced.
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore", DeprecationWarning)
    import hypothesis.extra._patching  # noqa: F401


@pytest.fixture
def ports() -> Iterator[list[FakeBoardPort]]:
    """The fake boards a test starts; all are closed after it."""
    started: list[FakeBoardPort] = []
    yield started
    for port in started:
        port.close()
