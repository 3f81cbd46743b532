#!/usr/bin/env bash
# The real-Home-Assistant tier's Home Assistant: core from PyPI, pinned, with its
# frontend (bootstrap refuses to start without it) and the MQTT integration's own
# requirement, in a Python 3.13 venv outside the repo (never committed). Idempotent:
# a venv whose stamp names this pin (and the Python it was made with) is left as it is.
# About 5 minutes the first time.
#
# The Python 3.13: BUZZERBOX_PYTHON313 if set; else python3.13 on PATH (Debian 13
# Trixie's /usr/bin/python3.13, Raspberry Pi OS Trixie's); else pyenv's 3.13, where
# pyenv is on PATH. A machine with none (Debian 12, Raspberry Pi OS Bookworm: Python
# 3.11 only) runs it from the real-stack tier's Trixie root (tests/realstack: Debian
# 13, its python3.13), as a chroot by tests/realstack/in-trixie.sh, which builds that
# root the first time (root needed, as for the tier); the venv's file `runner` names
# that script, and tests/mqtt/ha/hass.py runs the venv's programs through it.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HA_VERSION=2025.4.4          # the newest that installs on Python 3.13.0 (2025.5 wants 3.13.2)
FRONTEND=20250411.0          # homeassistant/components/frontend/manifest.json of that release
PAHO=2.1.0                   # homeassistant/components/mqtt/manifest.json of that release
venv="${BUZZERBOX_HA_VENV:-$HOME/.cache/buzzerbox-ha/venv-$HA_VERSION}"
want="homeassistant==$HA_VERSION home-assistant-frontend==$FRONTEND paho-mqtt==$PAHO"
stamp="$want"

# is_313 PYTHON: whether it runs and is a Python 3.13
is_313() {
    [ -n "$1" ] && [ "$("$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = 3.13 ]
}

# find_313: a Python 3.13 of this machine's, or nothing
find_313() {
    local candidate root
    if [ -n "${BUZZERBOX_PYTHON313:-}" ]; then
        echo "$BUZZERBOX_PYTHON313"
        return
    fi
    candidate="$(command -v python3.13 || true)"
    if is_313 "$candidate"; then
        echo "$candidate"
        return
    fi
    if root="$(pyenv root 2>/dev/null)"; then
        for candidate in "$root"/versions/3.13*/bin/python3; do
            if is_313 "$candidate"; then
                echo "$candidate"
                return
            fi
        done
    fi
}

run=()  # how the venv's programs run: directly, or in the Trixie root
python313="$(find_313)"
if [ -z "$python313" ]; then
    run=(bash "$HERE/../../realstack/in-trixie.sh")
    python313=/usr/bin/python3.13
    stamp="$want (Python 3.13 of the Trixie root, tests/realstack/in-trixie.sh)"
    echo "no Python 3.13 on this machine: Home Assistant runs with the Trixie root's"
elif ! is_313 "$python313"; then
    echo "tests/mqtt/ha/install.sh: $python313 is not a Python 3.13" >&2
    exit 1
fi
if [ -f "$venv/stamp" ] && [ "$(cat "$venv/stamp")" = "$stamp" ]; then
    exit 0
fi
echo "installing Home Assistant $HA_VERSION into $venv (Python: ${run[*]} $python313)"
start=$(date +%s)
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"${run[@]}" "$python313" -m venv "$venv"
# shellcheck disable=SC2086
"${run[@]}" "$venv/bin/pip" install -q --disable-pip-version-check $want 2>&1 \
    | grep -v "is ignored: it is \(neither\|either\)" || true
"${run[@]}" "$venv/bin/python" -c "import homeassistant.const, hass_frontend, paho.mqtt" # fails loudly if pip did
if [ ${#run[@]} -gt 0 ]; then
    (cd "$HERE/../../realstack" && pwd) | sed 's#$#/in-trixie.sh#' >"$venv/runner"
fi
echo "$stamp" > "$venv/stamp"
echo "Home Assistant $HA_VERSION installed in $(( $(date +%s) - start )) s"
