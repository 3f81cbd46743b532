#!/usr/bin/env bash
# Run a command of the real-stack tier's Trixie root (Debian 13: python3.13, its libc)
# on this machine, as a chroot: for a machine without a Python 3.13 of its own (Debian
# 12), e.g. Home Assistant's venv (tests/mqtt/ha/install.sh).
#
#   bash tests/realstack/in-trixie.sh COMMAND [ARG...]
#
# The root's disk (built once into ~/.cache/buzzerbox-trixie by
# tests/realstack/images.py, which this asks for) is mounted read-only under a
# throw-away overlay, in a mount namespace of its own: nothing of it changes and
# nothing stays mounted. This machine's /tmp, the home folder, the clone and the
# working folder are the same paths inside, so that a venv made inside works from
# here through this script, and files given as arguments are found; its network and
# DNS are this machine's. Needs root (sudo), for the mounts and the chroot.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
[ $# -gt 0 ] || { echo "usage: in-trixie.sh COMMAND [ARG...]" >&2; exit 2; }
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
python="$REPO/.venv/bin/python"
[ -x "$python" ] || python=python3
folder="$(cd "$REPO" && "$python" -m tests.realstack.images --root)"
[ -f "$folder/disk.img" ] || { echo "in-trixie.sh: no Trixie root at $folder" >&2; exit 1; }
[ -d "$folder/mnt" ] || $sudo mkdir "$folder/mnt"  # where the namespace mounts its own

# shellcheck disable=SC2016  # expanded by the inner bash
exec $sudo unshare --mount --propagation private -- bash -c '
    set -euo pipefail
    disk="$1" top="$2" cwd="$3" repo="$4" home="$5"
    shift 5
    mount -t tmpfs tmpfs "$top"
    mkdir "$top/lower" "$top/rw" "$top/root"
    mount -o ro,noload,loop "$disk" "$top/lower"
    mkdir "$top/rw/upper" "$top/rw/work"
    mount -t overlay overlay \
        -o "lowerdir=$top/lower,upperdir=$top/rw/upper,workdir=$top/rw/work" "$top/root"
    r="$top/root"
    mount -t proc proc "$r/proc"
    mount --rbind /sys "$r/sys"
    mount --rbind /dev "$r/dev"
    mount -t tmpfs tmpfs "$r/run"
    cp /etc/resolv.conf "$r/etc/resolv.conf"
    mount --rbind /tmp "$r/tmp"
    for dir in "$home" "$repo" "$cwd"; do
        mkdir -p "$r$dir"
        mount --rbind "$dir" "$r$dir"
    done
    cd /
    exec chroot "$r" /usr/bin/env -C "$cwd" HOME="$home" "$@"
' in-trixie "$folder/disk.img" "$folder/mnt" "$PWD" "$REPO" "$HOME" "$@"
