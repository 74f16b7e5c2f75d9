"""Verify and survey every SSTable under directory trees on Dask: one task per SSTable on a
``distributed`` cluster running ``sstable_inspect`` (``fleet.py``), results written as Parquet
(``OUT/verify.parquet``, ``OUT/partitions.parquet``).

    python dask_fleet.py ROOT... --out DIR [--workers 2 | --scheduler tcp://host:8786]
    python dask_fleet.py ROOT... --out DIR --replica-diff [--depth N] [--now S] [--gc-grace S]

``--replica-diff``: each ROOT's subdirectories are nodes; one task per table and node computes
that replica's Merkle leaves (``OUT/merkle.parquet``), then the driver compares each table's
nodes: the mismatching token ranges, as ``sstable-inspect diff --json`` reports them.

Without ``--scheduler`` a ``LocalCluster`` of worker processes runs here. Workers need
``sstable_inspect`` and ``pyarrow``; ``fleet.py`` is uploaded to them.
"""

import contextlib
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fleet  # noqa: E402


def run(roots, out, workers=2, scheduler=None):
    """Both jobs over the SSTables under ``roots``; returns the totals read back from the
    Parquet written to ``out``."""
    with cluster_client(workers, scheduler) as client:
        return run_on(client, fleet.find_sstables(roots), out)


@contextlib.contextmanager
def cluster_client(workers=2, scheduler=None):
    """A client of the scheduler at ``scheduler``, or of a ``LocalCluster`` of ``workers``
    single-threaded worker processes, with ``fleet.py`` uploaded."""
    from dask.distributed import Client, LocalCluster

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
    client = Client(scheduler or cluster)
    try:
        client.upload_file(os.path.join(HERE, "fleet.py"))
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_on(client, paths, out):
    """Both jobs over ``paths`` on ``client``, one task per SSTable; writes the Parquet and
    returns the totals read back from it."""
    verify = client.gather(client.map(fleet.verify_batch, [[p] for p in paths]))
    partitions = client.gather(client.map(fleet.partitions_table, paths))
    os.makedirs(out, exist_ok=True)
    v = pa.Table.from_batches(verify, schema=fleet.VERIFY_SCHEMA)
    p = pa.concat_tables(partitions) if partitions else fleet.PARTITIONS_SCHEMA.empty_table()
    pq.write_table(v, os.path.join(out, "verify.parquet"))
    pq.write_table(p, os.path.join(out, "partitions.parquet"))
    return fleet.totals(
        pq.read_table(os.path.join(out, "verify.parquet")),
        pq.read_table(os.path.join(out, "partitions.parquet")),
    )


def run_replica_diff(roots, out, workers=2, scheduler=None, depth=None, now=None,
                     gc_grace=fleet.si.GC_GRACE_SECONDS):
    """The replica diff of the tables under ``roots`` (``ROOT/NODE/...``): per table, its
    mismatching ranges (``fleet.compare_leaves``)."""
    tasks = fleet.replica_tasks(roots, depth, now, gc_grace)
    with cluster_client(workers, scheduler) as client:
        return replica_diff_on(client, tasks, out)


def replica_diff_on(client, tasks, out):
    """One task per (table, node) on ``client``: the Merkle leaves, written as Parquet, read
    back and compared on the driver."""
    leaves = client.gather(client.map(fleet.merkle_table, tasks))
    os.makedirs(out, exist_ok=True)
    t = pa.concat_tables(leaves) if leaves else fleet.MERKLE_SCHEMA.empty_table()
    pq.write_table(t, os.path.join(out, "merkle.parquet"))
    return fleet.compare_leaves(pq.read_table(os.path.join(out, "merkle.parquet")))


def options(p):
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--scheduler")
    fleet.replica_diff_options(p)


def main():
    def job(a):
        if a.replica_diff:
            return run_replica_diff(a.roots, a.out, a.workers, a.scheduler, a.depth, a.now, a.gc_grace)
        return run(a.roots, a.out, a.workers, a.scheduler)

    return fleet.main(__doc__.splitlines()[0], options, job)


if __name__ == "__main__":
    sys.exit(main())
