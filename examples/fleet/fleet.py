"""What a fleet job runs inside each task: SSTables found under directory trees, verified or
surveyed one by one with the ``sstable_inspect`` package, results as Arrow record batches.

Spark (``spark_fleet.py``) and Dask (``dask_fleet.py``) only distribute these functions; the
schemas below are the results' columns in both, and :func:`main` their command line. Nothing
here schedules work.
"""

import argparse
import json
import os
import time

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

import sstable_inspect as si

#: One row per SSTable: the verdict of ``sstable_inspect.verify`` and its figures.
VERIFY_SCHEMA = pa.schema(
    [
        ("sstable", pa.string()),
        ("verdict", pa.string()),
        ("valid", pa.bool_()),
        ("data_bytes", pa.int64()),
        ("verified_bytes", pa.int64()),
        ("checks", pa.int64()),
        ("failed_checks", pa.int64()),
        ("error", pa.string()),
    ]
)

#: The partitions report's counts (``sstable_inspect.PARTITIONS_SCHEMA``'s unsigned columns), as
#: signed 64-bit integers here (Spark has no unsigned types).
PARTITION_COUNTS = [f.name for f in si.PARTITIONS_SCHEMA if pa.types.is_unsigned_integer(f.type)]

#: One row per partition (the package's partitions report, counts as int64), with the SSTable it
#: is in; an SSTable whose report fails is one row with its ``error`` (and no key).
PARTITIONS_SCHEMA = pa.schema(
    [("sstable", pa.string())]
    + [(f.name, pa.int64() if f.name in PARTITION_COUNTS else f.type) for f in si.PARTITIONS_SCHEMA]
    + [("error", pa.string())]
)


def find_sstables(roots):
    """Every SSTable under the directory trees ``roots`` (or given as one of its files), named by
    its Data.db path, sorted (``sstable_inspect.find``: the CLI's discovery). Object-store paths
    work where the task host mounts them."""
    return sorted(
        s["components"]["Data.db"] for s in si.find([os.fspath(r) for r in roots]) if "Data.db" in s["components"]
    )


def verify_one(path):
    """The verify row of one SSTable; a file that cannot be read is a row with its error."""
    try:
        report = si.verify(path)
    except (si.SSTableError, OSError) as e:
        return {"sstable": path, "verdict": "error", "valid": False, "error": str(e)}
    checks = report.get("checks", [])
    return {
        "sstable": path,
        "verdict": report["verdict"],
        "valid": bool(report["valid"]),
        "data_bytes": report.get("data_bytes"),
        "verified_bytes": report.get("verified_bytes"),
        "checks": sum(c["checked"] for c in checks),
        "failed_checks": sum(c["failed"] for c in checks),
        "error": None,
    }


def verify_batch(paths):
    """The verify rows of ``paths`` as one record batch of :data:`VERIFY_SCHEMA`."""
    return pa.RecordBatch.from_pylist([verify_one(p) for p in paths], schema=VERIFY_SCHEMA)


def partitions_batches(paths):
    """The partitions report of each SSTable of ``paths``, as record batches of
    :data:`PARTITIONS_SCHEMA` (one SSTable's report at a time: memory holds one)."""
    for path in paths:
        try:
            table = si.partitions(path)
        except (si.SSTableError, OSError) as e:
            yield pa.RecordBatch.from_pylist([{"sstable": path, "error": str(e)}], schema=PARTITIONS_SCHEMA)
            continue
        n = table.num_rows
        columns = [pa.array([path] * n, pa.string())]
        columns += [table.column(f.name).cast(PARTITIONS_SCHEMA.field(f.name).type) for f in si.PARTITIONS_SCHEMA]
        columns.append(pa.nulls(n, pa.string()))
        yield from pa.Table.from_arrays(columns, schema=PARTITIONS_SCHEMA).to_batches()


def partitions_table(path):
    """The partitions report of one SSTable as a table of :data:`PARTITIONS_SCHEMA`."""
    return pa.Table.from_batches(list(partitions_batches([path])), schema=PARTITIONS_SCHEMA)


def verify_task(batches):
    """A task over record batches with an ``sstable`` column of paths (Spark's
    ``mapInArrow``): their verify rows, one batch per batch."""
    for b in batches:
        yield verify_batch(b.column("sstable").to_pylist())


def partitions_task(batches):
    """A task over record batches with an ``sstable`` column of paths: their partitions."""
    for b in batches:
        yield from partitions_batches(b.column("sstable").to_pylist())


def totals(verified, surveyed):
    """The fleet's totals from its two result tables, the figures a test compares with the
    CLI's."""
    v = verified.to_pydict()
    p = surveyed.filter(pa.compute.is_null(surveyed["error"])).to_pydict()
    return {
        "sstables": len(v["sstable"]),
        "valid": sum(1 for x in v["valid"] if x),
        "invalid": sorted(s for s, ok in zip(v["sstable"], v["valid"]) if not ok),
        "partitions": len(p["key"]),
        "rows": sum(p["rows"]),
        "cells": sum(p["cells"]),
        "tombstones": sum(
            sum(p[k])
            for k in (
                "partition_tombstones",
                "row_tombstones",
                "range_tombstones",
                "complex_tombstones",
                "cell_tombstones",
            )
        ),
        "ttl_cells": sum(p["ttl_cells"]),
        "unreadable": sorted(
            set(surveyed.filter(pa.compute.is_valid(surveyed["error"]))["sstable"].to_pylist())
        ),
    }


def main(description, add_options, run):
    """A fleet job's command line: ``ROOT... --out DIR`` and the job's own options
    (``add_options(parser)``); ``run(args)`` returns the totals, printed as JSON with the
    seconds taken. Exit status 1 when any SSTable is invalid or unreadable."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("roots", nargs="+", metavar="ROOT")
    p.add_argument("--out", required=True)
    add_options(p)
    a = p.parse_args()
    t = time.monotonic()
    result = run(a)
    result["seconds"] = round(time.monotonic() - t, 2)
    print(json.dumps(result, indent=2))
    return 0 if not result["invalid"] and not result["unreadable"] else 1
