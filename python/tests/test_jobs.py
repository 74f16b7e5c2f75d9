"""``partitions(…, jobs=N)`` and ``scan(…, jobs=N)``: the scan split over Rust threads gives the
sequential stream's batches, batch for batch (issue #26)."""

import os
import pathlib
import subprocess

import pytest

import sstable_inspect as si

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(
    os.environ.get("SSTABLE_FIXTURES", REPO.parent / "shared" / "fixtures")
)
if (FIXTURES / "cassandra").is_dir():
    FIXTURES = FIXTURES / "cassandra"
CLI = os.environ.get("SSTABLE_INSPECT", str(REPO / "target" / "debug" / "sstable-inspect"))
CLUST = FIXTURES / "legacy-sstables" / "nb" / "legacy_tables" / "legacy_nb_clust"

PARTITIONS = 3000
ROWS_PER_PARTITION = 5


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """3,000 partitions of 5 rows in 4 KiB chunks (Data.db 2.5 MB uncompressed, 627 chunks): a
    file the runner splits into many ranges (8 for 2 jobs, 12 for 3)."""
    out = tmp_path_factory.mktemp("jobs") / "gen"
    subprocess.run([CLI, "generate", "--out", str(out), "--version", "oa", "--compression", "lz4",
                    "--partitions", str(PARTITIONS), "--rows-per-partition",
                    str(ROWS_PER_PARTITION), "--chunk-kib", "4", "--seed", "26", "-q"],
                   check=True, capture_output=True)
    return out


def batches(reader_or_table):
    return list(reader_or_table.to_batches() if hasattr(reader_or_table, "to_batches")
                else reader_or_table)


def assert_same_batches(one, many):
    assert [b.num_rows for b in many] == [b.num_rows for b in one]
    for a, b in zip(one, many):
        assert b.equals(a)


@pytest.mark.parametrize("batch_rows", [7, 1000, 8192])
def test_partitions_with_jobs_is_the_sequential_report(generated, batch_rows):
    one = si.partitions(generated, batch_rows=batch_rows, jobs=1)
    assert one.num_rows == PARTITIONS
    assert one.column("rows").to_pylist() == [ROWS_PER_PARTITION] * PARTITIONS
    for jobs in [2, 3]:
        many = si.partitions(generated, batch_rows=batch_rows, jobs=jobs)
        assert many.equals(one)
        assert_same_batches(batches(one), batches(many))
    # Positions strictly increase: every partition once, in file order.
    positions = one.column("position").to_pylist()
    assert positions == sorted(set(positions))


@pytest.mark.parametrize("batch_rows", [7, 1000, 8192])
def test_scan_with_jobs_is_the_sequential_stream(generated, batch_rows):
    one = batches(si.scan(generated, batch_rows=batch_rows, jobs=1))
    kinds = [k for b in one for k in b.column("_kind").to_pylist()]
    assert kinds.count("row") == PARTITIONS * ROWS_PER_PARTITION
    assert all(b.num_rows == batch_rows for b in one[:-1])
    for jobs in [2, 3]:
        many = batches(si.scan(generated, batch_rows=batch_rows, jobs=jobs))
        assert_same_batches(one, many)


def test_scan_with_jobs_and_cell_metadata(generated):
    one = batches(si.scan(generated, batch_rows=500, cell_metadata=True, jobs=1))
    many = batches(si.scan(generated, batch_rows=500, cell_metadata=True, jobs=2))
    assert "v_text__writetime" in one[0].schema.names
    assert_same_batches(one, many)


def test_a_stream_dropped_early_stops_its_threads(generated):
    reader = si.scan(generated, batch_rows=100, jobs=2)
    first = reader.read_next_batch()
    assert first.num_rows == 100
    del reader  # the runner sees the closed channel and stops; nothing hangs


@pytest.mark.skipif(not (CLUST / "nb-1-big-Data.db").is_file(), reason="fixtures not found")
def test_a_fixture_with_jobs_is_the_sequential_stream():
    one = si.partitions(CLUST, jobs=1)
    # MANIFEST.md (`legacy_<v>_clust`): 5 partitions × 50 rows = 250 rows.
    assert one.num_rows == 5
    assert one.column("rows").to_pylist() == [50] * 5
    assert si.partitions(CLUST, jobs=2).equals(one)
    rows_one = batches(si.scan(CLUST, batch_rows=7, jobs=1))
    assert sum(b.num_rows for b in rows_one) == 250
    assert_same_batches(rows_one, batches(si.scan(CLUST, batch_rows=7, jobs=2)))


def read_until_error(reader):
    got = []
    with pytest.raises(Exception) as err:
        for b in reader:
            got.append(b)
    return got, str(err.value)


def test_a_damaged_data_db_fails_at_the_same_row_with_jobs(generated, tmp_path):
    cut = tmp_path / "cut"
    cut.mkdir()
    for f in generated.iterdir():
        data = f.read_bytes()
        if f.name.endswith("-Data.db"):
            # 8 KiB of zeros in the middle: two 4 KiB chunks' LZ4 blocks no longer decode.
            half = len(data) // 2
            data = data[:half] + bytes(8192) + data[half + 8192:]
        (cut / f.name).write_bytes(data)
    one, error_one = read_until_error(si.scan(cut, batch_rows=1000, jobs=1))
    assert "Data.db" in error_one
    # Half the chunks decode: the batches of the rows before the error, all full.
    assert 0 < len(one) < PARTITIONS * (ROWS_PER_PARTITION + 1) // 1000
    assert all(b.num_rows == 1000 for b in one)
    many, error_many = read_until_error(si.scan(cut, batch_rows=1000, jobs=2))
    assert error_many == error_one
    assert_same_batches(one, many)
