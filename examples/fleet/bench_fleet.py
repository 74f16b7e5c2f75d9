"""The Dask fleet job's throughput: SSTables per second verified and surveyed (both jobs of
``dask_fleet.py``), on 1 and 2 worker processes, over a generated tree of small SSTables
(``cargo xtask bench`` runs it; figures, never assertions).

    python bench_fleet.py [--sstables 64] [--cli PATH]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dask_fleet  # noqa: E402
import fleet  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sstables", type=int, default=64)
    p.add_argument("--cli", default=os.environ.get("SSTABLE_INSPECT")
                   or os.path.join(REPO, "target", "release", "sstable-inspect"))
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "tree")
        for g in range(1, a.sstables + 1):
            subprocess.run(
                [a.cli, "generate", "-q", "--out", os.path.join(root, f"node{g % 4}"),
                 "--version", "oa", "--compression", "lz4", "--partitions", "8",
                 "--rows-per-partition", "200", "--seed", str(g), "--generation", str(g),
                 "--tombstone-fraction", "0.1", "--ttl-fraction", "0.1"],
                check=True, stdout=subprocess.DEVNULL,
            )
        paths = fleet.find_sstables([root])
        data_bytes = sum(os.path.getsize(x) for x in paths)
        results = {}
        for workers in (1, 2):
            with dask_fleet.cluster_client(workers) as client:
                dask_fleet.run_on(client, paths[:2], os.path.join(tmp, "warm"))  # imports, warm
                t = time.monotonic()
                totals = dask_fleet.run_on(client, paths, os.path.join(tmp, f"out{workers}"))
                secs = time.monotonic() - t
            results[workers] = secs
            print(
                f"dask fleet, {workers} worker(s): {len(paths)} SSTables ({data_bytes / 1e6:.1f} MB of "
                f"Data.db, {totals['rows']} rows) verified and surveyed in {secs:.2f} s = "
                f"{len(paths) / secs:.1f} SSTables/s"
            )
        print(json.dumps({"sstables": len(paths), "seconds_by_workers": results,
                          "speedup_2_vs_1": results[1] / results[2]}))


if __name__ == "__main__":
    main()
