"""`buzzerbox serve --mqtt URL --box-name NAME`: the real box publishes to the broker."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .certs import Pki, make_pki, password_file, tls_listener
from .mqtt_fakes import TIMEOUT_S, Mosquitto, Recorder, free_port


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


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


class Serve:
    """`buzzerbox serve` in a process of its own; its console read line by line."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "buzzerbox", "serve", "--host", "127.0.0.1", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.port = 0
        self.seen: list[str] = []
        line = self.wait_for(r"open http://127\.0\.0\.1:(\d+)/")
        self.port = int(re.search(r":(\d+)/", line).group(1))  # type: ignore[union-attr]

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")

    def wait_for(self, pattern: str, timeout: float = TIMEOUT_S) -> str:
        """The first line said (so far or within `timeout`) that matches `pattern`."""
        for line in self.seen:
            if re.search(pattern, line):
                return line
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{pattern!r} not said: {''.join(self.seen)}") from None
            assert line, f"serve ended; it said: {''.join(self.seen)}"
            self.seen.append(line)
            if re.search(pattern, line):
                return line

    def box_state(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/state") as reply:
            box: dict[str, Any] = json.load(reply)["box"]
            return box

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(TIMEOUT_S)
        assert self.process.stdout is not None
        self.process.stdout.close()
        return code


def test_serve_with_the_broker_in_its_config_and_the_password_in_the_environment(
    tmp_path: Path, pki: Pki
) -> None:
    passwords = password_file(tmp_path / "passwords", "box", "s3cret/:@")
    broker = Mosquitto(tmp_path / "tls", listener=tls_listener(pki, passwords=passwords))
    broker.start()
    (tmp_path / "venue").mkdir()
    shutil.copy(pki.ca, tmp_path / "venue" / "ca.pem")
    config = tmp_path / "venue" / "box.toml"
    config.write_text(
        f'mqtt = "mqtts://localhost:{broker.port}"\n'
        'mqtt_username = "box"\nmqtt_ca = "ca.pem"\nbox_name = "table-2"\n'
        f'data = "{tmp_path / "data"}"\npin = "4321"\nport = 0\n'
    )
    serve = Serve(["--config", str(config)], env={"BUZZERBOX_MQTT_PASSWORD": "s3cret/:@"})
    try:
        serve.wait_for(r"box table-2: connected to mqtts://box@localhost")
        mqtt = serve.box_state()["mqtt"]
        assert mqtt["state"] == "connected" and mqtt["box_name"] == "table-2", (mqtt, serve.seen)
    finally:
        assert serve.stop() == 0
        broker.stop()


def test_serve_says_at_once_why_there_is_no_broker(tmp_path: Path) -> None:
    port = free_port()
    args = ["--port", "0", "--data", str(tmp_path), "--pin", "4321"]
    started = time.monotonic()
    serve = Serve([*args, "--mqtt", f"mqtt://127.0.0.1:{port}", "--box-name", "t1"])
    try:
        line = serve.wait_for("broker unreachable", timeout=5.0)
        assert time.monotonic() - started < 10.0  # the start of Python included
        assert f"nothing listens on 127.0.0.1:{port} (connection refused)" in line
        mqtt = serve.box_state()["mqtt"]
        assert mqtt["state"] == "unreachable"
        assert mqtt["text"].startswith("broker unreachable: nothing listens")
    finally:
        assert serve.stop() == 0


def test_doctor_names_the_reason(broker: Mosquitto, tmp_path: Path, pki: Pki) -> None:
    url = f"mqtts://127.0.0.1:{broker.port}"  # TLS to a plain port
    result = subprocess.run(
        [sys.executable, "-m", "buzzerbox", "doctor", "--mqtt", url, "--mqtt-ca", str(pki.ca)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert (
        f"== broker {url}: broker unreachable: 127.0.0.1:{broker.port} hung up" in (result.stdout)
        or "TLS handshake" in result.stdout
    ), result.stdout
    good = subprocess.run(
        [sys.executable, "-m", "buzzerbox", "doctor", "--mqtt", broker.url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert f"== broker {broker.url}: connected to the broker" in good.stdout, good.stdout


def test_an_unencoded_password_says_what_to_do(tmp_path: Path) -> None:
    args = ["serve", "--port", "0", "--data", str(tmp_path), "--mqtt", "mqtt://box:pa/ss@host"]
    result = subprocess.run(
        [sys.executable, "-m", "buzzerbox", *args], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "percent-encoded (@ as %40, : as %3A, / as %2F" in result.stderr
    assert "BUZZERBOX_MQTT_PASSWORD" in result.stderr and "pa/ss" not in result.stderr
