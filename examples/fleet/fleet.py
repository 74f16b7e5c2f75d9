"""What a fleet job runs inside each task: SSTables found under directory trees, verified or
surveyed one by one with the ``sstable_inspect`` package, results as Arrow record batches; for
the replica diff, one table's replica on one node hashed into its Merkle leaves
(``sstable_inspect.merkle``), and the leaves compared on the driver (:func:`compare_leaves`).

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


#: One row per Merkle tree leaf of one node's replica of one table (``sstable_inspect.merkle``,
#: counts as int64): ``leaf`` is its index in token order; a replica that cannot be validated
#: is one row with its ``error``.
MERKLE_SCHEMA = pa.schema(
    [("table", pa.string()), ("node", pa.string()), ("leaf", pa.int64())]
    + list(si.MERKLE_SCHEMA)
    + [("error", pa.string())]
)

#: One replica-diff task: a table's replica on one node, its directory, and the tree's depth
#: and "now" (the same for every node of the table: chosen on the driver).
REPLICA_SCHEMA = pa.schema(
    [("table", pa.string()), ("node", pa.string()), ("dir", pa.string()), ("depth", pa.int64()),
     ("now", pa.int64()), ("gc_grace", pa.int64())]
)


def find_replicas(roots):
    """The replicas under ``roots``, each root's subdirectories being its nodes
    (``ROOT/NODE/...``): {table: {node: directory}}, a table named by its SSTables' directory
    relative to the node (``ks/t-<id>`` in a Cassandra data directory, ``.`` when the node
    directory holds them)."""
    out = {}
    for root in roots:
        root = os.path.abspath(os.fspath(root))
        for data in find_sstables([root]):
            rel = os.path.relpath(os.path.dirname(os.path.abspath(data)), root)
            node, _, table = rel.partition(os.sep)
            out.setdefault(table or ".", {})[node] = os.path.join(root, rel)
    return out


def replica_tasks(roots, depth=None, now=None, gc_grace=si.GC_GRACE_SECONDS):
    """One task row per (table, node) under ``roots`` (:data:`REPLICA_SCHEMA`): the depth is
    what ``sstable-inspect diff`` chooses for the table's replicas (metadata only, here on the
    driver) unless given; ``now`` the clock's unless given."""
    now = int(time.time()) if now is None else now
    rows = []
    for table, nodes in sorted(find_replicas(roots).items()):
        d = depth if depth is not None else si.validation_depth([nodes[n] for n in sorted(nodes)])
        for node in sorted(nodes):
            rows.append({"table": table, "node": node, "dir": nodes[node], "depth": d,
                         "now": now, "gc_grace": gc_grace})
    return rows


def merkle_table(task):
    """One task: the Merkle leaves of one node's replica of one table (:data:`MERKLE_SCHEMA`)."""
    try:
        t = si.merkle(task["dir"], depth=task["depth"], now=task["now"], gc_grace=task["gc_grace"])
    except (si.SSTableError, OSError) as e:
        return pa.Table.from_pylist(
            [{"table": task["table"], "node": task["node"], "error": str(e)}], schema=MERKLE_SCHEMA
        )
    n = t.num_rows
    columns = [pa.array([task["table"]] * n, pa.string()), pa.array([task["node"]] * n, pa.string()),
               pa.array(range(n), pa.int64())]
    columns += [t.column(f.name) for f in si.MERKLE_SCHEMA]
    columns.append(pa.nulls(n, pa.string()))
    return pa.Table.from_arrays(columns, schema=MERKLE_SCHEMA)


def merkle_task(batches):
    """A task over record batches of :data:`REPLICA_SCHEMA` (Spark's ``mapInArrow``): their
    Merkle leaves."""
    for b in batches:
        for task in b.to_pylist():
            yield from merkle_table(task).to_batches()


def compare_leaves(leaves):
    """The driver's side of the replica diff: for each table, the leaves (one depth for every
    node) whose digests differ between any two nodes, adjacent ones coalesced, as
    ``sstable-inspect diff --json``'s ``mismatching_ranges`` with the nodes in name order
    (per-node ``partitions`` and ``bytes``). Replicas that failed are in ``unreadable``."""
    rows = leaves.to_pylist()
    unreadable = sorted({f"{r['table']} on {r['node']}: {r['error']}" for r in rows if r["error"]})
    by_table = {}
    for r in rows:
        if r["error"] is None:
            by_table.setdefault(r["table"], {}).setdefault(r["node"], {})[r["leaf"]] = r
    tables = {}
    for table, nodes in sorted(by_table.items()):
        names = sorted(nodes)
        count = max(len(v) for v in nodes.values())
        ranges, last = [], None
        for i in range(count):
            here = [nodes[n].get(i) for n in names]
            if len({h["digest"] if h else None for h in here}) == 1:
                continue
            parts = [h["partitions"] if h else 0 for h in here]
            size = [h["bytes"] if h else 0 for h in here]
            first = next(h for h in here if h)
            if ranges and last == i - 1:
                r = ranges[-1]
                r["end_token"] = first["end_token"]
                r["partitions"] = [a + b for a, b in zip(r["partitions"], parts)]
                r["bytes"] = [a + b for a, b in zip(r["bytes"], size)]
            else:
                ranges.append({"start_token": first["start_token"], "end_token": first["end_token"],
                               "partitions": parts, "bytes": size})
            last = i
        tables[table] = {"nodes": names, "leaves": count, "mismatching_ranges": ranges}
    return {"tables": tables, "invalid": [], "unreadable": unreadable}


def replica_diff_options(p):
    """The replica-diff job's options, the same in Spark and Dask."""
    p.add_argument("--replica-diff", action="store_true",
                   help="compare each table's replicas (ROOT/NODE/...) instead of verifying")
    p.add_argument("--depth", type=int, help="the Merkle tree depth (default: as diff chooses)")
    p.add_argument("--now", type=int, help="seconds since the epoch (default: the clock)")
    p.add_argument("--gc-grace", type=int, default=si.GC_GRACE_SECONDS)
