"""`sstable_inspect.table(paths)` queried by DuckDB (the PyPI wheel) through the Arrow C stream,
asserted against MANIFEST.md §3 (nb `legacy_nb_clust`: keys "0".."4", 50 rows each, every
`val` the same 128-character string).

Run: cargo xtask python (builds the extension into a venv, then pytest).
"""

import os
import pathlib

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
