"""Issue 39, item 8: a fresh hub data folder is its user's alone, as a box's: the folder
0700, its files (the lock, the PIN, the key, the record) 0600. A real `buzzerbox hub`."""

from __future__ import annotations

import stat
from pathlib import Path

from .mqtt_fakes import Mosquitto
from .test_board import state
from .test_untrusted import Hub, publish


def test_a_new_hub_folder_is_the_hubs_alone(broker: Mosquitto, tmp_path: Path) -> None:
    folder = tmp_path / "new" / "hub"
    hub = Hub(broker, folder)
    try:
        publish(broker.url, [("buzzerbox/t1/state", state(3), False)])
        hub.wait_table("t1", 3)  # the record is written before it is shown
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        names = sorted(p.name for p in folder.iterdir())
        assert {"lock", "hub.json"} <= set(names), names
        for path in folder.iterdir():
            assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, (path.name, path.stat())
    finally:
        hub.stop()
