"""Settings for every test folder.

Hypothesis keeps its example database in the temp folder, not in the checkout.
"""

import tempfile
from pathlib import Path

from hypothesis.configuration import set_hypothesis_home_dir

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "buzzerbox-hypothesis")
