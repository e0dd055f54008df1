#!/usr/bin/env python3
"""mtpc under distcc: a distccd daemon listens on 127.0.0.1 only, with
MTPC_STATS and MTPC_THREADS=2 in its environment; sqlite3.c is compiled
through `distcc clang-16 -O2 -fpass-plugin=libmtpc.so` with local
fallback off and no MTPC_* in the client's environment. So the stats can
only come from a compile on the daemon: it must have run there, been split
without fallback, and its object must give the same SQL workload output as
a stock local build.

  tests/e2e_distcc.py
Prints one line per check and 'N passed, N failed' at the end.
"""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

from harness import PLUGIN, PROGRAMS_DIR, SQLITE_DEFINES, Checker, run, sqlite_dir, tool


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_daemon(work, port, stats):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MTPC_")}
    # The test is of distcc, not of the load: split whatever else runs.
    env.update(MTPC_THREADS="2", MTPC_STATS=stats, MTPC_LOAD_AWARE="0")
    log = os.path.join(work, "distccd.log")
    daemon = subprocess.Popen(["distccd", "--daemon", "--no-detach", "--listen", "127.0.0.1", "--port", str(port),
                               "--allow", "127.0.0.1", "--jobs", "2", "--log-level", "info", "--log-file", log],
                              env=env, start_new_session=True)
    for _ in range(100):
        if os.path.exists(log) and "listening on" in open(log).read():
            return daemon, log
        time.sleep(0.1)
    daemon.kill()
    raise RuntimeError("distccd did not start:\n" + (open(log).read() if os.path.exists(log) else "(no log)"))


def link_and_run(work, tag, sqlite_obj):
    workload = os.path.join(work, "workload.o")
    if not os.path.exists(workload):
        run([tool("clang"), "-O2", "-I" + sqlite_dir(), "-c", os.path.join(PROGRAMS_DIR, "sqlite_workload.c"), "-o", workload])
    exe = os.path.join(work, tag)
    run([tool("clang"), sqlite_obj, workload, "-o", exe, "-lm"])
    return run([exe, "1000"])


def main():
    work = tempfile.mkdtemp(prefix="mtpc-distcc-")
    os.chmod(work, 0o777)  # distccd may run its jobs as its own user
    checker = Checker()
    source = os.path.join(sqlite_dir(), "sqlite3.c")
    stock = os.path.join(work, "stock.o")
    run([tool("clang"), "-O2"] + SQLITE_DEFINES + ["-c", source, "-o", stock])
    expected = link_and_run(work, "stock", stock)

    # The daemon runs compiles as its own user: the plugin must be where that
    # user can read it (as on a real node: one install path for all).
    plugin = os.path.join(work, "libmtpc.so")
    shutil.copy(PLUGIN, plugin)
    os.chmod(plugin, 0o755)
    port, stats = free_port(), os.path.join(work, "stats.jsonl")
    daemon, log = start_daemon(work, port, stats)
    try:
        os.makedirs(os.path.join(work, "distcc-client"))
        client = {k: v for k, v in os.environ.items() if not k.startswith("MTPC_")}
        client.update(DISTCC_HOSTS="127.0.0.1:%d/2" % port, DISTCC_FALLBACK="0", DISTCC_SKIP_LOCAL_RETRY="1",
                      DISTCC_DIR=os.path.join(work, "distcc-client"))
        obj = os.path.join(work, "distcc.o")
        run(["distcc", "clang-16", "-O2", "-w", "-fpass-plugin=" + plugin] + SQLITE_DEFINES + ["-c", source, "-o", obj],
            env=client)
    finally:
        os.killpg(daemon.pid, 15)
        daemon.wait()
    with open(log) as f:
        daemon_log = f.read()
    # "... sqlite3.c on localhost completed ok" is logged before the result
    # is sent back; the job's summary (COMPILE_OK) after, and the daemon
    # may be stopped before it writes it.
    checker.check(("COMPILE_OK" in daemon_log or "completed ok" in daemon_log) and "sqlite3.c" in daemon_log,
                  "the daemon on 127.0.0.1 compiled sqlite3.c", daemon_log[-1500:])
    modules = [json.loads(l) for l in open(stats)] if os.path.exists(stats) else []
    checker.check(len(modules) == 1 and modules[0]["partitions"] > 1 and not modules[0]["fallback"],
                  "the daemon's compile was split by mtpc, without fallback", json.dumps(modules)[:600])
    out = link_and_run(work, "distcc", obj)
    checker.check(out == expected, "the object from distcc gives the stock build's output",
                  "expected:\n%s\ngot:\n%s" % (expected[-800:], out[-800:]))
    shutil.rmtree(work, ignore_errors=True)
    checker.finish()


if __name__ == "__main__":
    main()
