#!/usr/bin/env bash
# KiCad 9's kicad-cli in a Debian 13 (Trixie) root of its own, for the schematic
# tests (tests/hardware/test_kicad.py): Debian's kicad package without its
# recommends (no symbol, footprint or 3D libraries: the generated schematics embed
# their symbols), built by mmdebstrap as root. tests/hardware/conftest.py runs it
# into ~/.cache/buzzerbox-kicad, keyed by this script.
#
#   bash tests/hardware/kicad/root.sh OUT
#
# OUT gets root/ (the file system; kicad-cli runs in it with chroot) and packages
# (every package and version in it), version (kicad-cli's). About 830 MB.
# shellcheck disable=SC2016  # the hooks' $1 is mmdebstrap's, dpkg-query's ${...} its own
set -euo pipefail
SUITE=trixie
MIRROR=http://deb.debian.org/debian
OUT="${1:?usage: root.sh OUT}"
[ "$(id -u)" -eq 0 ] || { echo "root.sh: run it as root (it builds a root file system)" >&2; exit 1; }
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
rm -rf "$OUT/root"
echo "== Debian $SUITE from $MIRROR, with kicad (no recommends)"
mmdebstrap --variant=apt --mode=root --include=kicad \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt=force-unsafe-io \
    --dpkgopt=path-exclude=/usr/share/doc/* --dpkgopt=path-exclude=/usr/share/man/* \
    --dpkgopt=path-exclude=/usr/share/locale/* \
    --customize-hook='chroot "$1" dpkg-query -W -f="\${Package} \${Version}\n" >"$1/packages"' \
    --customize-hook='chroot "$1" apt-get clean' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/*' \
    "$SUITE" "$OUT/root" "$MIRROR"
mv "$OUT/root/packages" "$OUT/packages"
chroot "$OUT/root" kicad-cli version >"$OUT/version"
echo "== done: $OUT ($(du -sh "$OUT/root" | cut -f1), kicad-cli $(cat "$OUT/version"))"
