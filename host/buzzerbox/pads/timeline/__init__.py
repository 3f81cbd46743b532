"""One host timeline for every press, pure: a board's clock mapped onto it
(`clockmap.py`), the sync wire (`syncgroup.py`), debounce (`debounce.py`) and the
arbiter that lets edges go in true time order (`arbiter.py`)."""
