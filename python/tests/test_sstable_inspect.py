"""The Python package against the real fixtures (MANIFEST.md) and the CLI's own output.

Run: cargo xtask python (builds the extension into a venv, then pytest).
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


def test_find_lists_the_sstables_the_cli_lists():
    root = FIXTURES / "legacy-sstables" / "nb"
    got = si.find([root])
    want = cli_json("ls", str(root), "--json")
    assert [s["prefix"] for s in got] == [w["sstable"] for w in want]
    for s, w in zip(got, want):
        assert sorted(s["components"]) == sorted(w["components"]["present"])
    clust = next(s for s in got if s["prefix"].endswith("legacy_nb_clust/nb-1-big"))
    assert clust["components"]["Data.db"] == str(CLUST / "nb-1-big-Data.db")
    # A component file selects its whole SSTable (the 8 files of MANIFEST's legacy tables).
    (one,) = si.find(CLUST / "nb-1-big-TOC.txt")
    assert one["prefix"] == str(CLUST / "nb-1-big")
    assert len(one["components"]) == 8
    with pytest.raises(si.SSTableError) as e:
        si.find([CLUST / "no-such-file"])
    assert "no-such-file" in str(e.value)


def test_partitions_schema_is_the_tables_schema():
    assert si.PARTITIONS_SCHEMA.names[:3] == ["key", "key_hex", "token"]
    assert si.PARTITIONS_SCHEMA.field("rows").type == pa.uint64()
    assert si.partitions(CLUST).schema == si.PARTITIONS_SCHEMA


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


# --- Parquet of every 3.0+ fixture and of a generated table, read by pyarrow, against dump --json.

import datetime as _dt
import decimal as _decimal
import uuid as _uuid

VERSIONS_3_0 = ["ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da"]


def _float_text(x):
    """dump's float rendering: shortest digits, plain for 1e-4 <= |x| < 1e16, else 1.5e-07."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    r = repr(x)
    if x == 0 or 1e-4 <= abs(x) < 1e16:
        s = format(_decimal.Decimal(r), "f")
        if "." in s:
            s = s.rstrip("0").rstrip(".")
        return "-0" if r.startswith("-") and s == "0" else s
    mantissa, exp = f"{x:.17e}".split("e")
    digits = _decimal.Decimal(r).normalize()
    sign, ds, e = digits.as_tuple()
    m = "".join(map(str, ds))
    exponent = e + len(ds) - 1
    m = m[0] + ("." + m[1:] if len(m) > 1 else "")
    return ("-" if sign else "") + m + "e" + ("+" if exponent >= 0 else "-") + f"{abs(exponent):02d}"


def render(value, arrow_type, nested=False):
    """A pyarrow value as dump prints it (cqlsh style); `nested`: inside a collection."""
    if value is None:
        return None
    t = arrow_type
    if isinstance(value, _uuid.UUID):
        # pyarrow reads the arrow.uuid extension type as uuid.UUID.
        return str(value)
    if pa.types.is_string(t):
        return "'" + value.replace("'", "''") + "'" if nested else value
    if pa.types.is_boolean(t):
        return "True" if value else "False"
    if pa.types.is_integer(t):
        return str(value)
    if pa.types.is_floating(t):
        return _float_text(value)
    if pa.types.is_timestamp(t):
        ms = value.microsecond // 1000
        s = value.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + f".{ms:03d}Z"
        return "'" + s + "'" if nested else s
    if pa.types.is_fixed_size_binary(t):
        return str(_uuid.UUID(bytes=value))
    if pa.types.is_binary(t):
        return "0x" + value.hex()
    raise AssertionError(f"no renderer for {t}")


def complex_cells(value, field):
    """A non-frozen collection as dump's (path, value) cells."""
    if value is None:
        return []
    t = field.type
    kind = field.metadata.get(b"cassandra.type", b"").decode()
    if pa.types.is_map(t):
        return [(render(k, t.key_type, True), render(v, t.item_type)) for k, v in value]
    if kind.startswith("org.apache.cassandra.db.marshal.SetType"):
        return [(render(v, t.value_type, True), None) for v in value]
    return [(None, render(v, t.value_type)) for v in value]


def compare_with_dump(parquet_path, sstable_dir):
    table = pq.read_table(parquet_path)
    dumped = cli_json("dump", str(sstable_dir), "--json")
    expected = []
    for p in dumped:
        rows = [r for r in p["rows"] if r["type"] in ("row", "static_block")]
        if not rows:
            expected.append(("partition", p, None))
        for r in rows:
            expected.append(("row" if r["type"] == "row" else "static", p, r))
    assert table.num_rows == len(expected), parquet_path
    data = table.to_pylist()
    key_cols = [n for n in table.schema.names if n.startswith("partition_key")]
    ck_cols = [n for n in table.schema.names if n.startswith("clustering_")]
    value_cols = [n for n in table.schema.names
                  if not n.startswith(("_", "partition_key", "clustering_")) and "__" not in n]
    compared = 0
    for row, (kind, p, r) in zip(data, expected):
        assert row["_kind"] == kind
        for n, k in zip(key_cols, p["partition"]["key"]):
            assert render(row[n], table.schema.field(n).type) == k
        for i, n in enumerate(ck_cols):
            clustering = r.get("clustering", []) if r else []
            want = clustering[i] if i < len(clustering) else None
            assert render(row[n], table.schema.field(n).type) == want, (parquet_path, n)
        for n in value_cols:
            field = table.schema.field(n)
            cells = [c for c in (r.get("cells", []) if r else []) if c["name"] == n]
            live = [c for c in cells if "deletion_info" not in c]
            if pa.types.is_list(field.type) or pa.types.is_map(field.type):
                want = [((c.get("path") or [None])[0]
                         if not field.metadata[b"cassandra.type"].startswith(
                             b"org.apache.cassandra.db.marshal.ListType") else None,
                         c.get("value")) for c in live]
                assert complex_cells(row[n], field) == want, (parquet_path, n, row)
            else:
                want = live[0].get("value") if live else None
                assert render(row[n], field.type) == want, (parquet_path, n, row)
            compared += 1
    return compared


def test_pyarrow_reads_every_fixture_export_as_dump_prints_it(tmp_path):
    dirs = sorted((FIXTURES / "legacy-sstables").glob("*/legacy_tables/*"))
    dirs = [d for d in dirs if d.parent.parent.name in VERSIONS_3_0]
    assert len(dirs) >= 60
    out = subprocess.run([CLI, "export", *map(str, dirs), "--format", "parquet",
                          "--out", str(tmp_path)], capture_output=True)
    assert out.returncode == 0, out.stderr
    compared = 0
    for d in dirs:
        files = list(tmp_path.glob(f"{d.name}.*.parquet"))
        assert len(files) == 1, d
        compared += compare_with_dump(files[0], d)
    assert compared > 5000


def test_pyarrow_reads_a_generated_table_of_every_generator_type(tmp_path):
    gen = tmp_path / "gen"
    subprocess.run([CLI, "generate", "--out", str(gen), "--version", "oa", "--compression", "lz4",
                    "--partitions", "30", "--rows-per-partition", "20", "--seed", "7",
                    "--ttl-fraction", "0.3", "--tombstone-fraction", "0.2"],
                   check=True, capture_output=True)
    out = tmp_path / "out"
    subprocess.run([CLI, "export", str(gen), "--format", "parquet", "--out", str(out)],
                   check=True, capture_output=True)
    [parquet] = list(out.glob("*.parquet"))
    table = pq.read_table(parquet)
    types = {str(f.type) for f in table.schema}
    for t in ["int64", "binary", "bool", "double", "int32", "string",
              "timestamp[ms, tz=UTC]", "extension<arrow.uuid>", "list<item: int32>",
              "list<item: string>"]:
        assert t in types, (t, types)
    m = table.schema.field("v_map").type
    assert pa.types.is_map(m) and m.key_type == pa.string() and m.item_type == pa.int32()
    assert compare_with_dump(parquet, gen) > 3000


def test_scrub_rewrites_a_fixture_as_oa_that_dumps_the_same(tmp_path):
    got = si.scrub(CLUST, tmp_path / "out", "skip", "oa")
    want = cli_json("scrub", str(CLUST), "--out", str(tmp_path / "cli"), "--version", "oa", "--json")
    assert got["problems"] == [] and want["problems"] == []
    assert got["partitions_kept"] == want["partitions_kept"] == 5  # MANIFEST §3
    assert [o["rows"] for o in got["outputs"]] == [250]
    assert len(got["files"]) == 1 and len(got["files"][0]) == 8
    assert si.verify(tmp_path / "out")["verdict"] == "valid"

    def rows(path):
        dumped = cli_json("dump", str(path), "--json")
        return [[r.get("cells") for r in p["rows"]] for p in dumped]

    assert rows(tmp_path / "out") == rows(CLUST)


def test_scrub_validate_reports_a_flipped_chunk_and_writes_nothing(tmp_path):
    src = tmp_path / "src"
    subprocess.run(
        [CLI, "generate", "--out", str(src), "--version", "nb", "--compression", "lz4",
         "--partitions", "30", "--rows-per-partition", "8", "--chunk-kib", "4"],
        check=True, capture_output=True,
    )
    data = src / "nb-1-big-Data.db"
    b = bytearray(data.read_bytes())
    b[len(b) // 2] ^= 0x40  # inside some compressed chunk: its checksum fails
    data.write_bytes(bytes(b))
    got = si.scrub(src, tmp_path / "out", "validate")
    assert got["problems"] and all(p["kind"] == "chunk_checksum" for p in got["problems"])
    assert got["files"] == [] and not list((tmp_path / "out").iterdir())
    with pytest.raises(si.SSTableError):
        si.scrub(src, tmp_path / "out", "bogus")


def test_scrub_rewrites_a_2x_sstable_with_its_schema(tmp_path):
    with pytest.raises(si.SSTableError, match="records no schema"):
        si.scrub(KA, tmp_path / "none")
    got = si.scrub(
        KA,
        tmp_path / "out",
        version="nb",
        schema="CREATE TABLE legacy_ka_clust (pk text, ck text, val text, PRIMARY KEY (pk, ck))",
    )
    assert got["partitions_kept"] == 5 and got["rows_kept"] == 250  # MANIFEST §3
    assert si.verify(tmp_path / "out")["verdict"] == "valid"
