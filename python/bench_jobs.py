"""`scan(path, jobs=N)` and `partitions(path, jobs=N)`, 1 vs 2 jobs: wall time (best of 3), the
process's CPU time (every thread) and the load average; then the CPU of each thread during one
`scan(jobs=2)` (docs/performance.md, "Python split scan"). Usage: python bench_jobs.py PATH"""

import os
import resource
import sys
import threading
import time

import sstable_inspect as si


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run(what, path, jobs):
    if what == "scan":
        return sum(b.num_rows for b in si.scan(path, jobs=jobs))
    return si.partitions(path, jobs=jobs).num_rows


def thread_ticks():
    ticks = {}
    for t in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{t}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks[t] = int(fields[11]) + int(fields[12])
    return ticks


def main(path):
    for what in ["scan", "partitions"]:
        for jobs in [1, 2]:
            best = None
            for _ in range(3):
                t, c = time.perf_counter(), cpu()
                rows = run(what, path, jobs)
                wall, used = time.perf_counter() - t, cpu() - c
                if best is None or wall < best[0]:
                    best = (wall, used)
            print(f"{what} jobs={jobs}: {rows} rows, wall {best[0]:.2f} s (best of 3), "
                  f"CPU {best[1]:.2f} s, load average {os.getloadavg()[0]:.1f}", flush=True)
    before, seen, done = thread_ticks(), {}, threading.Event()

    def sample():
        while not done.is_set():
            for t, v in thread_ticks().items():
                seen[t] = max(seen.get(t, 0), v)
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    run("scan", path, 2)
    done.set()
    sampler.join()
    tick = os.sysconf("SC_CLK_TCK")
    busy = sorted(((v - before.get(t, 0)) / tick for t, v in seen.items()), reverse=True)
    print("scan jobs=2, CPU by thread:", ", ".join(f"{v:.2f} s" for v in busy if v > 0))


if __name__ == "__main__":
    main(sys.argv[1])
