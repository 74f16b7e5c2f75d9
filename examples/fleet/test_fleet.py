"""The fleet jobs on a small generated tree of SSTables (two "nodes", four SSTables of three
compressors, tombstones and TTLs, one with a flipped byte): Spark's and Dask's totals equal the
CLI's (``sstable-inspect verify --json`` and ``partitions --json`` over the same tree)."""

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
