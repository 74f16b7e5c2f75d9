"""`sstable_inspect.merkle` and `diff` on replicas written by `sstable-inspect generate
--overlapping 3 --replicas N` (their divergences known by construction, one partition each):
`diff` finds exactly the injected partitions, a directory and its copy have 0 mismatching
ranges, and `merkle`'s leaves are the trees `diff` compares.

Run: cargo xtask python (builds the extension into a venv, then pytest).
"""

import json
import os
import pathlib
import re
import shutil
import subprocess

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pytest

import sstable_inspect as si

REPO = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("SSTABLE_INSPECT", str(REPO / "target" / "debug" / "sstable-inspect"))

DIVERGENCE = re.compile(r"^divergence (\w+) on node(\d+): partition 0x([0-9a-f]+)$")


def generate(root, nodes):
    """The replica set under ``root``: {key hex: (the node (1-based) that differs, the
    divergence's kind)}, and "now"."""
    out = subprocess.run(
        [CLI, "generate", "-q", "--out", str(root), "--version", "oa", "--compression", "lz4",
         "--partitions", "50", "--rows-per-partition", "6", "--overlapping", "3",
         "--replicas", str(nodes)],
        capture_output=True, text=True, check=True,
    ).stdout
    injected = {}
    for line in out.splitlines():
        m = DIVERGENCE.match(line)
        if m:
            injected[m.group(3)] = (int(m.group(2)), m.group(1))
    now = int(re.search(r"--now (\d+)", out).group(1))
    return injected, now


def in_range(token, m):
    """``token`` in (start_token, end_token]; a range ending at the minimum token wraps."""
    return m["start_token"] < token and (token <= m["end_token"] or m["end_token"] == -(2**63))


def odd_one(digests):
    """The index of the one digest no other replica shares (the first such)."""
    return next(i for i, d in enumerate(digests) if all(j == i or e != d for j, e in enumerate(digests)))


@pytest.mark.parametrize("nodes", [2, 3])
def test_diff_finds_exactly_the_injected_partitions(tmp_path, nodes):
    injected, now = generate(tmp_path, nodes)
    assert len(injected) == 5
    dirs = [tmp_path / f"node{i}" for i in range(1, nodes + 1)]
    r = si.diff(dirs, now=now)
    assert r["replicas"] == nodes
    got = {p["key_hex"]: odd_one(p["digests"]) + 1 for p in r["partition_diffs"]}
    if nodes == 2:
        assert sorted(got) == sorted(injected)
    else:
        assert got == {k: node for k, (node, _) in injected.items()}
    # The missing partition has no digest on its node only.
    for p in r["partition_diffs"]:
        node, kind = injected[p["key_hex"]]
        missing = [i + 1 for i, d in enumerate(p["digests"]) if d is None]
        assert missing == ([node] if kind == "MissingPartition" else []), (kind, p)
    assert 1 <= len(r["mismatching_ranges"]) <= 5
    # The same report as the CLI's.
    cli = subprocess.run([CLI, "diff", *map(str, dirs), "--json", "--now", str(now)],
                         capture_output=True, text=True, check=True).stdout
    assert r == json.loads(cli)
    # Every differing partition's token is in a mismatching range.
    for p in r["partition_diffs"]:
        assert any(in_range(p["token"], m) for m in r["mismatching_ranges"]), p


def test_a_directory_and_its_copy_have_no_mismatching_range(tmp_path):
    _, now = generate(tmp_path / "gen", 2)
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "gen" / "node1", copy)
    r = si.diff([tmp_path / "gen" / "node1", copy], now=now)
    assert r["mismatching_ranges"] == []
    assert r["partition_diffs"] == []
    assert r["roots"][0] == r["roots"][1]
    assert r["partitions"][0] == r["partitions"][1] > 50


def test_merkle_leaves_are_the_trees_diff_compares(tmp_path):
    injected, now = generate(tmp_path, 3)
    dirs = [tmp_path / f"node{i}" for i in range(1, 4)]
    depth = si.validation_depth(dirs)
    r = si.diff(dirs, now=now)
    assert r["depth"] == depth
    trees = [si.merkle(d, depth=depth, now=now) for d in dirs]
    for t, n in zip(trees, r["partitions"]):
        assert t.schema == si.MERKLE_SCHEMA.with_metadata(t.schema.metadata)
        assert t.schema.metadata[b"depth"] == str(depth).encode()
        assert t.num_rows == 2**depth
        assert pa.compute.sum(t["partitions"]).as_py() == n
    # The leaves any two trees disagree on, coalesced as diff does, are its ranges.
    leaves = [t.to_pydict() for t in trees]
    differing = [i for i in range(2**depth) if len({lv["digest"][i] for lv in leaves}) > 1]
    ranges = []
    for i in differing:
        start, end = leaves[0]["start_token"][i], leaves[0]["end_token"][i]
        if ranges and ranges[-1][2] == i - 1:
            ranges[-1] = (ranges[-1][0], end, i)
        else:
            ranges.append((start, end, i))
    assert [(a, b) for a, b, _ in ranges] == [
        (m["start_token"], m["end_token"]) for m in r["mismatching_ranges"]
    ]
    assert len(ranges) >= 1


def test_diff_of_one_replica_is_an_error(tmp_path):
    with pytest.raises(si.SSTableError):
        si.diff([tmp_path])
