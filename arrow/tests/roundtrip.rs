//! Every 3.0+ Cassandra fixture and a generated all-types table: rows exported to Parquet, read
//! back with the parquet crate's Arrow reader, and every value compared with what
//! `sstable-inspect dump --json` prints for it.
//!
//! The comparison's canonical form: an Arrow value is serialized back to Cassandra's bytes by
//! this file's own encoder ([`encode`], per Arrow type) and rendered by the engine's
//! `format_value`; that text must equal the dump's. Cell metadata columns are compared with the
//! dump's `tstamp`, `ttl`, `expires_at` and `local_delete_time`. The generated table also checks
//! each value against the literal it was written from.

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time64NanosecondType, TimestampMicrosecondType, TimestampMillisecondType, TimestampSecondType,
    UInt64Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use sstable_arrow::write::{BatchWriter, Format};
use sstable_arrow::{RowBatchReader, RowOptions, TypeMapping};
use sstable_engine::component::data::{DataFileReader, DecodeOptions, VisitStep};
use sstable_engine::component::ComponentType;
use sstable_engine::datetime::{iso8601_micros, iso8601_secs};
use sstable_engine::descriptor::parse_file_name;
use sstable_engine::dump::{DumpFormat, DumpWriter, PartitionJson, UnfilteredJson};
use sstable_engine::info::{decode_metadata, reads_whole, ComponentInput, SSTableMetadata};
use sstable_engine::range::{ByteRange, RangeSource, SliceSource};
use sstable_engine::sstable_set::group_files;
use sstable_engine::types::value::{format_cell_path, format_value, parse_value};
use sstable_engine::types::{parse_type, AbstractType};
use sstable_engine::write::{
    Cell, ColumnData, ColumnDef, Expiry, Liveness, MemorySink, ModelDeletion, Partition, Row,
    SSTableWriter, TableSchema, Unfiltered, WriteOptions,
};
use sstable_engine::Version;

/// "Now" for expiry in both the dump and the export.
const NOW_SECS: i64 = 1_800_000_000;

/// One SSTable's components in memory, served by range.
struct Files(Vec<(ComponentType, Vec<u8>)>);

impl RangeSource for Files {
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> sstable_engine::Result<()> {
        let files: Vec<(ComponentType, &[u8])> = self
            .0
            .iter()
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect();
        SliceSource { files: &files }.read_into(range, buf)
    }
}

fn metadata_of(data_file_name: &str, files: &Files) -> SSTableMetadata {
    let (descriptor, _) = parse_file_name(data_file_name).unwrap();
    let inputs: Vec<ComponentInput<'_>> = files
        .0
        .iter()
        .map(|(c, b)| ComponentInput {
            component: c,
            size_bytes: b.len() as u64,
            bytes: reads_whole(c).then_some(b.as_slice()),
        })
        .collect();
    decode_metadata(&descriptor, &inputs)
}

/// `dump --jsonl` of the SSTable, parsed.
fn dump(metadata: &SSTableMetadata, files: &mut Files) -> Vec<PartitionJson> {
    let mut reader = DataFileReader::for_sstable(metadata, DecodeOptions::at(NOW_SECS)).unwrap();
    let schema = reader.decoder().schema().clone();
    let mut writer = DumpWriter::new(&schema, DumpFormat::JsonLines, Some(NOW_SECS), None);
    let mut driver = sstable_engine::range::SyncDriver::new(files);
    let mut out = Vec::new();
    while let VisitStep::Visited = driver
        .visit_next(&mut reader, &mut writer, &sstable_engine::clock::NoClock)
        .unwrap()
    {
        writer.drain_output(|b| out.extend_from_slice(b));
    }
    out.split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// The rows exported to Parquet (in memory) and read back with the parquet crate.
fn export_and_read(
    metadata: &SSTableMetadata,
    files: Files,
    options: RowOptions,
) -> (Vec<RecordBatch>, usize) {
    let reader = RowBatchReader::new(metadata, files, options, Some(NOW_SECS)).unwrap();
    let schema = arrow_array::RecordBatchReader::schema(&reader);
    let mut parquet = Vec::new();
    let mut writer = BatchWriter::new(Format::Parquet, &mut parquet, &schema).unwrap();
    let mut batches_written = 0;
    for b in reader {
        let b = b.unwrap();
        assert!(b.num_rows() <= options.batch_rows);
        writer.write(&b).unwrap();
        batches_written += 1;
    }
    writer.finish().unwrap();
    let read = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(parquet))
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    for b in &read {
        assert_eq!(b.schema().fields(), schema.fields(), "schema after Parquet");
    }
    (read, batches_written)
}

/// A value of `column` at `row` as Cassandra's serialized bytes of `t` (`None`: null).
fn encode(column: &ArrayRef, row: usize, t: &AbstractType) -> Option<Vec<u8>> {
    if column.is_null(row) {
        return None;
    }
    let t = t.base();
    Some(match column.data_type() {
        DataType::Boolean => vec![u8::from(column.as_boolean().value(row))],
        DataType::Int8 => column
            .as_primitive::<Int8Type>()
            .value(row)
            .to_be_bytes()
            .to_vec(),
        DataType::Int16 => column
            .as_primitive::<Int16Type>()
            .value(row)
            .to_be_bytes()
            .to_vec(),
        DataType::Int32 => column
            .as_primitive::<Int32Type>()
            .value(row)
            .to_be_bytes()
            .to_vec(),
        DataType::Int64 => column
            .as_primitive::<Int64Type>()
            .value(row)
            .to_be_bytes()
            .to_vec(),
        DataType::Float32 => column
            .as_primitive::<Float32Type>()
            .value(row)
            .to_be_bytes()
            .to_vec(),
        DataType::Float64 => column
            .as_primitive::<Float64Type>()
            .value(row)
            .to_be_bytes()
            .to_vec(),
        DataType::Timestamp(_, _) => column
            .as_primitive::<TimestampMillisecondType>()
            .value(row)
            .to_be_bytes()
            .to_vec(),
        DataType::Date32 => {
            let days = column.as_primitive::<Date32Type>().value(row);
            ((i64::from(days) + (1 << 31)) as u32)
                .to_be_bytes()
                .to_vec()
        }
        DataType::Time64(_) => column
            .as_primitive::<Time64NanosecondType>()
            .value(row)
            .to_be_bytes()
            .to_vec(),
        DataType::Binary => column.as_binary::<i32>().value(row).to_vec(),
        DataType::FixedSizeBinary(_) => column.as_fixed_size_binary().value(row).to_vec(),
        DataType::Utf8 => {
            let s = column.as_string::<i32>().value(row);
            match t {
                AbstractType::Utf8 | AbstractType::Ascii => s.as_bytes().to_vec(),
                // varint, decimal, inet: the text parsed back.
                _ => parse_value(t, s).unwrap_or_else(|e| panic!("{s:?} as {t:?}: {e}")),
            }
        }
        DataType::List(_) => {
            let list = column.as_list::<i32>();
            let values = list.value(row);
            let element = match t {
                AbstractType::List { element, .. }
                | AbstractType::Set { element, .. }
                | AbstractType::Vector { element, .. } => element.as_ref(),
                other => panic!("list for {other:?}"),
            };
            let mut out = (values.len() as i32).to_be_bytes().to_vec();
            for i in 0..values.len() {
                push_element(&mut out, encode(&values, i, element));
            }
            out
        }
        DataType::Map(_, _) => {
            let map = column.as_map();
            let entries = map.value(row);
            let AbstractType::Map { key, value, .. } = t else {
                panic!("map for {t:?}")
            };
            let mut out = (entries.len() as i32).to_be_bytes().to_vec();
            for i in 0..entries.len() {
                push_element(&mut out, encode(entries.column(0), i, key));
                push_element(&mut out, encode(entries.column(1), i, value));
            }
            out
        }
        DataType::Struct(_) => {
            let s = column.as_struct();
            if *t == AbstractType::Duration {
                let m = s.column(0).as_primitive::<Int32Type>().value(row);
                let d = s.column(1).as_primitive::<Int32Type>().value(row);
                let n = s.column(2).as_primitive::<Int64Type>().value(row);
                let mut out = Vec::new();
                for v in [i64::from(m), i64::from(d), n] {
                    signed_vint(&mut out, v);
                }
                return Some(out);
            }
            let types: Vec<&AbstractType> = match t {
                AbstractType::Tuple(members) => members.iter().collect(),
                AbstractType::UserType { fields, .. } => fields.iter().map(|(_, t)| t).collect(),
                other => panic!("struct for {other:?}"),
            };
            let mut out = Vec::new();
            for (i, ft) in types.into_iter().enumerate() {
                push_element(&mut out, encode(s.column(i), row, ft));
            }
            out
        }
        other => panic!("no encoder for {other}"),
    })
}

fn push_element(out: &mut Vec<u8>, v: Option<Vec<u8>>) {
    match v {
        Some(v) => {
            out.extend_from_slice(&(v.len() as i32).to_be_bytes());
            out.extend_from_slice(&v);
        }
        None => out.extend_from_slice(&(-1i32).to_be_bytes()),
    }
}

/// Cassandra's `VIntCoding.writeVInt` (zigzag, then the unsigned vint).
fn signed_vint(out: &mut Vec<u8>, v: i64) {
    let u = ((v << 1) ^ (v >> 63)) as u64;
    // Find the smallest n with u < 2^(7*(n+1)) for n < 8 (first byte holds 7-n bits).
    let mut n = 0;
    while n < 8 && u >> (7 * (n + 1)) != 0 {
        n += 1;
    }
    if n == 8 {
        out.push(0xff);
        out.extend_from_slice(&u.to_be_bytes());
        return;
    }
    let bytes = u.to_be_bytes();
    let mut head = bytes[7 - n];
    head |= !(0xffu8 >> n);
    out.push(head);
    out.extend_from_slice(&bytes[8 - n..]);
}

/// The dump's rows in Arrow order: (kind, partition, row) with the row `None` for a partition
/// without rows.
fn dump_rows(
    partitions: &[PartitionJson],
) -> Vec<(&'static str, &PartitionJson, Option<&UnfilteredJson>)> {
    let mut out = Vec::new();
    for p in partitions {
        let rows: Vec<&UnfilteredJson> = p
            .rows
            .iter()
            .filter(|r| r.r#type == "row" || r.r#type == "static_block")
            .collect();
        if rows.is_empty() {
            out.push(("partition", p, None));
        }
        for r in rows {
            let kind = if r.r#type == "row" { "row" } else { "static" };
            out.push((kind, p, Some(r)));
        }
    }
    out
}

/// Compares every Arrow row with the dump; returns the number of values compared.
fn compare(
    name: &str,
    metadata: &SSTableMetadata,
    batches: &[RecordBatch],
    partitions: &[PartitionJson],
    cell_metadata: bool,
) -> usize {
    let reader = DataFileReader::for_sstable(metadata, DecodeOptions::default()).unwrap();
    let schema = reader.decoder().schema();
    let expected = dump_rows(partitions);
    let total: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(total, expected.len(), "{name}: Arrow rows vs dump rows");
    let mut compared = 0;
    let mut rows = batches
        .iter()
        .flat_map(|b| (0..b.num_rows()).map(move |i| (b, i)));
    for (kind, p, r) in &expected {
        let (b, i) = rows.next().unwrap();
        let col = |n: &str| {
            b.column_by_name(n)
                .unwrap_or_else(|| panic!("{name}: no {n}"))
        };
        let at = format!(
            "{name} row at {}",
            r.map_or(p.partition.position, |r| r.position)
        );
        assert_eq!(col("_kind").as_string::<i32>().value(i), *kind, "{at}");
        assert_eq!(
            col("_position").as_primitive::<UInt64Type>().value(i),
            r.map_or(p.partition.position, |r| r.position),
            "{at}"
        );
        // Partition key columns.
        let key_names: Vec<String> = if schema.key_component_types.len() == 1 {
            vec!["partition_key".into()]
        } else {
            (0..schema.key_component_types.len())
                .map(|k| format!("partition_key_{k}"))
                .collect()
        };
        for ((n, t), text) in key_names
            .iter()
            .zip(&schema.key_component_types)
            .zip(&p.partition.key)
        {
            let bytes = encode(col(n), i, t).unwrap();
            assert_eq!(&format_value(t, &bytes).text, text, "{at}: {n}");
            compared += 1;
        }
        // Clustering columns.
        for (k, t) in schema.clustering_types.iter().enumerate() {
            let got =
                encode(col(&format!("clustering_{k}")), i, t).map(|b| format_value(t, &b).text);
            let want = r.and_then(|r| r.clustering.get(k).cloned().flatten());
            assert_eq!(got, want, "{at}: clustering_{k}");
            compared += 1;
        }
        // Static and regular columns.
        let is_static = *kind == "static";
        for c in schema.static_columns.iter().chain(&schema.regular_columns) {
            let column = col(&c.name);
            let cells: Vec<_> = r
                .filter(|_| c.is_static == is_static)
                .map(|r| r.cells.iter().filter(|x| x.name == c.name).collect())
                .unwrap_or_default();
            let live: Vec<_> = cells.iter().filter(|x| x.deletion_info.is_none()).collect();
            if !c.is_complex() {
                let got = if c.is_counter {
                    (!column.is_null(i))
                        .then(|| column.as_primitive::<Int64Type>().value(i).to_string())
                } else {
                    encode(column, i, &c.column_type).map(|b| format_value(&c.column_type, &b).text)
                };
                assert_eq!(
                    got,
                    live.first().and_then(|x| x.value.clone()),
                    "{at}: {}",
                    c.name
                );
                if cell_metadata {
                    let wt = col(&format!("{}__writetime", c.name));
                    let ttl = col(&format!("{}__ttl", c.name));
                    let ldt = col(&format!("{}__local_deletion_time", c.name));
                    let cell = cells.first();
                    assert_eq!(
                        (!wt.is_null(i)).then(|| iso8601_micros(
                            wt.as_primitive::<TimestampMicrosecondType>().value(i)
                        )),
                        // A cell without its own timestamp has the row's.
                        cell.and_then(|x| x.tstamp.clone().or_else(|| {
                            r.and_then(|r| r.liveness_info.as_ref())
                                .map(|l| l.tstamp.clone())
                        })),
                        "{at}: {} writetime",
                        c.name
                    );
                    assert_eq!(
                        (!ttl.is_null(i)).then(|| ttl.as_primitive::<Int32Type>().value(i)),
                        cell.and_then(|x| x.ttl),
                        "{at}: {} ttl",
                        c.name
                    );
                    let want_ldt = cell.and_then(|x| {
                        x.expires_at.clone().or_else(|| {
                            x.deletion_info
                                .as_ref()
                                .map(|d| d.local_delete_time.clone())
                        })
                    });
                    assert_eq!(
                        (!ldt.is_null(i)).then(|| iso8601_secs(
                            ldt.as_primitive::<TimestampSecondType>().value(i)
                        )),
                        want_ldt,
                        "{at}: {} local deletion time",
                        c.name
                    );
                }
                compared += 1;
                continue;
            }
            // Complex columns: (path, value) pairs rendered as the dump renders cells.
            let want: Vec<(Option<String>, Option<String>)> = live
                .iter()
                .map(|x| {
                    let path = match c.column_type.base() {
                        AbstractType::List { .. } => None,
                        _ => x.path.as_ref().and_then(|p| p.first().cloned()),
                    };
                    (path, x.value.clone())
                })
                .collect();
            let got = complex_cells(column, i, &c.column_type);
            assert_eq!(got, want, "{at}: {}", c.name);
            compared += want.len().max(1);
        }
    }
    compared
}

/// A non-frozen collection / UDT value as the dump's (path, value) cells.
fn complex_cells(
    column: &ArrayRef,
    row: usize,
    t: &AbstractType,
) -> Vec<(Option<String>, Option<String>)> {
    if column.is_null(row) {
        return Vec::new();
    }
    match t.base() {
        AbstractType::List { element, .. } => {
            let values = column.as_list::<i32>().value(row);
            (0..values.len())
                .map(|i| {
                    (
                        None,
                        encode(&values, i, element).map(|b| format_value(element, &b).text),
                    )
                })
                .collect()
        }
        AbstractType::Set { element, .. } => {
            let values = column.as_list::<i32>().value(row);
            (0..values.len())
                .map(|i| {
                    (
                        encode(&values, i, element).map(|b| format_cell_path(t, &b)),
                        None,
                    )
                })
                .collect()
        }
        AbstractType::Map { key, value, .. } => {
            let entries = column.as_map().value(row);
            (0..entries.len())
                .map(|i| {
                    (
                        encode(entries.column(0), i, key).map(|b| format_cell_path(t, &b)),
                        encode(entries.column(1), i, value).map(|b| format_value(value, &b).text),
                    )
                })
                .collect()
        }
        AbstractType::UserType { fields, .. } => {
            let s = column.as_struct();
            fields
                .iter()
                .enumerate()
                .filter_map(|(f, (_, ft))| {
                    let v = encode(s.column(f), row, ft)?;
                    Some((
                        Some(format_cell_path(t, &(f as u16).to_be_bytes())),
                        Some(format_value(ft, &v).text),
                    ))
                })
                .collect()
        }
        other => panic!("complex {other:?}"),
    }
}

#[test]
fn every_3_0_fixture_round_trips_through_parquet_as_dump_prints_it() {
    let Some(dir) = common::cassandra_fixtures("sstable-arrow roundtrip") else {
        return;
    };
    let paths: Vec<String> = common::files_under(&dir)
        .into_iter()
        .map(|rel| dir.join(rel).to_string_lossy().into_owned())
        .collect();
    let grouping = group_files(&paths);
    let mut sstables = 0;
    let mut values = 0;
    let mut rows = 0;
    for s in &grouping.sstables {
        if !s.descriptor.version.has_row_format() {
            continue;
        }
        let files = Files(
            s.files
                .iter()
                .map(|(c, i)| (c.clone(), std::fs::read(&paths[*i]).unwrap()))
                .collect(),
        );
        let data_name = format!(
            "{}-Data.db",
            Path::new(&s.prefix).file_name().unwrap().to_string_lossy()
        );
        let metadata = metadata_of(&data_name, &files);
        if metadata
            .statistics
            .as_ref()
            .and_then(|st| st.header.as_ref())
            .is_none()
            || DataFileReader::for_sstable(&metadata, DecodeOptions::default()).is_err()
        {
            // The invalid-legacy / corrupt fixtures that do not open as 3.0+ tables.
            continue;
        }
        let mut dump_files = Files(files.0.clone());
        let partitions = dump(&metadata, &mut dump_files);
        // Small batches, so that batch boundaries fall inside partitions.
        let options = RowOptions {
            batch_rows: 7,
            cell_metadata: true,
            mapping: TypeMapping::Nested,
        };
        let (batches, written) = export_and_read(&metadata, files, options);
        let n: usize = batches.iter().map(RecordBatch::num_rows).sum();
        assert_eq!(written, n.div_ceil(7), "{}: batches of 7 rows", s.prefix);
        values += compare(&s.prefix, &metadata, &batches, &partitions, true);
        rows += n;
        sstables += 1;
    }
    eprintln!("{sstables} SSTables, {rows} rows, {values} values compared");
    // MANIFEST.md: ma..oa have 8 tables each (4 for nb, nc, oa, da), all 3.0+.
    assert!(sstables >= 60, "only {sstables} 3.0+ SSTables exported");
    assert!(values > 10_000, "only {values} values compared");
}

/// One column of every type the writer and the mapping know, with literal values.
fn all_types() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    vec![
        ("a_ascii", "AsciiType", vec!["plain", ""]),
        ("a_bigint", "LongType", vec!["-9223372036854775808", "42"]),
        ("a_blob", "BytesType", vec!["0x00ff10", "0x"]),
        ("a_boolean", "BooleanType", vec!["true", "false"]),
        ("a_date", "SimpleDateType", vec!["2021-05-14", "1969-12-31"]),
        ("a_decimal", "DecimalType", vec!["123456789012345678901234567890.5", "-1E-7"]),
        ("a_double", "DoubleType", vec!["3.141592653589793", "-0.0"]),
        ("a_duration", "DurationType", vec!["1y2mo3d4h5m6s7ms8us9ns", "-2d"]),
        ("a_float", "FloatType", vec!["1.5", "NaN"]),
        ("a_inet", "InetAddressType", vec!["10.0.0.1", "2001:db8::1"]),
        ("a_int", "Int32Type", vec!["-2147483648", "7"]),
        ("a_smallint", "ShortType", vec!["-32768", "12"]),
        ("a_text", "UTF8Type", vec!["héllo, \"wörld\"\nline", ""]),
        ("a_time", "TimeType", vec!["23:59:59.999999999", "00:00:00.000000000"]),
        ("a_timestamp", "TimestampType", vec!["2021-05-14T10:06:20.251Z", "1900-01-01T00:00:00.000Z"]),
        ("a_timeuuid", "TimeUUIDType", vec!["d2177dd0-eaa2-11de-a572-001b779c76e3", "00000000-0000-1000-8000-000000000000"]),
        ("a_tinyint", "ByteType", vec!["-128", "127"]),
        ("a_uuid", "UUIDType", vec!["550e8400-e29b-41d4-a716-446655440000", "00000000-0000-0000-0000-000000000000"]),
        ("a_varint", "IntegerType", vec!["-123456789012345678901234567890", "0"]),
        ("f_list", "FrozenType(ListType(Int32Type))", vec!["[1, 2, 3]", "[]"]),
        ("f_map", "FrozenType(MapType(UTF8Type,DoubleType))", vec!["{'a': 1.5, 'b': -2}", "{}"]),
        ("f_set", "FrozenType(SetType(UUIDType))", vec!["{550e8400-e29b-41d4-a716-446655440000}", "{}"]),
        ("f_tuple", "TupleType(Int32Type,UTF8Type,TimestampType)", vec!["(1, 'x', '2021-05-14T10:06:20.251Z')", "(2, null, null)"]),
        ("f_udt", "FrozenType(UserType(ks,61646472657373,737472656574:UTF8Type,7a6970:Int32Type,74616773:FrozenType(ListType(UTF8Type))))", vec!["{street: 'Main', zip: 12345, tags: ['a', 'b']}", "{street: 'x', zip: null, tags: null}"]),
        ("f_nested", "FrozenType(MapType(Int32Type,FrozenType(ListType(FrozenType(SetType(IntegerType))))))", vec!["{1: [{1, 2}, {}], 2: []}", "{}"]),
        ("m_list", "ListType(UTF8Type)", vec!["[zeta, alpha]", "[one]"]),
        ("m_map", "MapType(Int32Type,DecimalType)", vec!["{1: 1.25, 2: -3}", "{7: 0}"]),
        ("m_set", "SetType(TimestampType)", vec!["{'2021-05-14T10:06:20.251Z', '2022-01-01T00:00:00.000Z'}", "{'1970-01-01T00:00:00.000Z'}"]),
        ("m_udt", "UserType(ks,61646472657373,737472656574:UTF8Type,7a6970:Int32Type)", vec!["{street: 'Main', zip: 1}", "{street: 'Side', zip: null}"]),
    ]
}

/// Writes the all-types table: partitions `p0`, `p1` with 2 rows each, every column set to
/// one of its literals (plus a row of nulls and a cell tombstone), and returns its files.
fn write_all_types(version: &str) -> (Files, Vec<(String, AbstractType)>) {
    let columns: Vec<(String, AbstractType)> = all_types()
        .into_iter()
        .map(|(n, t, _)| (n.to_owned(), parse_type(t).unwrap()))
        .collect();
    let schema = TableSchema::new(
        vec![AbstractType::Utf8],
        vec![AbstractType::Int32],
        vec![],
        columns
            .iter()
            .map(|(n, t)| ColumnDef::new(n.clone(), t.clone()))
            .collect(),
    )
    .unwrap();
    let ts = 1_700_000_000_000_000i64;
    let mut partitions = Vec::new();
    for p in 0..2 {
        let key = format!("p{p}").into_bytes();
        let mut unfiltereds = Vec::new();
        for r in 0..3i32 {
            let mut row = Row::new(vec![r.to_be_bytes().to_vec()]);
            row.liveness = Some(Liveness {
                timestamp_micros: ts,
                expiry: None,
            });
            if r < 2 {
                for (def_index, def) in schema.regular_columns().iter().enumerate() {
                    let literal = all_types()
                        .into_iter()
                        .find(|(n, _, _)| *n == def.name)
                        .map(|(_, _, v)| v[(p + r as usize) % 2])
                        .unwrap();
                    let t = &def.column_type;
                    if t.is_multi_cell() {
                        row.columns.push(ColumnData::Complex {
                            column: def_index,
                            deletion: ModelDeletion::LIVE,
                            cells: complex_model_cells(t, literal, ts),
                        });
                    } else {
                        let value = parse_value(t, literal).unwrap();
                        let mut cell = Cell::live(ts, value);
                        if def.name == "a_int" && r == 1 {
                            cell.value = sstable_engine::write::CellValue::Live {
                                value: cell.value_bytes().to_vec(),
                                expiry: Some(Expiry {
                                    ttl_secs: 3600,
                                    local_expiration_time_secs: 1_700_003_600,
                                }),
                            };
                        }
                        if def.name == "a_bigint" && r == 1 {
                            cell.value = sstable_engine::write::CellValue::Tombstone {
                                local_deletion_time_secs: 1_700_000_000,
                            };
                        }
                        row.columns.push(ColumnData::Simple {
                            column: def_index,
                            cell,
                        });
                    }
                }
            }
            unfiltereds.push(Unfiltered::Row(row));
        }
        partitions.push((key, unfiltereds));
    }
    let version = Version::parse(sstable_engine::Format::Big, version).unwrap();
    let mut options = WriteOptions::new(version);
    options.partitioner = sstable_engine::token::Partitioner::ByteOrdered;
    let mut writer = SSTableWriter::new(schema, options, MemorySink::default()).unwrap();
    for (key, unfiltereds) in partitions {
        writer
            .append(&Partition {
                key,
                deletion: ModelDeletion::LIVE,
                static_row: None,
                unfiltereds,
            })
            .unwrap();
    }
    let (sink, _) = writer.finish().unwrap();
    (Files(sink.files.into_iter().collect()), columns)
}

/// The cells of a non-frozen collection / UDT literal (sorted by path, as Cassandra stores them).
fn complex_model_cells(t: &AbstractType, literal: &str, ts: i64) -> Vec<Cell> {
    let frozen = t.clone().freeze();
    let bytes = parse_value(&frozen, literal).unwrap();
    let mut elements = Vec::new();
    let mut rest = &bytes[..];
    let take = |rest: &mut &[u8]| -> Option<Vec<u8>> {
        let len = i32::from_be_bytes(rest[..4].try_into().unwrap());
        *rest = &rest[4..];
        (len >= 0).then(|| {
            let v = rest[..len as usize].to_vec();
            *rest = &rest[len as usize..];
            v
        })
    };
    let mut cells: Vec<Cell> = match t.base() {
        AbstractType::UserType { fields, .. } => {
            for f in 0..fields.len() {
                if rest.is_empty() {
                    break;
                }
                if let Some(v) = take(&mut rest) {
                    elements.push(Cell::live(ts, v).with_path((f as u16).to_be_bytes().to_vec()));
                }
            }
            elements
        }
        other => {
            let count = i32::from_be_bytes(rest[..4].try_into().unwrap());
            rest = &rest[4..];
            for i in 0..count {
                let first = take(&mut rest).unwrap();
                match other {
                    AbstractType::List { .. } => {
                        // A timeuuid path that sorts in list order.
                        let mut path = [0u8; 16];
                        path[..4].copy_from_slice(&(i as u32).to_be_bytes());
                        path[6] = 0x10;
                        path[8] = 0x80;
                        elements.push(Cell::live(ts, first).with_path(path.to_vec()));
                    }
                    AbstractType::Set { .. } => {
                        elements.push(Cell::live(ts, Vec::new()).with_path(first))
                    }
                    AbstractType::Map { .. } => {
                        let v = take(&mut rest).unwrap();
                        elements.push(Cell::live(ts, v).with_path(first));
                    }
                    o => panic!("{o:?}"),
                }
            }
            elements
        }
    };
    let path_type = sstable_engine::write::schema::cell_path_type(t).unwrap_or(AbstractType::Short);
    cells.sort_by(|a, b| {
        sstable_engine::write::schema::compare_values(
            &path_type,
            a.path.as_deref().unwrap(),
            b.path.as_deref().unwrap(),
        )
    });
    cells
}

#[test]
fn a_generated_all_types_table_round_trips_exactly() {
    for version in ["nb", "oa"] {
        let (files, columns) = write_all_types(version);
        let metadata = metadata_of(&format!("{version}-1-big-Data.db"), &files);
        assert!(metadata.errors.is_empty(), "{:?}", metadata.errors);
        let mut dump_files = Files(files.0.clone());
        let partitions = dump(&metadata, &mut dump_files);
        let options = RowOptions {
            batch_rows: 4,
            cell_metadata: true,
            mapping: TypeMapping::Nested,
        };
        let (batches, _) = export_and_read(&metadata, files, options);
        let values = compare(version, &metadata, &batches, &partitions, true);
        assert!(values >= 6 * columns.len(), "{values}");
        // Each value equals the literal it was written from.
        let batch = arrow_select_concat(&batches);
        let keys = batch
            .column_by_name("partition_key")
            .unwrap()
            .as_string::<i32>();
        let cks = batch
            .column_by_name("clustering_0")
            .unwrap()
            .as_primitive::<Int32Type>();
        for row in 0..batch.num_rows() {
            let p: usize = keys.value(row)[1..].parse().unwrap();
            let r = cks.value(row) as usize;
            for (name, t, literals) in all_types() {
                let t = parse_type(t).unwrap();
                let column = batch.column_by_name(name).unwrap();
                let got = if t.is_multi_cell() {
                    // The gathered cells, as the frozen value.
                    encode(column, row, &t.clone().freeze())
                } else {
                    encode(column, row, &t)
                };
                let want = (r < 2)
                    .then(|| parse_value(&t.clone().freeze(), literals[(p + r) % 2]).unwrap());
                let want = if name == "a_bigint" && r == 1 {
                    None
                } else {
                    want
                };
                let frozen = t.clone().freeze();
                assert_eq!(
                    got.map(|b| format_value(&frozen, &b).text),
                    want.map(|b| format_value(&frozen, &b).text),
                    "{version} p{p} row {r}: {name}"
                );
            }
        }
        // UUID columns carry the extension name; timestamps are UTC milliseconds.
        let schema = batch.schema();
        let uuid = schema.field_with_name("a_uuid").unwrap();
        assert_eq!(
            uuid.metadata()
                .get("ARROW:extension:name")
                .map(String::as_str),
            Some("arrow.uuid")
        );
        assert_eq!(uuid.data_type(), &DataType::FixedSizeBinary(16));
        assert_eq!(
            schema.field_with_name("a_timestamp").unwrap().data_type(),
            &DataType::Timestamp(arrow_schema::TimeUnit::Millisecond, Some("UTC".into()))
        );
        let ttl = batch
            .column_by_name("a_int__ttl")
            .unwrap()
            .as_primitive::<Int32Type>();
        assert_eq!(
            (0..batch.num_rows())
                .filter(|&i| !ttl.is_null(i))
                .map(|i| ttl.value(i))
                .collect::<Vec<_>>(),
            vec![3600, 3600]
        );
    }
}

/// All batches as one (they share a schema).
fn arrow_select_concat(batches: &[RecordBatch]) -> RecordBatch {
    let schema = batches[0].schema();
    let columns: Vec<ArrayRef> = (0..schema.fields().len())
        .map(|c| {
            let arrays: Vec<&dyn Array> = batches.iter().map(|b| b.column(c).as_ref()).collect();
            arrow_select::concat::concat(&arrays).unwrap()
        })
        .collect();
    RecordBatch::try_new(Arc::clone(&schema), columns).unwrap()
}

#[test]
fn the_partitions_report_is_a_table_of_the_engine_figures() {
    let (files, _) = write_all_types("oa");
    let metadata = metadata_of("oa-1-big-Data.db", &files);
    let batches: Vec<RecordBatch> =
        sstable_arrow::PartitionBatchReader::new(&metadata, files, 1, NOW_SECS)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    assert_eq!(batches.len(), 2, "one batch of one partition each");
    let mut keys = BTreeMap::new();
    for b in &batches {
        let key = b
            .column_by_name("key")
            .unwrap()
            .as_string::<i32>()
            .value(0)
            .to_owned();
        let rows = b
            .column_by_name("rows")
            .unwrap()
            .as_primitive::<UInt64Type>()
            .value(0);
        let cells = b
            .column_by_name("cell_tombstones")
            .unwrap()
            .as_primitive::<UInt64Type>()
            .value(0);
        let ttl = b
            .column_by_name("ttl_cells")
            .unwrap()
            .as_primitive::<UInt64Type>()
            .value(0);
        keys.insert(key, (rows, cells, ttl));
    }
    // Each partition: 3 rows, one cell tombstone (a_bigint of row 1), one expiring cell
    // (a_int of row 1) that is expired at NOW_SECS.
    assert_eq!(keys.get("p0"), Some(&(3, 1, 0)));
    assert_eq!(keys.get("p1"), Some(&(3, 1, 0)));
}

/// A column subset (`RowBatchReader::with_columns`) gives exactly the full read's batches
/// projected to those columns, on every 3.0+ fixture: every other column, and only the last.
#[test]
fn a_column_subset_is_the_full_read_projected() {
    let Some(dir) = common::cassandra_fixtures("sstable-arrow column subset") else {
        return;
    };
    let paths: Vec<String> = common::files_under(&dir)
        .into_iter()
        .map(|rel| dir.join(rel).to_string_lossy().into_owned())
        .collect();
    let grouping = group_files(&paths);
    let options = RowOptions {
        batch_rows: 7,
        cell_metadata: true,
        mapping: TypeMapping::Nested,
    };
    let mut compared = 0;
    for s in &grouping.sstables {
        if !s.descriptor.version.has_row_format() {
            continue;
        }
        let files = Files(
            s.files
                .iter()
                .map(|(c, i)| (c.clone(), std::fs::read(&paths[*i]).unwrap()))
                .collect(),
        );
        let data_name = format!(
            "{}-Data.db",
            Path::new(&s.prefix).file_name().unwrap().to_string_lossy()
        );
        let metadata = metadata_of(&data_name, &files);
        let Ok(full) =
            RowBatchReader::new(&metadata, Files(files.0.clone()), options, Some(NOW_SECS))
        else {
            continue;
        };
        let Ok(full) = full.collect::<Result<Vec<_>, _>>() else {
            continue;
        };
        let Some(first) = full.first() else {
            continue;
        };
        let width = first.num_columns();
        for subset in [(0..width).step_by(2).collect::<Vec<_>>(), vec![width - 1]] {
            let part = RowBatchReader::with_columns(
                &metadata,
                Files(files.0.clone()),
                options,
                Some(NOW_SECS),
                Some(&subset),
            )
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
            let expected: Vec<RecordBatch> =
                full.iter().map(|b| b.project(&subset).unwrap()).collect();
            assert_eq!(part, expected, "{}: columns {subset:?}", s.prefix);
            compared += 1;
        }
    }
    eprintln!("{compared} subsets compared");
    assert!(compared >= 120, "{compared} subsets compared");
}

/// The merged read of a table of one SSTable (`MergedRowReader`: the merge's owned rows through
/// `RowBatcher::push_row` and `Cell::view`) gives exactly the batches the scan's views give
/// (`RowBatchReader`), every type, collection, TTL and null included; the `__token` column added
/// last holds each row's Murmur3 token, or null under another partitioner.
#[test]
fn the_merged_read_of_one_sstable_is_its_scan() {
    use sstable_arrow::{MergedRowReader, TOKEN_COLUMN};
    use sstable_engine::merge::{MergeInput, MergeOptions, TableMerger};
    use sstable_engine::token::Partitioner;
    for version in ["nb", "oa"] {
        let (files, _) = write_all_types(version);
        let metadata = metadata_of(&format!("{version}-1-big-Data.db"), &files);
        let options = RowOptions {
            batch_rows: 4,
            cell_metadata: true,
            mapping: TypeMapping::Nested,
        };
        let scanned =
            RowBatchReader::new(&metadata, Files(files.0.clone()), options, Some(NOW_SECS))
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
        let merged = |token: bool| {
            let input = MergeInput::for_sstable(
                "one",
                &metadata,
                DecodeOptions::at(NOW_SECS),
                Files(files.0.clone()),
            )
            .unwrap();
            let merge_options = MergeOptions {
                now_seconds: Some(NOW_SECS),
                explain: false,
            };
            let merger =
                TableMerger::new(vec![input], metadata.partitioner(), merge_options).unwrap();
            MergedRowReader::new(merger, metadata.partitioner(), options, None, token)
                .collect::<Result<Vec<_>, _>>()
                .unwrap()
        };
        assert!(scanned.len() > 1, "{version}");
        assert_eq!(merged(false), scanned, "{version}");
        let with_token = merged(true);
        for (b, s) in with_token.iter().zip(&scanned) {
            let width = s.num_columns();
            assert_eq!(b.num_columns(), width + 1);
            assert_eq!(b.schema().field(width).name(), TOKEN_COLUMN);
            let keys = s
                .column_by_name("partition_key")
                .unwrap()
                .as_string::<i32>();
            let tokens = b.column(width).as_primitive::<Int64Type>();
            for row in 0..b.num_rows() {
                // The key is text (`p0`, `p1`, …): its bytes are the key. A token only under
                // Murmur3 (this table is ByteOrdered: nulls; the CLI's sql tests read Murmur3).
                let want = match metadata.partitioner() {
                    Partitioner::Murmur3 => Some(sstable_engine::hash::murmur3_token(
                        keys.value(row).as_bytes(),
                    )),
                    _ => None,
                };
                let got = (!tokens.is_null(row)).then(|| tokens.value(row));
                assert_eq!(got, want, "{version} row {row}");
            }
        }
    }
}
