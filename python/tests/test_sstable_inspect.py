"""The Python package against the real fixtures (MANIFEST.md) and the CLI's own output.

Run: python/run_tests.sh (builds the wheel into a venv, then pytest).
"""

import json
import os
import pathlib
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import sstable_inspect as si

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(
    os.environ.get("SSTABLE_FIXTURES", REPO.parent / "shared" / "fixtures")
)
if (FIXTURES / "cassandra").is_dir():
    FIXTURES = FIXTURES / "cassandra"
CLI = os.environ.get("SSTABLE_INSPECT", str(REPO / "target" / "debug" / "sstable-inspect"))

if not (FIXTURES / "MANIFEST.md").is_file():
    if os.environ.get("CI"):
        raise RuntimeError("the Cassandra fixtures are required when CI is set")
    pytest.skip("Cassandra fixtures not found", allow_module_level=True)

CLUST = FIXTURES / "legacy-sstables" / "nb" / "legacy_tables" / "legacy_nb_clust"
KA = FIXTURES / "legacy-sstables" / "ka" / "legacy_tables" / "legacy_ka_clust"


def cli_json(*args):
    out = subprocess.run([CLI, *args], capture_output=True, check=True)
    return json.loads(out.stdout)


def test_info_is_the_cli_report():
    got = si.info(CLUST)
    want = cli_json("info", str(CLUST), "--json")[0]
    assert got == want
    assert got["version"] == "nb"


def test_verify_says_valid_with_the_cli_checks():
    got = si.verify(CLUST)
    assert got["verdict"] == "valid"
    want = cli_json("verify", str(CLUST), "--json")[0]
    assert got["verdict"] == want["verdict"]
    assert got.get("checks") == want.get("checks")


def test_partitions_is_a_table_equal_to_the_cli_report():
    t = si.partitions(CLUST)
    assert isinstance(t, pa.Table)
    want = cli_json("partitions", str(CLUST), "--json")[0]["partitions"]
    assert t.column("key").to_pylist() == [p["key"] for p in want]
    assert t.column("rows").to_pylist() == [50] * 5  # MANIFEST §3
    assert t.column("bytes").to_pylist() == [p["bytes"] for p in want]


def test_scan_streams_the_rows_dump_prints(tmp_path):
    reader = si.scan(CLUST, batch_rows=64)
    assert isinstance(reader, pa.RecordBatchReader)
    batches = list(reader)
    assert [b.num_rows for b in batches] == [64, 64, 64, 58]
    table = pa.Table.from_batches(batches)
    dumped = cli_json("dump", str(CLUST), "--json")
    want = [
        (p["partition"]["key"][0], r["clustering"][0],
         next(c["value"] for c in r["cells"] if c["name"] == "val"))
        for p in dumped for r in p["rows"]
    ]
    got = list(zip(table.column("partition_key").to_pylist(),
                   table.column("clustering_0").to_pylist(),
                   table.column("val").to_pylist()))
    assert got == want
    # pyarrow reads the CLI's Parquet export to the same values.
    subprocess.run([CLI, "export", str(CLUST), "--format", "parquet", "--out", str(tmp_path)],
                   check=True, capture_output=True)
    exported = pq.read_table(tmp_path / "legacy_nb_clust.nb-1-big.parquet")
    assert exported.column("val").to_pylist() == table.column("val").to_pylist()
    assert exported.schema.field("partition_key").type == pa.string()


def test_scan_selects_columns():
    t = si.scan(CLUST, columns=["clustering_0", "val"]).read_all()
    assert t.schema.names == ["clustering_0", "val"]
    assert t.num_rows == 250


def test_errors_carry_component_and_offset(tmp_path):
    for f in CLUST.iterdir():
        data = f.read_bytes()
        if f.name.endswith("Data.db"):
            data = data[: len(data) // 2]
        (tmp_path / f.name).write_bytes(data)
    with pytest.raises((si.SSTableError, OSError, pa.ArrowException)) as e:
        si.scan(tmp_path).read_all()
    assert "Data.db" in str(e.value) or "CompressionInfo" in str(e.value)
    print(repr(e.value))
    with pytest.raises(si.SSTableError) as e:
        si.scan(KA)
    assert e.value.component == "Data.db"
    assert e.value.offset == 0
    assert "predates the 3.0 row format" in str(e.value)
