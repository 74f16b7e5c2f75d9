"""Verify and survey every SSTable under directory trees on Dask: one task per SSTable on a
``distributed`` cluster running ``sstable_inspect`` (``fleet.py``), results written as Parquet
(``OUT/verify.parquet``, ``OUT/partitions.parquet``).

    python dask_fleet.py ROOT... --out DIR [--workers 2 | --scheduler tcp://host:8786]

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


def options(p):
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--scheduler")


def main():
    return fleet.main(
        __doc__.splitlines()[0], options, lambda a: run(a.roots, a.out, a.workers, a.scheduler)
    )


if __name__ == "__main__":
    sys.exit(main())
