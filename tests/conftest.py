"""Settings for every test folder, and the package's own fixtures (buzzerbox.fixtures:
box, app, admin, clock, ports, ...).

Hypothesis keeps its example database in the temp folder, not in the checkout.
"""

import contextlib
import tempfile
import warnings
from pathlib import Path

from hypothesis.configuration import set_hypothesis_home_dir

pytest_plugins = ["buzzerbox.fixtures"]

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "buzzerbox-hypothesis")

# When a hypothesis test fails, its pytest plugin imports libcst to suggest a patch, and
# libcst warns (mypy_extensions.TypedDict is deprecated): with filterwarnings = error that
# turns the failure report into an INTERNALERROR. Import it now, its warning silenced.
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore", DeprecationWarning)
    import hypothesis.extra._patching  # noqa: F401
