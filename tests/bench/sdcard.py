"""An SD card's fsync for the box under bench: an LD_PRELOAD shim around fsync/fdatasync.

Why a preload library and not a hook in the store: SQLite calls fdatasync() from C
inside its commit, with its write lock held, so a Python hook could only wait before
or after the commit, not where the card waits. The shim (built here with the system's
`cc` into the bench's temporary folder) calls the real fsync or fdatasync, then sleeps
for the next delay of a list this module draws (one per call, cycling), so the box's
commit waits exactly where it would on a card: the box's lock and the log's lock held.

The delays (`DISTRIBUTIONS`, µs) are drawn from a model made of these published
figures; they are a model, not a measurement of one card:
- the SD Association's Application Performance Class 1 (A1, the class Raspberry Pi
  recommends) promises at least 500 random 4 KB write IOPS, i.e. about 2 ms a write
  on average (from memory of the SD Association's A1/A2 page: unchecked here);
- a SQLite WAL commit with synchronous=FULL is one fdatasync of the WAL, and ext4
  adds its journal commit: 2-3 writes, so the usual fsync is taken as 3-6 ms;
- stalls: Bill Greiman's SdFat bench of 100-byte writes to four SD cards (Arduino
  forum, "High Performance Industrial SD Cards", 2012) measured an average latency of
  0.35-0.37 ms but a maximum of 72.6 ms (Swissbit) and 84.9 ms (Wintec) on industrial
  cards; S. de Wit's tests of 7 microSD cards (jitter.company, "MicroSD performance on
  memory-constrained devices", 2019) found that writes are mostly fast but the card
  goes busy "once in a while" for far longer (their per-card figures were not read
  here); the SD specification lets a card stay busy up to 250 ms on a write (SDHC;
  500 ms SDXC: from memory of the Physical Layer Simplified Specification, unchecked).
So `card`: 3-6 ms (log-uniform), 1 in 50 fsyncs 20-85 ms, 1 in 500 250 ms; `stall`:
the same, and every 40th fsync waits 500 ms (an SDXC card's longest busy), to see
what one long stall does to the phones.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

SHIM_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <pthread.h>

static long *delays; static long count, next;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void load(void) {
    const char *path = getenv("BB_SD_DELAYS");
    FILE *f = path ? fopen(path, "r") : NULL;
    long cap = 1024, v;
    delays = malloc(cap * sizeof *delays);
    while (f && fscanf(f, "%ld", &v) == 1) {
        if (count == cap) delays = realloc(delays, (cap *= 2) * sizeof *delays);
        delays[count++] = v;
    }
    if (f) fclose(f);
}

static void wait_as_a_card(void) {
    pthread_mutex_lock(&lock);
    if (!delays) load();
    long us = count ? delays[next++ % count] : 0;
    pthread_mutex_unlock(&lock);
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    while (nanosleep(&ts, &ts) != 0) {}
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int r = real(fd);
    wait_as_a_card();
    return r;
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int r = real(fd);
    wait_as_a_card();
    return r;
}
"""


def draw(kind: str, n: int = 4000, seed: int = 1) -> list[int]:
    """`n` fsync delays (µs) of the model `kind` (card | stall)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        x = rng.random()
        if x < 1 / 500:
            us = 250_000
        elif x < 1 / 500 + 1 / 50:
            us = round(rng.uniform(20_000, 85_000))
        else:
            us = round(3_000 * 2 ** rng.random())  # 3-6 ms, log-uniform
        if kind == "stall" and i % 40 == 39:
            us = 500_000
        out.append(us)
    return out


def build(folder: Path) -> Path:
    """The shim, compiled with the system's cc into `folder`."""
    src, lib = folder / "sdfsync.c", folder / "sdfsync.so"
    src.write_text(SHIM_C)
    subprocess.run(
        ["cc", "-O2", "-shared", "-fPIC", "-o", str(lib), str(src), "-ldl", "-lpthread"],
        check=True,
    )
    return lib


def fsync_env(kind: str, folder: Path) -> dict[str, str]:
    """The environment that makes a process's fsyncs wait as the model `kind` says."""
    delays = folder / "sd-delays.txt"
    delays.write_text("\n".join(map(str, draw(kind))) + "\n")
    return {"LD_PRELOAD": str(build(folder)), "BB_SD_DELAYS": str(delays)}
