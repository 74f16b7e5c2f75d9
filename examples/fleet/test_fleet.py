"""The fleet jobs on a small generated tree of SSTables (two "nodes", four SSTables of three
compressors, tombstones and TTLs, one with a flipped byte): Spark's and Dask's totals equal the
CLI's (``sstable-inspect verify --json`` and ``partitions --json`` over the same tree). The
replica-diff jobs on a generated three-node tree of two tables (``generate --replicas 3``):
Spark's and Dask's mismatching ranges per table equal ``sstable-inspect diff --json``'s."""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dask_fleet  # noqa: E402
import spark_fleet  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
CLI = os.environ.get("SSTABLE_INSPECT") or os.path.join(REPO, "target", "debug", "sstable-inspect")

#: (directory, generation, version, compression, seed, partitions, rows each, extra options)
TREE = [
    ("node1/ks/t", 1, "oa", "lz4", 1, 20, 50, []),
    ("node1/ks/t", 2, "nb", "none", 2, 10, 30, ["--tombstone-fraction", "0.3"]),
    ("node2/ks/t", 1, "oa", "zstd", 3, 15, 40, ["--ttl-fraction", "0.4", "--tombstone-fraction", "0.2"]),
    ("node2/ks/t", 2, "oa", "snappy", 4, 12, 25, []),
]
#: The SSTable whose Data.db gets a flipped byte (its chunk CRC and digest fail).
CORRUPT = "node2/ks/t/oa-2-big-Data.db"


def cli_json(*args):
    out = subprocess.run([CLI, *args, "--json"], capture_output=True, text=True)
    assert out.stdout, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    for directory, generation, version, compression, seed, partitions, rows, extra in TREE:
        subprocess.run(
            [CLI, "generate", "-q", "--out", str(root / directory), "--version", version,
             "--compression", compression, "--seed", str(seed), "--generation", str(generation),
             "--partitions", str(partitions), "--rows-per-partition", str(rows), *extra],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    data = root / CORRUPT
    b = bytearray(data.read_bytes())
    b[len(b) // 2] ^= 0x40
    data.write_bytes(bytes(b))
    return root


@pytest.fixture(scope="module")
def expected(tree):
    """The CLI's totals, in the shape of ``fleet.totals``."""
    verify = cli_json("verify", str(tree))
    parts = cli_json("partitions", str(tree))
    s = [p["summary"] for p in parts]
    return {
        "sstables": len(verify),
        "valid": sum(1 for r in verify if r["valid"]),
        "invalid": sorted(r["sstable"] + "-Data.db" for r in verify if not r["valid"]),
        "partitions": sum(x["partitions"] for x in s),
        "rows": sum(x["rows"]["total"] for x in s),
        "cells": sum(x["cells"]["total"] for x in s),
        "tombstones": sum(x["tombstones"]["total"] for x in s),
        "ttl_cells": sum(x["ttl_cells"] for x in s),
        "unreadable": [],
    }


def test_the_tree_is_what_the_test_says(tree, expected):
    assert expected["sstables"] == len(TREE)
    assert expected["invalid"] == [str(tree / CORRUPT)]
    assert expected["partitions"] == sum(t[5] for t in TREE)
    assert expected["rows"] == sum(t[5] * t[6] for t in TREE)
    assert expected["tombstones"] > 0 and expected["ttl_cells"] > 0


def test_dask_fleet_totals_equal_the_cli(tree, expected, tmp_path):
    assert dask_fleet.run([tree], str(tmp_path), workers=2) == expected


def test_spark_fleet_totals_equal_the_cli(tree, expected, tmp_path):
    assert spark_fleet.run([tree], str(tmp_path), master="local[2]") == expected


#: The replica-diff tree: two tables (generator seeds) of three nodes each, ROOT/nodeK/ks/T.
REPLICA_TABLES = {"ks/t": 1, "ks/u": 7}


@pytest.fixture(scope="module")
def replicas(tmp_path_factory):
    """The tree and "now": each table written by ``generate --overlapping 3 --replicas 3`` (five
    divergences, one partition each) and moved under ``nodeK/ks/T``."""
    root = tmp_path_factory.mktemp("replicas")
    now = None
    for table, seed in REPLICA_TABLES.items():
        gen = root / "gen" / table.replace("/", "_")
        out = subprocess.run(
            [CLI, "generate", "-q", "--out", str(gen), "--version", "oa", "--compression", "lz4",
             "--seed", str(seed), "--partitions", "40", "--rows-per-partition", "5",
             "--overlapping", "3", "--replicas", "3"],
            capture_output=True, text=True, check=True,
        ).stdout
        assert out.count("divergence ") == 5, out
        now = int(out.rsplit("--now ", 1)[1].split()[0])
        for node in ("node1", "node2", "node3"):
            (root / "tree" / node / table).parent.mkdir(parents=True, exist_ok=True)
            os.rename(gen / node, root / "tree" / node / table)
    return root / "tree", now


@pytest.fixture(scope="module")
def cli_ranges(replicas):
    """Each table's mismatching ranges as ``sstable-inspect diff --json`` reports them."""
    root, now = replicas
    out = {}
    for table in REPLICA_TABLES:
        dirs = [str(root / node / table) for node in ("node1", "node2", "node3")]
        out[table] = cli_json("diff", *dirs, "--now", str(now))["mismatching_ranges"]
    return out


def expected_diff(cli_ranges):
    return {
        "tables": {
            t: {"nodes": ["node1", "node2", "node3"], "mismatching_ranges": r} for t, r in cli_ranges.items()
        },
        "invalid": [],
        "unreadable": [],
    }


def without_leaves(result):
    for t in result["tables"].values():
        assert t.pop("leaves") > 0
    return result


def test_the_replica_tree_differs_in_every_table(cli_ranges):
    assert set(cli_ranges) == set(REPLICA_TABLES)
    assert all(1 <= len(r) <= 5 for r in cli_ranges.values()), cli_ranges


def test_dask_replica_diff_equals_the_cli(replicas, cli_ranges, tmp_path):
    root, now = replicas
    got = dask_fleet.run_replica_diff([root], str(tmp_path), workers=2, now=now)
    assert without_leaves(got) == expected_diff(cli_ranges)


def test_spark_replica_diff_equals_the_cli(replicas, cli_ranges, tmp_path):
    root, now = replicas
    got = spark_fleet.run_replica_diff([root], str(tmp_path), master="local[2]", now=now)
    assert without_leaves(got) == expected_diff(cli_ranges)
