#!/usr/bin/env bash
# Install buzzerbox as an appliance on Raspberry Pi OS Lite (64-bit): Trixie
# (Debian 13, Python 3.13) first, Bookworm (Debian 12, Python 3.11, Imager's
# "Legacy") still; Pi 4, Pi 5, Zero 2 W. It makes a Python venv with the box in it
# (PEP 668: never pip into the system's Python), the `buzzerbox` command on PATH
# (/usr/local/bin), a system user in the gpio and dialout groups, the settings
# /etc/buzzerbox/box.toml (port, data, name, 8-digit admin PIN, pad map), the
# systemd unit (starts at boot, restarts whatever ends it); with --name it gives the
# Pi that host name (and mDNS name), so that the QR codes printed for an event's
# tables still work after a reboot. Then the box is started and its URL and QR
# code printed. Safe to run again: it updates the box and keeps the settings, the
# name and the PIN (a PIN of fewer than 8 digits, from an older install, is replaced).
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
NAME=""
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
  --name NAME    the box's name: its host name and mDNS name, http://NAME.local/
                 (e.g. table-07; default: the one kept in box.toml, else buzzerbox
                 as the mDNS name only, the host name left as it is)
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
# valid_name NAME: a DNS label as a host name takes it (RFC 1123), lower case
valid_name() {
    case "$1" in
        '' | *[!a-z0-9-]* | -* | *-) return 1 ;;
    esac
    [ "${#1}" -le 63 ]
}
if [ -n "$NAME" ] && ! valid_name "$NAME"; then
    echo "install.sh: the name '$NAME' is not allowed: a host name is 1-63 of a-z, 0-9" \
        "and -, not starting or ending with - (e.g. table-07)" >&2
    exit 2
fi

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
    case "$codename" in
        trixie) echo "system: Trixie (Debian 13, Python 3.13)" ;;
        bookworm) echo "system: Bookworm (Debian 12, Python 3.11): supported; Trixie is today's" ;;
        *) echo "note: this is $codename; the box is made for Raspberry Pi OS Trixie" \
            "(or Bookworm)" >&2 ;;
    esac
fi
if [ -r /proc/device-tree/model ]; then
    echo "board: $(tr -d '\0' </proc/device-tree/model)"
fi

echo "== Debian packages: Python venv, lgpio (the GPIO pin factory for Pi 4, Pi 5, Zero 2 W)," \
    "a C compiler and Python's headers (the phones' send loop, live/_sendall.c)"
if [ "$APT" -eq 1 ]; then
    run apt-get update -qq
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        python3-venv python3-pip python3-lgpio gcc libc6-dev python3-dev
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
    printf '+ copy %s to %s (not .git, build, dist, *.egg-info, *.so, caches)\n' "$SOURCE" "$COPY"
    if [ "$DRY_RUN" -eq 0 ]; then
        tar -C "$SOURCE" --exclude=./.git --exclude=./build --exclude=./dist \
            --exclude='*.egg-info' --exclude='*.so' --exclude=node_modules --exclude=__pycache__ \
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
# the admin PIN is made once and kept, so that it stays the same across reboots;
# 8 digits (serve warns that fewer can be guessed in days): an older, shorter one
# is replaced
PIN=""
if [ -r "$R$BOX_TOML" ]; then
    PIN="$(sed -n 's/^pin *= *"\([0-9]*\)".*/\1/p' "$R$BOX_TOML" | head -n 1)"
    if [ -z "$NAME" ]; then
        NAME="$(sed -n 's/^name *= *"\([a-z0-9-]*\)".*/\1/p' "$R$BOX_TOML" | head -n 1)"
    fi
fi
if [ -n "$PIN" ] && [ "${#PIN}" -lt 8 ]; then
    echo "the admin PIN kept in $BOX_TOML has ${#PIN} digits: a new one of 8"
    PIN=""
fi
if [ -z "$PIN" ]; then
    # two 32-bit numbers, 4 digits of each (the bias of % 10000 is under 2e-6)
    read -r high low < <(od -An -N8 -tu4 /dev/urandom)
    PIN="$(printf '%04d%04d' "$((high % 10000))" "$((low % 10000))")"
fi
NAME_LINE="# name = \"table-07\"   # host and mDNS name (install.sh --name); default buzzerbox"
if [ -n "$NAME" ]; then
    NAME_LINE="name = \"$NAME\""
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
$NAME_LINE
pin = "$PIN"
$PADS_LINE
EOF
write "$DEFAULTS" 0644 <<EOF
# The command line of the buzzerbox service: buzzerbox box \$BUZZERBOX_ARGS (see
# buzzerbox box --help). The box's settings (its name too) are in $BOX_TOML.
# After a change: sudo systemctl restart buzzerbox
BUZZERBOX_ARGS="--config $BOX_TOML"
EOF
if [ -n "$NAME" ]; then
    echo "== the host name: $NAME (http://$NAME.local/, after a reboot too)"
    printf '%s\n' "$NAME" | write /etc/hostname 0644
    # 127.0.1.1 is the Pi's own name in /etc/hosts (as raspi-config keeps it)
    HOSTS="$(cat "$R/etc/hosts" 2>/dev/null || printf '127.0.0.1\tlocalhost\n')"
    printf '%s\n' "$HOSTS" | sed '/^127\.0\.1\.1[[:space:]]/d' \
        | { cat; printf '127.0.1.1\t%s\n' "$NAME"; } | write /etc/hosts 0644
    if [ "$STAGED" -eq 0 ]; then
        run hostname "$NAME"
        # avahi (Pi OS's own mDNS) answers for the host name: it takes the new one
        guard "! systemctl is-active --quiet avahi-daemon" -- systemctl restart avahi-daemon
    fi
fi

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
    "$VENV/bin/buzzerbox" url --port "$PORT" --name "${NAME:-buzzerbox}" || true
    echo "admin PIN: $PIN (kept in $BOX_TOML)"
    echo "the command: buzzerbox (in $BIN_DIR), e.g. buzzerbox doctor, buzzerbox url"
fi
