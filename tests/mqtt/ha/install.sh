#!/usr/bin/env bash
# The real-Home-Assistant tier's Home Assistant: core from PyPI, pinned, with its
# frontend (bootstrap refuses to start without it) and the MQTT integration's own
# requirement, in a Python 3.13 venv outside the repo (never committed). Idempotent:
# a venv whose stamp names this pin is left as it is. About 5 minutes the first time.
set -euo pipefail
HA_VERSION=2025.4.4          # the newest that installs on Python 3.13.0 (2025.5 wants 3.13.2)
FRONTEND=20250411.0          # homeassistant/components/frontend/manifest.json of that release
PAHO=2.1.0                   # homeassistant/components/mqtt/manifest.json of that release
venv="${BUZZERBOX_HA_VENV:-$HOME/.cache/buzzerbox-ha/venv-$HA_VERSION}"
want="homeassistant==$HA_VERSION home-assistant-frontend==$FRONTEND paho-mqtt==$PAHO"
if [ -f "$venv/stamp" ] && [ "$(cat "$venv/stamp")" = "$want" ]; then
    exit 0
fi
python313="${BUZZERBOX_PYTHON313:-$(pyenv root 2>/dev/null)/versions/3.13.0/bin/python3}"
[ -x "$python313" ] || { echo "tests/mqtt/ha/install.sh: no Python 3.13 at $python313 (pyenv install 3.13.0)" >&2; exit 1; }
echo "installing Home Assistant $HA_VERSION into $venv"
start=$(date +%s)
rm -rf "$venv"
"$python313" -m venv "$venv"
# shellcheck disable=SC2086
"$venv/bin/pip" install -q --disable-pip-version-check $want 2>&1 | grep -v "is ignored: it is neither" || true
"$venv/bin/python" -c "import homeassistant.const, hass_frontend, paho.mqtt" # fails loudly if pip did
echo "$want" > "$venv/stamp"
echo "Home Assistant $HA_VERSION installed in $(( $(date +%s) - start )) s"
