"""Hypothesis keeps its files in the temp folder, not in the user's top level.

A `.hypothesis/` folder at the top would also break collection: pytest's
`norecursedirs` replaces the defaults, and hypothesis warns about it (an error
under `filterwarnings = error`).
"""

import tempfile
from pathlib import Path

from hypothesis.configuration import set_hypothesis_home_dir

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "buzzerbox-hypothesis")
