"""`buzzerbox serve --mqtt URL --box-name NAME`: the real box publishes to the broker."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from .mqtt_fakes import TIMEOUT_S, Mosquitto, Recorder


def test_serve_publishes_its_status_and_state(broker: Mosquitto, tmp_path: Path) -> None:
    recorder = Recorder(broker.url, ["buzzerbox/table-7/#"])
    args = ["serve", "--host", "127.0.0.1", "--port", "0", "--data", str(tmp_path)]
    args += ["--pin", "4321", "--mqtt", broker.url, "--box-name", "table-7"]
    serve = subprocess.Popen(
        [sys.executable, "-m", "buzzerbox", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert serve.stdout is not None
        for line in serve.stdout:  # serving (and handling SIGTERM) once it prints the PIN
            if line.startswith("buzzerbox: admin PIN"):
                break
        assert recorder.wait(
            lambda ms: any(
                m.topic == "buzzerbox/table-7/status" and m.payload == b"online" for m in ms
            )
        ), "the box never said it was online"
    finally:
        serve.send_signal(signal.SIGTERM)
        out, _ = serve.communicate(timeout=TIMEOUT_S)
    assert serve.returncode == 0, out
    assert recorder.wait(
        lambda ms: (
            [m.payload for m in ms if m.topic == "buzzerbox/table-7/status"][-1:] == [b"offline"]
        )
    ), "a clean stop marks the box offline"
    recorder.close()


def test_a_bad_broker_url_stops_serve_with_a_message(tmp_path: Path) -> None:
    args = ["serve", "--port", "0", "--data", str(tmp_path), "--mqtt", "http://nowhere"]
    result = subprocess.run(
        [sys.executable, "-m", "buzzerbox", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert result.returncode == 2
    assert "mqtt" in result.stderr.lower()
    assert result.stderr.count("\n") == 1, result.stderr
