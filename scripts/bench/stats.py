#!/usr/bin/env python3
"""Helpers for scripts/bench-installations and scripts/bench-fanout (which imports the CPU readers).

  stats.py cpu SERVER_PID POSTMASTER_PID   -> "server_s postgres_s busy_s all_s" (cumulative CPU seconds)
  stats.py ticks PID                       -> the process's own CPU ticks (user and system) so far
  stats.py cpudiff BEFORE AFTER            -> "server_cores postgres_cores other_cores idle_cores wall_s" over the interval
  stats.py pgblog FILE...                  -> "p50_ms p99_ms count" from pgbench -l per-transaction logs
  stats.py median X...                     -> the median
"""
import glob, os, statistics, sys, time

TCK = os.sysconf("SC_CLK_TCK")


def read_stat(path):
    """(comm, fields from 'state' (field 3) on) of a /proc stat file, or None if its process or thread is gone."""
    try:
        with open(path) as f:
            s = f.read()
    except OSError:
        return None
    return s[s.index("(") + 1:s.rindex(")")], s[s.rindex(")") + 2:].split()


def proc_stat(pid):
    """(ppid, utime+stime, cutime+cstime) in ticks, or None if the process is gone."""
    stat = read_stat(f"/proc/{pid}/stat")
    if stat is None:
        return None
    fields = stat[1]
    ppid = int(fields[1])
    own = int(fields[11]) + int(fields[12])  # utime, stime
    children = int(fields[13]) + int(fields[14])  # cutime, cstime (reaped children)
    return ppid, own, children


def thread_ticks(pid, name):
    """CPU ticks (user and system) of the threads of process `pid` named `name` (their comm), 0 if none."""
    total = 0
    for task in glob.glob(f"/proc/{pid}/task/*"):
        stat = read_stat(f"{task}/stat")  # None: the thread ended meanwhile
        if stat is not None and stat[0] == name:
            total += int(stat[1][11]) + int(stat[1][12])
    return total


def postgres_ticks(pm_pid):
    """CPU ticks of a PostgreSQL cluster: its postmaster, the backends and auxiliary processes alive now, and
    the exited ones (already in the postmaster's cutime/cstime)."""
    pm = proc_stat(pm_pid)
    total = (pm[1] + pm[2]) if pm else 0
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = proc_stat(d)
            if st and st[0] == pm_pid:
                total += st[1]
    return total


def cpu(server_pid, pm_pid):
    server = proc_stat(server_pid)
    server_t = server[1] if server else 0
    pg_t = postgres_ticks(pm_pid)
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]  # idle + iowait
    total = sum(v[:8])  # user..steal (guest is already in user)
    print(f"{server_t / TCK:.2f} {pg_t / TCK:.2f} {(total - idle) / TCK:.2f} {total / TCK:.2f} {time.time():.3f}")


def cpudiff(before, after):
    b = [float(x) for x in before.split()]
    a = [float(x) for x in after.split()]
    wall = a[4] - b[4]
    server, pg, busy, total = (a[i] - b[i] for i in range(4))
    other = max(busy - server - pg, 0.0)
    print(f"{server / wall:.2f} {pg / wall:.2f} {other / wall:.2f} {(total - busy) / wall:.2f} {wall:.1f}")


def pgblog(files):
    lat = []
    for name in files:
        with open(name) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[2].isdigit():  # skipped/failed transactions log a word here
                    lat.append(int(parts[2]))
    if not lat:
        print("nan nan 0")
        return
    lat.sort()
    pct = lambda p: lat[min(len(lat) - 1, int(len(lat) * p / 100))] / 1000.0
    print(f"{pct(50):.2f} {pct(99):.2f} {len(lat)}")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "cpu":
        cpu(int(args[0]), int(args[1]))
    elif cmd == "ticks":
        print(proc_stat(int(args[0]))[1])
    elif cmd == "cpudiff":
        cpudiff(args[0], args[1])
    elif cmd == "pgblog":
        pgblog([f for a in args for f in glob.glob(a)])
    elif cmd == "median":
        print(f"{statistics.median(float(x) for x in args):.2f}")
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
