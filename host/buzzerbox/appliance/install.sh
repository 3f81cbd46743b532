#!/usr/bin/env bash
# Install buzzerbox as an appliance on Raspberry Pi OS (Bookworm; Pi 4, Pi 5,
# Zero 2 W): a Python venv with the box in it (PEP 668: never pip into the
# system's Python), the `buzzerbox` command on PATH (/usr/local/bin), a system
# user in the gpio and dialout groups, the settings /etc/buzzerbox/box.toml
# (port, data, admin PIN, pad map), the systemd unit (starts at boot, restarts
# whatever ends it), then the box is started and its URL and QR code printed.
# Safe to run again: it updates the box and keeps the settings and the PIN.
#
#   sudo bash host/buzzerbox/appliance/install.sh          # from a clone of the repo
#   sudo buzzerbox install                                  # once it is installed
#   bash install.sh --dry-run                               # print, change nothing
#   bash install.sh --root DIR --no-start                   # a trial install into DIR
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PREFIX=/opt/buzzerbox
BOX_USER=buzzerbox
SOURCE=""
PADS=""
PORT=80
NAME=buzzerbox
DRY_RUN=0
ROOT_DIR=""
BIN_DIR=/usr/local/bin
START=1
APT=1
FORCE=0

usage() {
    cat <<EOF
usage: install.sh [--dry-run] [--source SPEC] [--pads FILE] [--port N] [--name NAME]
                  [--prefix DIR] [--bin DIR] [--user NAME] [--no-start] [--no-apt]
                  [--root DIR] [--force]

  --dry-run      print every command it would run, change nothing (no root needed)
  --root DIR     install under DIR as if it were / (a trial, or an SD card image):
                 no root needed; no Debian packages, user, file owners or systemctl
  --source SPEC  what pip installs into the box's venv: a checkout, a wheel or
                 a requirement (default: the checkout this script is in, else
                 "buzzerbox")
  --pads FILE    pad map (TOML) to install as /etc/buzzerbox/pads.toml
  --port N       scoreboard port (default 80: http://NAME.local/)
  --name NAME    mDNS name (default buzzerbox: http://buzzerbox.local/)
  --prefix DIR   where the venv goes (default /opt/buzzerbox)
  --bin DIR      where the buzzerbox command is linked (default /usr/local/bin)
  --user NAME    the box's system user (default buzzerbox)
  --no-start     install and enable, but do not (re)start the box now
  --no-apt       do not install Debian packages (they are there already)
  --force        install on a machine that is not a Raspberry Pi
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --source) SOURCE="${2:?--source needs a value}"; shift ;;
        --pads) PADS="${2:?--pads needs a file}"; shift ;;
        --port) PORT="${2:?--port needs a number}"; shift ;;
        --name) NAME="${2:?--name needs a name}"; shift ;;
        --prefix) PREFIX="${2:?--prefix needs a directory}"; shift ;;
        --bin) BIN_DIR="${2:?--bin needs a directory}"; shift ;;
        --root) ROOT_DIR="${2:?--root needs a directory}"; shift ;;
        --user) BOX_USER="${2:?--user needs a name}"; shift ;;
        --no-start) START=0 ;;
        --no-apt) APT=0 ;;
        --force) FORCE=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

case "$PORT" in
    '' | *[!0-9]*) echo "install.sh: port $PORT is not a number: give 1-65535" >&2; exit 2 ;;
esac
if [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then
    echo "install.sh: port $PORT is out of range: give 1-65535" >&2
    exit 2
fi
case "$NAME" in
    '' | *[!a-z0-9-]* | -*) echo "install.sh: name $NAME is not allowed: use a-z, 0-9 and -" >&2
        exit 2 ;;
esac

if [ -z "$SOURCE" ]; then
    # a checkout: host/buzzerbox/appliance/install.sh, pyproject.toml three levels up
    ROOT="$(cd "$HERE/../../.." && pwd)"
    if [ -f "$ROOT/pyproject.toml" ] && [ -d "$ROOT/host/buzzerbox" ]; then
        SOURCE="$ROOT"
    else
        SOURCE=buzzerbox
    fi
fi
if [ -n "$PADS" ] && [ "$DRY_RUN" -eq 0 ] && [ ! -r "$PADS" ]; then
    echo "install.sh: pad map $PADS cannot be read" >&2
    exit 2
fi
STAGED=0
if [ -n "$ROOT_DIR" ]; then
    # a trial install: only what needs no root
    STAGED=1
    APT=0
    START=0
    ROOT_DIR="$(mkdir -p "$ROOT_DIR" && cd "$ROOT_DIR" && pwd)"
fi
if [ "$DRY_RUN" -eq 0 ] && [ "$FORCE" -eq 0 ] && [ "$STAGED" -eq 0 ] \
    && ! grep -qs "Raspberry Pi" /proc/device-tree/model; then
    echo "install.sh: this is not a Raspberry Pi: add --force to install here anyway," \
        "or --dry-run to see what it does" >&2
    exit 1
fi
if [ "$DRY_RUN" -eq 0 ] && [ "$STAGED" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run it as root (sudo), or with --dry-run to see what it does" >&2
    exit 1
fi

# paths as the box sees them; R prefixes them where this script writes (--root)
R="$ROOT_DIR"
VENV="$PREFIX/venv"
UNIT=/etc/systemd/system/buzzerbox.service
DEFAULTS=/etc/default/buzzerbox
CONF_DIR=/etc/buzzerbox
BOX_TOML="$CONF_DIR/box.toml"
DATA=/var/lib/buzzerbox

# show ARGS...: print a command as one shell line, quoting only what needs it
show() {
    local arg
    for arg in "$@"; do
        if [[ "$arg" =~ ^[A-Za-z0-9_@%+=:,./-]+$ ]]; then
            printf ' %s' "$arg"
        else
            printf ' %q' "$arg"
        fi
    done
    printf '\n'
}

# run CMD ARGS...: print it with a "+ " (and only print it in a dry run)
run() {
    printf '+'
    show "$@"
    [ "$DRY_RUN" -eq 1 ] || "$@"
}

# guard TEST -- CMD ARGS...: run CMD unless the shell test TEST holds
guard() {
    local test="$1"
    shift 2
    printf '+ %s ||' "$test"
    show "$@"
    [ "$DRY_RUN" -eq 1 ] || bash -c "$test" || "$@"
}

# write FILE MODE [GROUP]: write stdin to FILE, owned by root:GROUP (a dry run
# prints the content instead; a trial install leaves the owner alone)
write() {
    local group="${3:-root}"
    printf '+ write %s (mode %s, group %s)\n' "$R$1" "$2" "$group"
    if [ "$DRY_RUN" -eq 1 ]; then
        sed 's/^/| /'
    elif [ "$STAGED" -eq 1 ]; then
        install -m "$2" /dev/stdin "$R$1"
    else
        install -m "$2" -o root -g "$group" /dev/stdin "$1"
    fi
}

if [ -r /etc/os-release ]; then
    # shellcheck disable=SC1091
    codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")"
    if [ "$codename" != bookworm ]; then
        echo "note: this is $codename; the box is made for Raspberry Pi OS Bookworm" >&2
    fi
fi
if [ -r /proc/device-tree/model ]; then
    echo "board: $(tr -d '\0' </proc/device-tree/model)"
fi

echo "== Debian packages: Python venv, lgpio (the GPIO pin factory for Pi 4, Pi 5, Zero 2 W)"
if [ "$APT" -eq 1 ]; then
    run apt-get update -qq
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        python3-venv python3-pip python3-lgpio
fi

if [ "$STAGED" -eq 0 ]; then
    echo "== the box's user: $BOX_USER, in the groups gpio (pads) and dialout (pad boards)"
    guard "getent group gpio >/dev/null" -- groupadd --system gpio
    guard "getent group dialout >/dev/null" -- groupadd --system dialout
    guard "getent passwd $BOX_USER >/dev/null" -- useradd --system --user-group \
        --home-dir /var/lib/buzzerbox --no-create-home --shell /usr/sbin/nologin "$BOX_USER"
    run usermod --append --groups gpio,dialout "$BOX_USER"
fi

echo "== the box: $SOURCE into $R$VENV, the command $R$BIN_DIR/buzzerbox"
run mkdir -p "$R$PREFIX"
# system site packages: python3-lgpio comes from Debian, not from pip
guard "test -x $R$VENV/bin/python" -- python3 -m venv --system-site-packages "$R$VENV"
PIP_SOURCE="$SOURCE"
if [ -d "$SOURCE" ]; then
    # pip builds in the folder it installs (build/, host/buzzerbox.egg-info): build a
    # copy, so that nothing owned by root is left in the user's clone
    COPY=/tmp/buzzerbox-source.XXXXXX
    if [ "$DRY_RUN" -eq 0 ]; then
        COPY="$(mktemp -d /tmp/buzzerbox-source.XXXXXX)"
        trap 'rm -rf "$COPY"' EXIT
    fi
    printf '+ copy %s to %s (not .git, build, dist, *.egg-info, caches)\n' "$SOURCE" "$COPY"
    if [ "$DRY_RUN" -eq 0 ]; then
        tar -C "$SOURCE" --exclude=./.git --exclude=./build --exclude=./dist \
            --exclude='*.egg-info' --exclude=node_modules --exclude=__pycache__ \
            --exclude=.mypy_cache --exclude=.ruff_cache --exclude=.pytest_cache -cf - . \
            | tar -C "$COPY" -xf -
    fi
    PIP_SOURCE="$COPY"
fi
# mpremote (the `pi` extra's) flashes pad boards; lgpio comes from Debian (above)
run "$R$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade \
    "$PIP_SOURCE" mpremote
if [ -d "$SOURCE" ]; then
    # where the next `sudo buzzerbox install` updates from (pip saw only the copy)
    printf '%s\n' "$(cd "$SOURCE" && pwd)" | write "$PREFIX/source" 0644
fi
run mkdir -p "$R$BIN_DIR"
run ln -sfn "$R$VENV/bin/buzzerbox" "$R$BIN_DIR/buzzerbox"

echo "== settings: $R$BOX_TOML (port, data, PIN, pad map) and $R$DEFAULTS"
run mkdir -p "$R$CONF_DIR"
if [ "$STAGED" -eq 1 ]; then
    run mkdir -p "$R/etc/default" "$R/etc/systemd/system" "$R$DATA"
fi
if [ -n "$PADS" ]; then
    run install -m 0644 "$PADS" "$R$CONF_DIR/pads.toml"
fi
# the admin PIN is made once and kept, so that it stays the same across reboots
PIN=""
if [ -r "$R$BOX_TOML" ]; then
    PIN="$(sed -n 's/^pin *= *"\([0-9]*\)".*/\1/p' "$R$BOX_TOML" | head -n 1)"
fi
if [ -z "$PIN" ]; then
    PIN="$(od -An -N4 -tu4 /dev/urandom | tr -d ' \n')"
    PIN="$(printf '%06d' "$((PIN % 1000000))")"
fi
PADS_LINE="# pads = \"$CONF_DIR/pads.toml\"   # without: a simulated box, virtual pads"
if [ -n "$PADS" ] || { [ -r "$R$BOX_TOML" ] && grep -q '^pads *=' "$R$BOX_TOML"; }; then
    PADS_LINE="pads = \"$CONF_DIR/pads.toml\""
fi
write "$BOX_TOML" 0640 "$BOX_USER" <<EOF
# The box's settings (buzzerbox serve --config), written by install.sh.
# After a change: sudo systemctl restart buzzerbox
port = $PORT
data = "$DATA"
pin = "$PIN"
$PADS_LINE
EOF
write "$DEFAULTS" 0644 <<EOF
# The command line of the buzzerbox service: buzzerbox box \$BUZZERBOX_ARGS (see
# buzzerbox box --help). The box's settings are in $BOX_TOML.
# After a change: sudo systemctl restart buzzerbox
BUZZERBOX_ARGS="--name $NAME --config $BOX_TOML"
EOF

echo "== the systemd unit: $R$UNIT"
sed -e "s#/opt/buzzerbox/venv#$VENV#g" \
    -e "s#^User=buzzerbox\$#User=$BOX_USER#" \
    -e "s#^Group=buzzerbox\$#Group=$BOX_USER#" \
    "$HERE/buzzerbox.service" | write "$UNIT" 0644
if [ "$STAGED" -eq 1 ]; then
    echo "== done: a trial install in $R (no user, no systemctl); try $R$BIN_DIR/buzzerbox"
    exit 0
fi
run systemctl daemon-reload
run systemctl enable buzzerbox.service
if [ "$START" -eq 1 ]; then
    run systemctl restart buzzerbox.service
fi

echo "== done: the box starts at every boot; its log: journalctl -u buzzerbox -f"
if [ "$DRY_RUN" -eq 0 ]; then
    "$VENV/bin/buzzerbox" url --port "$PORT" --name "$NAME" || true
    echo "admin PIN: $PIN (kept in $BOX_TOML)"
    echo "the command: buzzerbox (in $BIN_DIR), e.g. buzzerbox doctor, buzzerbox url"
fi
