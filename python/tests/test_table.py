"""`sstable_inspect.table(paths)` queried by DuckDB (the PyPI wheel) through the Arrow C stream,
asserted against MANIFEST.md §3 (nb `legacy_nb_clust`: keys "0".."4", 50 rows each, every
`val` the same 128-character string).

Run: cargo xtask python (builds the extension into a venv, then pytest).
"""

import json
import os
import pathlib
import subprocess

import duckdb
import pyarrow as pa
import pytest

import sstable_inspect as si

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(os.environ.get("SSTABLE_FIXTURES", REPO.parent / "shared" / "fixtures"))
if (FIXTURES / "cassandra").is_dir():
    FIXTURES = FIXTURES / "cassandra"
if not (FIXTURES / "MANIFEST.md").is_file():
    if os.environ.get("CI"):
        raise RuntimeError("the Cassandra fixtures are required when CI is set")
    pytest.skip("Cassandra fixtures not found", allow_module_level=True)

CLI = os.environ.get("SSTABLE_INSPECT", str(REPO / "target" / "debug" / "sstable-inspect"))
CLUST = FIXTURES / "legacy-sstables" / "nb" / "legacy_tables" / "legacy_nb_clust"
NB_VAL = (
    "lxvwpnwfbdpmayjujittwghygywemwpvlemfkutzstfbiednkferyifrvvauhpdowraebccylljbibrbolnnoifw"
    "jkspqzgjdihyknypyzricuymwknfitpvjmvpcxob"
)


def test_table_is_a_record_batch_reader_duckdb_queries():
    reader = si.table([CLUST])
    assert isinstance(reader, pa.RecordBatchReader)
    assert "val__writetime" in reader.schema.names
    con = duckdb.connect()
    con.register("t", reader)
    rows = con.execute(
        "SELECT partition_key, count(*), min(val), max(val) FROM t "
        "WHERE _kind = 'row' GROUP BY partition_key ORDER BY partition_key"
    ).fetchall()
    assert rows == [(k, 50, NB_VAL, NB_VAL) for k in ["0", "1", "2", "3", "4"]]


def test_table_of_no_sstable_is_an_error(tmp_path):
    with pytest.raises(si.SSTableError):
        si.table([tmp_path])


def rows_of(partitions):
    """Rows as the Arrow table has them: regular and static rows, one for a partition without."""
    n = 0
    for p in partitions:
        rows = [r for r in p.get("rows", []) if r["type"] in ("row", "static_block")]
        n += len(rows) or 1
    return n


def test_table_is_the_merged_read_of_the_tables_sstables(tmp_path):
    """4 overlapping SSTables (`generate --overlapping 4`): table() has the rows `read --json`
    shows at the same now, fewer than the 4 SSTables' own rows added up."""
    subprocess.run(
        [CLI, "generate", "--out", str(tmp_path), "--version", "nb", "--compression", "lz4",
         "--partitions", "30", "--rows-per-partition", "8", "--seed", "21", "--overlapping", "4"],
        capture_output=True, check=True,
    )
    # The generated TTLs have all run out by the clock's now: table() and read agree on it.
    merged = json.loads(
        subprocess.run([CLI, "read", str(tmp_path), "--json"], capture_output=True, check=True).stdout
    )
    con = duckdb.connect()
    con.register("t", si.table([tmp_path]))
    (count,) = con.execute("SELECT count(*) FROM t").fetchone()
    assert count == rows_of(merged)
    alone = 0
    for data in sorted(tmp_path.glob("*-Data.db")):
        con = duckdb.connect()
        con.register("t", si.table([data]))
        alone += con.execute("SELECT count(*) FROM t").fetchone()[0]
    assert alone > count
