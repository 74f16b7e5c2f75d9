"""Verify and survey every SSTable under directory trees on Spark: a DataFrame of SSTable paths,
``mapInArrow`` running ``sstable_inspect`` inside each task (``fleet.py``), results written as
Parquet (``OUT/verify``, ``OUT/partitions``).

    python spark_fleet.py ROOT... --out DIR [--master local[2]] [--tasks N]
    python spark_fleet.py ROOT... --out DIR --replica-diff [--depth N] [--now S] [--gc-grace S]

``--replica-diff``: each ROOT's subdirectories are nodes; ``mapInArrow`` computes each table's
replica on each node's Merkle leaves in its own task (``OUT/merkle``), then the driver compares
each table's nodes: the mismatching token ranges, as ``sstable-inspect diff --json`` reports.

Executors run the Python that runs this script (``PYSPARK_PYTHON``, set here when unset): it
must have ``sstable_inspect`` and ``pyarrow``. On a cluster, ROOTs are paths every executor
host can read (a shared mount, a fused object store).
"""

import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fleet  # noqa: E402


def spark_ddl(schema):
    """The Spark DDL of an Arrow schema of strings, booleans and int64s."""
    names = {pa.string(): "string", pa.bool_(): "boolean", pa.int64(): "bigint"}
    return ", ".join(f"`{f.name}` {names[f.type]}" for f in schema)


def session(master):
    """A Spark session at ``master`` with ``fleet.py`` shipped to the executors."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(master)
        .appName("sstable-inspect fleet")
        .config("spark.ui.enabled", "false")
    )
    if master.startswith("local"):
        # The JVM only moves Arrow batches here (the work is in the Python tasks): C1 alone and
        # the serial collector start a one-machine session and its first jobs about 1.5x faster.
        builder = builder.config(
            "spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
        )
    spark = builder.getOrCreate()
    spark.sparkContext.addPyFile(os.path.join(HERE, "fleet.py"))
    return spark


def run(roots, out, master="local[2]", tasks=None):
    """Both jobs over the SSTables under ``roots``; returns the totals read back from the
    Parquet written to ``out``."""
    paths = fleet.find_sstables(roots)
    spark = session(master)
    try:
        slices = tasks or max(1, min(len(paths), spark.sparkContext.defaultParallelism * 4))
        df = spark.createDataFrame(
            spark.sparkContext.parallelize([(p,) for p in paths], slices), "sstable string"
        )
        for name, task, schema in (
            ("verify", fleet.verify_task, fleet.VERIFY_SCHEMA),
            ("partitions", fleet.partitions_task, fleet.PARTITIONS_SCHEMA),
        ):
            df.mapInArrow(task, spark_ddl(schema)).write.mode("overwrite").parquet(
                os.path.join(out, name)
            )
    finally:
        spark.stop()
    return fleet.totals(
        pq.read_table(os.path.join(out, "verify")), pq.read_table(os.path.join(out, "partitions"))
    )


def run_replica_diff(roots, out, master="local[2]", depth=None, now=None,
                     gc_grace=fleet.si.GC_GRACE_SECONDS):
    """The replica diff of the tables under ``roots`` (``ROOT/NODE/...``): one task per
    (table, node) computing its Merkle leaves, written as Parquet, read back and compared on
    the driver (``fleet.compare_leaves``)."""
    tasks = fleet.replica_tasks(roots, depth, now, gc_grace)
    spark = session(master)
    try:
        df = spark.createDataFrame(
            spark.sparkContext.parallelize(
                [tuple(t[f.name] for f in fleet.REPLICA_SCHEMA) for t in tasks], max(1, len(tasks))
            ),
            spark_ddl(fleet.REPLICA_SCHEMA),
        )
        df.mapInArrow(fleet.merkle_task, spark_ddl(fleet.MERKLE_SCHEMA)).write.mode(
            "overwrite"
        ).parquet(os.path.join(out, "merkle"))
    finally:
        spark.stop()
    return fleet.compare_leaves(pq.read_table(os.path.join(out, "merkle")))


def options(p):
    p.add_argument("--master", default="local[2]")
    p.add_argument("--tasks", type=int)
    fleet.replica_diff_options(p)


def main():
    def job(a):
        if a.replica_diff:
            return run_replica_diff(a.roots, a.out, a.master, a.depth, a.now, a.gc_grace)
        return run(a.roots, a.out, a.master, a.tasks)

    return fleet.main(__doc__.splitlines()[0], options, job)


if __name__ == "__main__":
    sys.exit(main())
