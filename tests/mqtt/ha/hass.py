"""A real Home Assistant for the tests: core from PyPI in its own Python 3.13 venv
(tests/mqtt/ha/install.sh, run by tests/check), with a config folder of the test's
own, driven through its REST API. Not a test module.

Onboarding makes the owner and gives the token (as a browser does on first start);
the MQTT integration is set up by its config flow over the REST API (as a user does
in Settings > Devices & services): nothing of Home Assistant's storage formats is
written by hand. Every wait polls with a deadline.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
INSTALL = HERE / "install.sh"
#: the pin, read from install.sh (one place)
VERSION = re.search(r"^HA_VERSION=(\S+)", INSTALL.read_text(), re.M).group(1)  # type: ignore[union-attr]
VENV = Path(
    os.environ.get("BUZZERBOX_HA_VENV", Path.home() / ".cache" / "buzzerbox-ha" / f"venv-{VERSION}")
)
START_S = 120.0  # Home Assistant's start on a loaded 2-core machine: 10-40 s seen
WAIT_S = 30.0


def venv_command(program: str = "python") -> list[str]:
    """How to run the venv's `program` (python, hass): itself, or through the script its
    file `runner` names (install.sh made the venv with the Python 3.13 of the real-stack
    tier's Trixie root, on a machine with none: tests/realstack/in-trixie.sh). The test
    fails (never skips) when it is not installed."""
    python = VENV / "bin" / "python"  # a link to a Python that may be the root's only
    if not (VENV / "stamp").is_file() or not os.path.lexists(python):
        pytest.fail(
            f"Home Assistant {VERSION} is not installed in {VENV}: run tests/check "
            "(or tests/mqtt/ha/install.sh)"
        )
    runner = VENV / "runner"
    prefix = ["bash", runner.read_text().strip()] if runner.is_file() else []
    return [*prefix, str(VENV / "bin" / program)]


def poll(what: str, probe: Callable[[], Any], timeout: float = WAIT_S) -> Any:
    """probe() until it returns something truthy; fails with `what` at the deadline."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = probe()
        except (OSError, urllib.error.URLError) as exc:
            last = exc
        else:
            if last:
                return last
        if time.monotonic() > deadline:
            pytest.fail(f"Home Assistant: {what} within {timeout:.0f} s (last: {last!r})")
        time.sleep(0.1)  # a poll's pace, not a wait for something


class HomeAssistant:
    """`hass -c FOLDER` on 127.0.0.1:`port`; start/stop it as often as needed."""

    def __init__(
        self, folder: Path, port: int, automations: list[dict[str, Any]], counters: list[str]
    ) -> None:
        self.python = venv_command("python")
        self.folder = folder
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.token = ""
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "configuration.yaml").write_text(
            json.dumps(  # JSON is YAML; the include goes in as YAML's tag
                {
                    "homeassistant": {
                        "name": "buzzerbox tier",
                        "latitude": 0,
                        "longitude": 0,
                        "elevation": 0,
                        "unit_system": "metric",
                        "time_zone": "UTC",
                        "country": "DE",
                        "currency": "EUR",
                    },
                    "http": {"server_host": "127.0.0.1", "server_port": port},
                    "logger": {"default": "warning"},
                    "counter": {name: {"initial": 0, "step": 1} for name in counters},
                    "automation": "INCLUDE",
                },
                indent=1,
            ).replace('"INCLUDE"', "!include automations.yaml")
        )
        self.automations = automations  # loaded once MQTT is there: `add_mqtt`
        (folder / "automations.yaml").write_text("[]\n")

    @property
    def log(self) -> str:
        path = self.folder / "home-assistant.log"
        return path.read_text(errors="replace") if path.exists() else ""

    # -- the process ----------------------------------------------------------------------

    def start(self) -> None:
        self.process = subprocess.Popen(
            [*venv_command("hass"), "-c", str(self.folder), "--skip-pip"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # it logs to home-assistant.log
        )

        def running() -> bool:
            assert self.process is not None
            if self.process.poll() is not None:
                pytest.fail(
                    f"Home Assistant ended ({self.process.returncode}):\n{self.log[-3000:]}"
                )
            with urllib.request.urlopen(f"{self.base}/api/onboarding", timeout=5) as reply:
                return bool(reply.status == 200)

        poll("the HTTP API up", running, START_S)
        if self.token:
            poll("started", lambda: self.api("GET", "/api/config").get("state") == "RUNNING")

    def stop(self) -> None:
        """SIGTERM: Home Assistant writes its restore state and storage, then ends."""
        if self.process is not None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
                pytest.fail("Home Assistant did not stop on SIGTERM within 60 s")
            finally:
                self.process = None

    # -- first start: the owner and the MQTT integration ------------------------------------

    def onboard(self) -> None:
        """The owner, as the first page of a new Home Assistant makes it; its token."""
        client = f"{self.base}/"
        user = {
            "client_id": client,
            "name": "Tier",
            "username": "tier",
            "password": "tier-password-1",
            "language": "en",
        }
        code = self._post_json("/api/onboarding/users", user)["auth_code"]
        form = urllib.parse.urlencode(
            {"grant_type": "authorization_code", "code": code, "client_id": client}
        ).encode()
        request = urllib.request.Request(f"{self.base}/auth/token", data=form, method="POST")
        with urllib.request.urlopen(request, timeout=10) as reply:
            self.token = json.load(reply)["access_token"]  # 30 min: the tier takes 2
        poll("started", lambda: self.api("GET", "/api/config").get("state") == "RUNNING")

    def add_mqtt(self, broker_port: int) -> None:
        """Settings > Devices & services > MQTT: the broker's address (with discovery on)."""
        flow = self.api("POST", "/api/config/config_entries/flow", {"handler": "mqtt"})
        assert flow.get("step_id") == "broker", flow
        done = self.api(
            "POST",
            f"/api/config/config_entries/flow/{flow['flow_id']}",
            {"broker": "127.0.0.1", "port": broker_port},
        )
        assert done.get("type") == "create_entry", done
        # the automations now: an MQTT trigger set up before MQTT is there stays dead, and
        # a reload sets up only the automations it did not have (later starts set MQTT
        # up first)
        (self.folder / "automations.yaml").write_text(json.dumps(self.automations, indent=1))
        self.api("POST", "/api/services/automation/reload", {})

    # -- the REST API -----------------------------------------------------------------------

    def _post_json(self, path: str, body: Any) -> Any:
        request = urllib.request.Request(
            f"{self.base}{path}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            return json.load(reply)

    def api(self, method: str, path: str, body: Any = None) -> Any:
        request = urllib.request.Request(
            f"{self.base}{path}",
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
            method=method,
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                text = reply.read().decode()
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            raise AssertionError(f"{method} {path}: {exc.code} {exc.read()[:500]!r}") from exc
        try:
            return json.loads(text)
        except ValueError:
            return text

    def state(self, entity_id: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self.api("GET", f"/api/states/{entity_id}")
        return found

    def template(self, text: str) -> str:
        return str(self.api("POST", "/api/template", {"template": text}))

    def websocket(self, *commands: dict[str, Any]) -> list[Any]:
        """Websocket API commands (what the frontend sends), by ws.py in the venv."""
        result = subprocess.run(
            [*self.python, str(HERE / "ws.py"), f"{self.base}/api/websocket", self.token],
            input=json.dumps(list(commands)),
            capture_output=True,
            text=True,
            timeout=WAIT_S,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        replies: list[Any] = json.loads(result.stdout)
        return replies
