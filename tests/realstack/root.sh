#!/usr/bin/env bash
# The real-stack tier's system: a Debian 13 (Trixie) root as close to Raspberry Pi
# OS Lite as Debian's own packages make it, on an ext4 disk image that qemu boots
# with Debian's Trixie kernel. tests/realstack/images.py runs it (as root: the
# root's files keep their owners in the image) into a fresh folder of the cache,
# ~/.cache/buzzerbox-trixie, keyed by this script and guest/.
#
#   bash tests/realstack/root.sh OUT
#
# OUT gets: disk.img (ext4, the root), vmlinuz and initrd.img (the root's own
# kernel), id_ed25519 (the key the tests log in with), kernel (its version),
# packages (every package and version in the root).
#
# Where the root differs from a Pi's, and why (the tests' README says so too):
# - Debian's kernel (x86-64, booted by qemu): no device tree, so the module
#   pi-devicetree (guest/) shows /proc/device-tree/model and system/linux,revision
#   of a Zero 2 W; no gpio-sim driver, so it is built here from that kernel's own
#   linux-source with the matching headers, and guest/pi-header makes a chip of
#   54 simulated lines at boot in the place of the Pi's gpiochip0;
# - python3-lgpio is Raspberry Pi's package, not Debian's: it is built here from
#   lgpio's PyPI source (swig, its C library linked in) into a .deb, in a local
#   apt source (/srv/raspi-archive) as Pi OS has archive.raspberrypi.com;
# - as Pi OS: the gpio group and its udev rule (99-com.rules), the host name
#   raspberrypi with its 127.0.1.1 line in /etc/hosts, avahi-daemon, ssh;
# - install.sh's Debian packages are installed already (its apt step runs and
#   finds them; python3-lgpio it installs from the local source), so that the
#   install in a software-emulated VM takes minutes, not many;
# - the local CAs this machine trusts (/usr/local/share/ca-certificates) are
#   trusted in the root too, so that apt and pip reach the registries as the
#   machine does.
# shellcheck disable=SC2016  # the hooks' $1 is mmdebstrap's, dpkg-query's ${...} its own
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GUEST="$HERE/guest"
SUITE=trixie
MIRROR=http://deb.debian.org/debian
LGPIO=0.2.2.0

# install.sh's apt step (python3-lgpio apart), the boot and the tests' access,
# what the modules and lgpio are built with
PACKAGES=(
    python3-venv python3-pip gcc libc6-dev python3-dev
    systemd-sysv udev kmod dbus linux-image-amd64 initramfs-tools zstd
    openssh-server iproute2 ca-certificates avahi-daemon sqlite3
    linux-headers-amd64 linux-source make swig apt-utils
)

# customize ROOT: everything after the packages, in the root (chroot); mmdebstrap runs
# it as its customize hook (root.sh --customize ROOT OUT), with /proc, /dev and this
# machine's resolv.conf in the root
customize() {
    local root="$1" kver src
    kver="$(ls "$root/lib/modules")"
    echo "== the local CAs"
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
    chroot "$root" update-ca-certificates >/dev/null

    echo "== gpio-sim and pi-devicetree for $kver, from its linux-source"
    src="$root/usr/src/vm-modules"
    mkdir -p "$src"
    tar -xJf "$root"/usr/src/linux-source-*.tar.xz -C "$src" --strip-components=1 --wildcards \
        '*/drivers/gpio/gpio-sim.c' '*/kernel/irq/irq_sim.c'
    mv "$src/drivers/gpio/gpio-sim.c" "$src/gpio-sim-main.c"
    mv "$src/kernel/irq/irq_sim.c" "$src/irq_sim.c"
    rm -rf "$src/drivers" "$src/kernel"
    # irq_to_desc() is not exported to modules; generic_handle_irq() looks the
    # interrupt up the same way and calls the handler irq_sim set (handle_simple_irq)
    grep -q 'handle_simple_irq(irq_to_desc(irqnum));' "$src/irq_sim.c"
    sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$src/irq_sim.c"
    cp "$GUEST/Kbuild" "$GUEST/pi-devicetree.c" "$src/"
    chroot "$root" make -s -C "/usr/src/linux-headers-$kver" M=/usr/src/vm-modules modules
    mkdir -p "$root/lib/modules/$kver/updates"
    cp "$src/gpio-sim.ko" "$src/pi-devicetree.ko" "$root/lib/modules/$kver/updates/"
    chroot "$root" depmod "$kver"
    rm -rf "$src"
    echo pi-devicetree >"$root/etc/modules-load.d/pi-devicetree.conf"
    install -m 0755 "$GUEST/pi-header" "$root/usr/local/sbin/pi-header"
    install -m 0644 "$GUEST/pi-header.service" "$root/etc/systemd/system/"
    chroot "$root" systemctl enable pi-header.service

    echo "== python3-lgpio $LGPIO from its PyPI source, in a local apt source"
    local deb="$root/tmp/python3-lgpio"
    chroot "$root" env PYPI=1 python3 -m pip wheel -q --no-deps --no-binary lgpio \
        --disable-pip-version-check -w /tmp/lgpio-wheel "lgpio==$LGPIO"
    mkdir -p "$deb/DEBIAN" "$deb/usr/lib/python3/dist-packages"
    chroot "$root" sh -c 'python3 -m zipfile -e /tmp/lgpio-wheel/lgpio-*.whl \
        /tmp/python3-lgpio/usr/lib/python3/dist-packages/'
    cp "$GUEST/python3-lgpio.control" "$deb/DEBIAN/control"
    mkdir -p "$root/srv/raspi-archive"
    chroot "$root" dpkg-deb --root-owner-group -Zxz --build /tmp/python3-lgpio \
        "/srv/raspi-archive/python3-lgpio_${LGPIO}-0buzzerbox1_amd64.deb" >/dev/null
    chroot "$root" sh -c 'cd /srv/raspi-archive && apt-ftparchive packages . >Packages'
    printf 'Types: deb\nURIs: file:/srv/raspi-archive\nSuites: ./\nTrusted: yes\n' \
        >"$root/etc/apt/sources.list.d/raspi.sources"
    rm -rf "$deb" "$root/tmp/lgpio-wheel" "$root/root/.cache"

    echo "== as Raspberry Pi OS: the gpio group, 99-com.rules, the host name, /etc/hosts"
    chroot "$root" groupadd --system gpio
    install -m 0644 "$GUEST/99-com.rules" "$root/etc/udev/rules.d/99-com.rules"
    echo raspberrypi >"$root/etc/hostname"
    printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\nff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n\n127.0.1.1\traspberrypi\n' \
        >"$root/etc/hosts"
    chroot "$root" useradd --create-home --shell /bin/bash --groups gpio,dialout pi

    echo "== boot, network, the tests' login"
    printf '/dev/vda\t/\text4\tdefaults,noatime\t0\t1\n' >"$root/etc/fstab"
    printf '[Match]\nName=en*\n\n[Network]\nDHCP=yes\n' >"$root/etc/systemd/network/20-wired.network"
    chroot "$root" systemctl enable systemd-networkd.service >/dev/null 2>&1
    # qemu's user network answers DNS at 10.0.2.3
    rm -f "$root/etc/resolv.conf"
    echo "nameserver 10.0.2.3" >"$root/etc/resolv.conf"
    mkdir -p "$root/var/log/journal" "$root/root/.ssh"
    install -m 0600 "$OUT/id_ed25519.pub" "$root/root/.ssh/authorized_keys"
    install -m 0644 "$GUEST/vm-ready.service" "$GUEST/log-made.path" "$GUEST/log-made.service" \
        "$root/etc/systemd/system/"
    chroot "$root" systemctl enable vm-ready.service log-made.path >/dev/null 2>&1
    echo "root:buzzerbox" | chroot "$root" chpasswd

    echo "== build-only packages out"
    # shellcheck disable=SC2046  # one word per package
    chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq \
        $(chroot "$root" dpkg-query -W -f='${Package}\n' 'linux-source-*' 'swig*') >/dev/null
    chroot "$root" apt-get clean
    chroot "$root" dpkg-query -W -f='${Package} ${Version}\n' >"$OUT/packages"
    echo "$kver" >"$OUT/kernel"
}

if [ "${1:-}" = --customize ]; then  # mmdebstrap's hook: root.sh --customize ROOT OUT
    OUT="$3"
    customize "$2"
    exit 0
fi
OUT="${1:?usage: root.sh OUT}"
[ "$(id -u)" -eq 0 ] || { echo "root.sh: run it as root (it builds a root file system)" >&2; exit 1; }
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
ROOT="$OUT/root"
rm -rf "$ROOT"
rm -f "$OUT/id_ed25519" "$OUT/id_ed25519.pub"
ssh-keygen -q -t ed25519 -N '' -C buzzerbox-realstack -f "$OUT/id_ed25519"

echo "== Debian $SUITE from $MIRROR"
# initramfs: only what a qemu disk needs, not every driver (boots faster)
mmdebstrap --variant=minbase --mode=root \
    --include="$(IFS=,; echo "${PACKAGES[*]}")" \
    --setup-hook='mkdir -p "$1/etc/initramfs-tools/conf.d"' \
    --setup-hook='echo MODULES=list >"$1/etc/initramfs-tools/conf.d/buzzerbox-vm"' \
    --setup-hook='printf "virtio_pci\nvirtio_blk\next4\n" >"$1/etc/initramfs-tools/modules"' \
    --dpkgopt=force-confold --dpkgopt=force-unsafe-io \
    --customize-hook="bash '$HERE/root.sh' --customize \"\$1\" '$OUT'" \
    "$SUITE" "$ROOT" "$MIRROR"

echo "== the kernel and the disk image"
kver="$(cat "$OUT/kernel")"
cp "$ROOT/boot/vmlinuz-$kver" "$OUT/vmlinuz"
cp "$ROOT/boot/initrd.img-$kver" "$OUT/initrd.img"
rm -f "$OUT/disk.img"
mke2fs -q -t ext4 -L root -d "$ROOT" "$OUT/disk.img" 4G
rm -rf "$ROOT"
echo "== done: $OUT ($(du -sh "$OUT/disk.img" | cut -f1) used of a 4G image, kernel $kver)"
