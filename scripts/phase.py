#!/usr/bin/env python3
"""Runs one phase of `npm test` and records what it cost: its wall time and the CPU time (user
and system) of every process it started, to a line of TABLE (tab-separated: name, wall
seconds, user seconds, system seconds, exit status, seconds since RUN_START at its end).

    python3 scripts/phase.py TABLE RUN_START NAME COMMAND [ARG...]

The CPU time counts processes that outlive their parent too: Chromium's renderers and its
zygote, which a plain `time` misses (they are re-parented when the browser exits), are
re-parented to this process instead (Linux's child subreaper) and reaped here. A process the
phase leaves running after its command has exited is named, and stopped after a grace period.
Python because it can ask Linux for the subreaper (prctl); Debian 12 has it (emscripten needs it).
"""
import ctypes
import os
import resource
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
GRACE_SECONDS = 30


def reap_all(deadline):
    """Waits for every remaining descendant until deadline; returns whether any is left."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            if time.monotonic() > deadline:
                return True
            time.sleep(0.05)


def children_of(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def main():
    table, run_start, name, *command = sys.argv[1:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print(f"phase: {name}: no child subreaper: Chromium's renderers are not counted", file=sys.stderr)
    # An interrupt (Ctrl-C) reaches the command, which ends as it ends; this process waits
    # for it and its leftovers, and records the phase.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    start = time.monotonic()
    try:
        status = subprocess.call(command)
    except OSError as err:
        print(f"phase: {name}: {err}", file=sys.stderr)
        status = 127
    wall = time.monotonic() - start
    if reap_all(time.monotonic() + GRACE_SECONDS):
        left = children_of(os.getpid())
        for pid in left:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                cmd = "?"
            print(f"phase: {name}: left running after it ended, stopped: {pid} {cmd}", file=sys.stderr)
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        reap_all(time.monotonic() + 5)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    at = time.time() - float(run_start)
    with open(table, "a") as f:
        f.write(f"{name}\t{wall:.1f}\t{usage.ru_utime:.1f}\t{usage.ru_stime:.1f}\t{status}\t{at:.0f}\n")
    sys.exit(status)


if __name__ == "__main__":
    main()
