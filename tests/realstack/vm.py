"""A Trixie VM under qemu-system: booted, logged into by ssh, its power cut.

`Vm(image, disk)` boots Debian's kernel from the cached root (images.py) on `disk`, a
qcow2 file of its own over the root's image, with no host cache (`cache=none`: what
the guest wrote but did not flush is in no page cache of this machine, so killing
qemu is a power cut, not a crash). Its serial console is read line by line as it
comes: `wait_console(pattern)` blocks until a line matches (the boot's "vm-ready"
line, the box's banner), never by polling. Port 80 (the box) and 22 (ssh) are
forwarded to free ports of 127.0.0.1; `ssh(cmd)` runs a command as root and returns
its result. KVM where it works (`accelerator()`), else software emulation (TCG).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

UNUSED = (
    "getty@tty1.service", "serial-getty@ttyS0.service",
    "apt-daily.timer", "apt-daily-upgrade.timer", "dpkg-db-backup.timer", "fstrim.timer",
    "systemd-tmpfiles-clean.timer",
    "dev-hugepages.mount", "dev-mqueue.mount", "sys-kernel-debug.mount",
    "sys-kernel-tracing.mount", "sys-fs-fuse-connections.mount",
    "proc-sys-fs-binfmt_misc.automount", "systemd-binfmt.service",
    "modprobe@drm.service", "modprobe@efi_pstore.service", "modprobe@fuse.service",
    "kmod-static-nodes.service", "systemd-network-generator.service",
)  # fmt: skip
"""Units of Debian's boot that neither the box nor the tests use, masked at every boot
(`systemd.mask=` on the kernel's command line): the logins on tty1 and the serial
console (the tests log in by ssh; the serial one waited for dev-ttyS0), the daily
timers (they would start at a random moment of a test), the file systems and modules
of what the box never opens, the static device nodes of modules not loaded, and
networkd's addresses from the command line (DHCP gives the VM its address). A boot
under software emulation is CPU-bound: every unit started delays the box's start."""

READY = "vm-ready"
"""The console line guest/vm-ready.service prints once ssh listens: `vm-ready BOOT_ID`."""


@dataclass(frozen=True)
class Image:
    """A built root (root.sh's folder): the kernel, its initrd, the disk, the key."""

    folder: Path

    @property
    def kernel(self) -> Path:
        return self.folder / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.folder / "initrd.img"

    @property
    def disk(self) -> Path:
        return self.folder / "disk.img"

    @property
    def key(self) -> Path:
        return self.folder / "id_ed25519"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def overlay(base: Path, disk: Path) -> Path:
    """A new qcow2 `disk` whose reads fall through to `base` (raw or qcow2)."""
    fmt = "raw" if base.suffix == ".img" else "qcow2"
    subprocess.run(
        ["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(base), "-F", fmt, str(disk)],
        check=True,
    )
    return disk


QMP_PROBE = '{"execute": "qmp_capabilities"}\n{"execute": "query-kvm"}\n{"execute": "quit"}\n'


@functools.cache
def accelerator() -> str:
    """ "kvm" where qemu runs a KVM machine here, else "tcg" (software emulation).

    Asked of qemu itself: a paused machine with KVM, its QMP asked whether KVM is on.
    A /dev/kvm that opens is not enough: in a VM without nested virtualisation qemu
    aborts as it resets the vCPU ("failed to set MSR"), which the probe sees.
    """
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg"
    args = ["qemu-system-x86_64", "-machine", "q35,accel=kvm", "-cpu", "host"]
    args += ["-nodefaults", "-display", "none", "-S", "-qmp", "stdio"]
    probe = subprocess.run(args, input=QMP_PROBE, capture_output=True, text=True, timeout=60)
    return "kvm" if probe.returncode == 0 and '"enabled": true' in probe.stdout else "tcg"


class VmError(AssertionError):
    """The VM did not do what the test waited for (boot, a console line, a command)."""


class Vm:
    """One VM on `disk`; `boot()` starts it, `cut()` kills it, `shutdown()` stops it."""

    def __init__(self, image: Image, disk: Path, *, log: Path, memory_mb: int = 512) -> None:
        self.image = image
        self.disk = disk
        self.log = log
        self.memory_mb = memory_mb
        self.http_port = free_port()
        self.ssh_port = free_port()
        self._proc: subprocess.Popen[bytes] | None = None
        self._cond = threading.Condition()
        self._lines: list[str] = []  # this boot's console, line by line
        self._ended = False
        self._reader: threading.Thread | None = None
        # ssh's control socket: a Unix socket's path has at most 107 bytes, and ssh adds
        # 17 to it as it makes it, so not beside the log (a cache's path of 40 bytes
        # made install.sh's ~110: "too long for Unix domain socket")
        sockets = tempfile.mkdtemp(prefix="bbx-ssh-")
        weakref.finalize(self, shutil.rmtree, sockets, ignore_errors=True)
        self._control = Path(sockets) / "c"
        self.boots = 0

    # -- power --------------------------------------------------------------------------

    def command(self) -> list[str]:
        append = "root=/dev/vda rw console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off"
        # no sshd on AF_VSOCK (systemd's ssh generator: qemu gives the VM no vsock)
        append += " systemd.ssh_auto=0 " + " ".join(f"systemd.mask={unit}" for unit in UNUSED)
        return [
            "qemu-system-x86_64",
            "-machine", f"q35,accel={accelerator()}",
            # software emulation runs a plain x86-64 (no AVX for glibc to pick) on one
            # vCPU: a boot to the box's PIN took 61 CPU-s so, 84 with -cpu max, 94 with
            # both on two vCPUs (tests/bench/README.md); two vCPUs of multi-threaded TCG
            # took 78 CPU-s and 160 s beside one's 65 CPU-s and 187 s (load 14), but a
            # tier run on them (load 9-36) logged a 2.6 ms bounce as two presses
            "-cpu", "host" if accelerator() == "kvm" else "qemu64",
            "-smp", "2" if accelerator() == "kvm" else "1",
            "-m", str(self.memory_mb),
            "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
            "-serial", "stdio",
            "-kernel", str(self.image.kernel),
            "-initrd", str(self.image.initrd),
            "-append", append,
            "-drive", f"file={self.disk},if=virtio,format=qcow2,cache=none,discard=unmap",
            "-netdev",
            f"user,id=net0,hostfwd=tcp:127.0.0.1:{self.http_port}-:80,"
            f"hostfwd=tcp:127.0.0.1:{self.ssh_port}-:22",
            "-device", "virtio-net-pci,netdev=net0",
            "-device", "virtio-rng-pci",
        ]  # fmt: skip

    def start(self) -> None:
        """Power on (the console is read from now on: `wait_console`)."""
        if self._proc is not None:
            raise VmError("the VM is running already")
        out = self.log.open("ab")
        out.write(f"\n===== boot {self.boots + 1} =====\n".encode())
        with self._cond:
            self._lines = []
            self._ended = False
        self._proc = subprocess.Popen(
            self.command(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=out
        )
        self._reader = threading.Thread(
            target=self._read, args=(self._proc, out), name="vm-console", daemon=True
        )
        self._reader.start()
        self.boots += 1

    def boot(self, timeout: float = 900) -> float:
        """Power on and wait for the vm-ready line; the seconds it took."""
        start = time.monotonic()
        self.start()
        self.wait_console(re.escape(READY), timeout)
        return time.monotonic() - start

    def _read(self, proc: subprocess.Popen[bytes], out: BinaryIO) -> None:
        assert proc.stdout is not None
        with out:
            for raw in proc.stdout:
                out.write(raw)
                out.flush()
                with self._cond:
                    self._lines.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
                    self._cond.notify_all()
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def mark(self) -> int:
        """Where the console is now: `wait_console(..., since=mark)` looks after it."""
        with self._cond:
            return len(self._lines)

    def wait_console(self, pattern: str, timeout: float, *, since: int = 0) -> re.Match[str]:
        """The first console line of this boot (from line `since` on) that matches
        `pattern` (re.search), waiting for it as the lines come."""
        wanted = re.compile(pattern)
        deadline = time.monotonic() + timeout
        seen = since
        with self._cond:
            while True:
                for line in self._lines[seen:]:
                    if found := wanted.search(line):
                        return found
                seen = len(self._lines)
                if self._ended:
                    raise VmError(f"qemu ended before a line matched {pattern!r}: {self.log}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise VmError(f"no console line matched {pattern!r} in {timeout} s: {self.log}")
                self._cond.wait(left)

    def cut(self) -> None:
        """The power cable pulled: qemu killed, no shutdown, nothing flushed."""
        proc = self._proc
        if proc is None:
            return
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        self._stopped()

    def shutdown(self, timeout: float = 120) -> None:
        """A clean power-off: the guest syncs and halts, then qemu exits."""
        proc = self._proc
        if proc is None:
            return
        with contextlib.suppress(subprocess.SubprocessError, VmError):
            self.ssh("systemctl poweroff", timeout=30, check=False)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise VmError(f"the VM did not power off in {timeout} s") from None
        finally:
            self._stopped()

    def _stopped(self) -> None:
        if self._reader is not None:
            self._reader.join(10)
        if self._proc is not None and self._proc.stdout is not None:
            self._proc.stdout.close()
        self._proc = None
        self._reader = None
        with contextlib.suppress(subprocess.SubprocessError):
            subprocess.run(
                ["ssh", *self._ssh_options(), "-O", "exit", "root@127.0.0.1"],
                capture_output=True,
                timeout=10,
            )

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    # -- commands -----------------------------------------------------------------------

    def _ssh_options(self) -> list[str]:
        return [
            "-i", str(self.image.key),
            "-p", str(self.ssh_port),
            "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null",
            "-o", "LogLevel=ERROR",
            "-o", "ConnectTimeout=30",
            "-o", "ControlMaster=auto",
            "-o", f"ControlPath={self._control}",
            "-o", "ControlPersist=120",
        ]  # fmt: skip

    def ssh(
        self,
        command: str,
        *,
        input: bytes | None = None,
        timeout: float = 120,
        check: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        """Run `command` (a shell line) in the VM as root; check: its exit must be 0."""
        if not self.running:
            raise VmError(f"the VM is not running (asked to run {command!r})")
        result = subprocess.run(
            ["ssh", *self._ssh_options(), "root@127.0.0.1", command],
            input=input,
            capture_output=True,
            timeout=timeout,
        )
        done = subprocess.CompletedProcess(
            result.args,
            result.returncode,
            result.stdout.decode("utf-8", "replace"),
            result.stderr.decode("utf-8", "replace"),
        )
        if check and done.returncode != 0:
            raise VmError(
                f"in the VM, {command!r} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
            )
        return done

    def put_tree(self, source: Path, dest: str, *, exclude: tuple[str, ...] = ()) -> None:
        """Copy the folder `source` to `dest` in the VM (tar over ssh)."""
        args = ["tar", "-C", str(source), "-cf", "-"]
        args += [f"--exclude={pattern}" for pattern in exclude]
        packed = subprocess.run([*args, "."], capture_output=True, check=True).stdout
        quoted = shlex.quote(dest)
        self.ssh(f"mkdir -p {quoted} && tar -C {quoted} -xf -", input=packed)

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.http_port}{path}"
