//! Scrub (`sstable_engine::scrub`): real fixtures rewritten as `nb` and `oa` must verify valid
//! and dump exactly as the originals (values, timestamps, TTLs, tombstones); a flipped byte in
//! one chunk loses exactly the partitions of that chunk; out-of-order, repeated and truncated
//! inputs give valid SSTables with the problem keys reported.

use crate::common;
use crate::common::legacy::{self, strip_positions, LEGACY_SCHEMAS};
use crate::common::sstables;

use std::collections::BTreeMap;
use std::path::Path;

use sstable_engine::checked_data::CheckedDataReader;
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{DataItem, DecodeOptions};
use sstable_engine::component::ComponentType;
use sstable_engine::compress::Compressor;
use sstable_engine::dump::PartitionBuilder;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::{SliceSource, SyncDriver};
use sstable_engine::scrub::{ProblemKind, ScrubMode, ScrubOptions, ScrubReport, Scrubber};
use sstable_engine::sstable_set::group_files;
use sstable_engine::verify::{Verdict, VerifyOptions, VerifyRun};
use sstable_engine::write::generate::{self, GenerateOptions};
use sstable_engine::write::MemorySink;
use sstable_engine::{Format, Version};

/// One SSTable's files in memory.
#[derive(Clone)]
struct SSTable {
    name: String,
    files: BTreeMap<ComponentType, Vec<u8>>,
    info: sstable_engine::sstable_set::SSTableFiles,
}

impl SSTable {
    fn from_named(name: &str, named: Vec<(String, Vec<u8>)>) -> SSTable {
        let names: Vec<String> = named.iter().map(|(n, _)| n.clone()).collect();
        let grouping = group_files(&names);
        assert_eq!(grouping.sstables.len(), 1, "{name}: {names:?}");
        let info = grouping.sstables.into_iter().next().unwrap();
        let files = info
            .files
            .iter()
            .map(|(c, i)| (c.clone(), named[*i].1.clone()))
            .collect();
        SSTable {
            name: name.to_string(),
            files,
            info,
        }
    }

    fn load(dir: &Path) -> SSTable {
        let names = common::files_under(dir);
        let named = names
            .iter()
            .map(|n| (n.clone(), std::fs::read(dir.join(n)).unwrap()))
            .collect();
        SSTable::from_named(&dir.display().to_string(), named)
    }

    fn from_sink(name: &str, version: &str, generation: usize, sink: &MemorySink) -> SSTable {
        let named = sink
            .files
            .iter()
            .map(|(c, b)| {
                (
                    format!("{version}-{generation}-big-{}", c.file_suffix()),
                    b.clone(),
                )
            })
            .collect();
        SSTable::from_named(name, named)
    }

    fn metadata(&self) -> SSTableMetadata {
        sstables::decode_components(
            &self.info.descriptor,
            self.files.iter().map(|(c, b)| (c, b.as_slice())),
        )
    }

    fn slices(&self) -> Vec<(ComponentType, &[u8])> {
        self.files
            .iter()
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect()
    }

    fn verdict(&self) -> Verdict {
        let m = self.metadata();
        assert!(m.errors.is_empty(), "{}: {:?}", self.name, m.errors);
        let mut run = VerifyRun::new(&m, VerifyOptions::default());
        let files = self.slices();
        let mut driver = SyncDriver::new(SliceSource { files: &files });
        let outcome = driver.run(&mut run, &NoClock);
        let r = run.finish(&self.name, outcome.err());
        assert!(r.valid || r.verdict != Verdict::Valid);
        r.verdict
    }

    /// Every partition as `dump --json` shows it, Data.db positions removed (they move).
    fn dump(&self) -> Vec<serde_json::Value> {
        let m = self.metadata();
        let mut reader = CheckedDataReader::for_sstable(&m, DecodeOptions::default()).unwrap();
        let schema = reader.reader().decoder().schema().clone();
        let files = self.slices();
        let mut driver = SyncDriver::new(SliceSource { files: &files });
        let mut builder = PartitionBuilder::new(None);
        let mut out = Vec::new();
        for item in driver.items(&mut reader, &NoClock) {
            let item: DataItem = item.unwrap();
            if let Some(p) = builder.push(&schema, &item) {
                let mut v = serde_json::to_value(&p).unwrap();
                strip_positions(&mut v);
                out.push(v);
            }
        }
        out
    }

    fn with_byte_flipped(&self, component: &ComponentType, at: usize) -> SSTable {
        let mut s = self.clone();
        s.files.get_mut(component).unwrap()[at] ^= 0x5a;
        s
    }
}

fn big(v: &str) -> Version {
    Version::parse(Format::Big, v).unwrap()
}

/// Scrubs `t` into memory sinks: the report and each output as an SSTable.
fn scrub(t: &SSTable, mode: ScrubMode, version: &str) -> (ScrubReport, Vec<SSTable>) {
    scrub_with(t, ScrubOptions::new(mode, big(version)))
}

fn scrub_with(t: &SSTable, options: ScrubOptions) -> (ScrubReport, Vec<SSTable>) {
    let version = options.version.as_str().to_string();
    let m = t.metadata();
    let originals = t.files.clone();
    let mut scrubber = Scrubber::new(&m, options, |_| Ok(MemorySink::default())).unwrap();
    let files = t.slices();
    let mut driver = SyncDriver::new(SliceSource { files: &files });
    driver.run(&mut scrubber, &NoClock).unwrap();
    assert!(scrubber.is_done());
    let outcome = scrubber.finish();
    assert!(outcome.abandoned.is_empty());
    assert_eq!(t.files, originals, "the input is never modified");
    let outputs = outcome
        .outputs
        .iter()
        .map(|(i, sink, _)| SSTable::from_sink(&format!("{} → {i}", t.name), &version, i + 2, sink))
        .collect();
    (outcome.report, outputs)
}

const ROW_FORMAT_VERSIONS: [&str; 10] =
    ["ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da"];

fn fixture_tables(fx: &Path, version: &str) -> Vec<SSTable> {
    let dir = fx
        .join("legacy-sstables")
        .join(version)
        .join("legacy_tables");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| SSTable::load(&dir.join(n)))
        .collect()
}

#[test]
fn every_row_format_fixture_rewritten_as_nb_and_oa_dumps_the_same_and_verifies() {
    let Some(fx) = common::cassandra_fixtures("scrub rewrite") else {
        return;
    };
    let mut rewritten = 0;
    for version in ROW_FORMAT_VERSIONS {
        for t in fixture_tables(&fx, version) {
            let original = t.dump();
            assert!(!original.is_empty(), "{}", t.name);
            for target in ["nb", "oa"] {
                let (report, outputs) = scrub(&t, ScrubMode::Skip, target);
                assert!(report.is_clean(), "{} as {target}: {report:#?}", t.name);
                assert_eq!(report.partitions_kept, original.len() as u64);
                assert_eq!(outputs.len(), 1);
                let out = &outputs[0];
                assert_eq!(out.verdict(), Verdict::Valid, "{} as {target}", t.name);
                let stats = |t: &SSTable| {
                    let s = t.metadata().statistics.unwrap().stats.unwrap();
                    (
                        s.has_legacy_counter_shards.value,
                        s.min_timestamp_micros.value,
                        s.max_timestamp_micros.value,
                    )
                };
                assert_eq!(stats(out), stats(&t), "{} as {target}: STATS", t.name);
                let dumped = out.dump();
                assert_eq!(dumped.len(), original.len(), "{} as {target}", t.name);
                for (a, b) in original.iter().zip(&dumped) {
                    assert_eq!(a, b, "{} as {target}", t.name);
                }
                rewritten += 1;
            }
        }
    }
    assert_eq!(rewritten, 130, "65 tables, each as nb and oa");
}

/// A generated table (known content) in 4 KiB chunks: every chunk holds several partitions.
fn generated(version: &str, compression: Option<Compressor>) -> SSTable {
    let mut options = GenerateOptions::new(big(version), 60, 12);
    options.compression = compression;
    options.chunk_kib = Some(4);
    options.ttl_fraction = 0.3;
    options.tombstone_fraction = 0.3;
    let g = generate::generate(&options, MemorySink::default()).unwrap();
    SSTable::from_sink("generated", version, 1, &g.sink)
}

/// The partition keys (hex) whose Data.db bytes `[start, end)` overlap `[from, to)`.
fn partitions_overlapping(t: &SSTable, from: u64, to: u64) -> Vec<String> {
    partition_spans(t)
        .into_iter()
        .filter(|(r, _)| (r.start as u64) < to && r.end as u64 > from)
        .map(|(_, k)| k)
        .collect()
}

/// Each partition's uncompressed Data.db range and key (hex), in Data.db order.
fn partition_spans(t: &SSTable) -> Vec<(std::ops::Range<usize>, String)> {
    let m = t.metadata();
    let mut reader = CheckedDataReader::for_sstable(&m, DecodeOptions::default()).unwrap();
    let files = t.slices();
    let mut driver = SyncDriver::new(SliceSource { files: &files });
    let mut spans = Vec::new();
    let mut start = (0, String::new());
    for item in driver.items(&mut reader, &NoClock) {
        match item.unwrap() {
            DataItem::PartitionStart(s) => {
                start = (
                    s.position as usize,
                    sstable_engine::span::hex(&s.key.bytes.bytes),
                )
            }
            DataItem::PartitionEnd(e) => {
                spans.push((start.0..e.position as usize + 1, start.1.clone()))
            }
            _ => {}
        }
    }
    spans
}

fn key_of(p: &serde_json::Value) -> String {
    p["partition"]["key_hex"].as_str().unwrap().to_string()
}

/// Flips one byte in compressed chunk `chunk`; the scrub must drop exactly the partitions that
/// overlap the chunk's uncompressed range, keep the others as they were, and verify valid.
fn check_flipped_chunk(t: &SSTable, chunk: usize, target: &str) {
    let m = t.metadata();
    let (stored, chunk_len) = match (&m.compression, &m.crc) {
        (Some(ci), _) => (
            ci.chunk_offsets[chunk] as usize + 7,
            u64::from(ci.chunk_length_bytes.value),
        ),
        // Uncompressed: the CRC.db chunk, stored as is.
        (None, Some(crc)) => {
            let size = u64::from(crc.chunk_size_bytes.value);
            (chunk * size as usize + 7, size)
        }
        (None, None) => panic!("nothing checks this Data.db"),
    };
    let (from, to) = (chunk as u64 * chunk_len, (chunk as u64 + 1) * chunk_len);
    let bad_keys = partitions_overlapping(t, from, to);
    assert!(!bad_keys.is_empty());
    let bad = t.with_byte_flipped(&ComponentType::Data, stored);
    let (report, outputs) = scrub(&bad, ScrubMode::Skip, target);
    assert!(report.data_checksums_checked);
    let named: Vec<String> = report
        .problems
        .iter()
        .map(|p| p.key_hex.clone().expect("key named"))
        .collect();
    assert_eq!(named, bad_keys, "{report:#?}");
    assert!(report.used_index);
    assert!(report
        .problems
        .iter()
        .all(|p| p.kind == ProblemKind::ChunkChecksum && p.end.is_some()));
    let out = &outputs[0];
    assert_eq!(out.verdict(), Verdict::Valid);
    let want: Vec<serde_json::Value> = t
        .dump()
        .into_iter()
        .filter(|p| !bad_keys.contains(&key_of(p)))
        .collect();
    let got: Vec<serde_json::Value> = out
        .dump()
        .into_iter()
        .filter(|p| !bad_keys.contains(&key_of(p)))
        .collect();
    assert_eq!(got.len(), want.len());
    assert_eq!(got, want);
    // A partition cut short keeps only rows it had.
    for p in report.problems.iter().filter(|p| p.is_cut_short()) {
        let kept = out
            .dump()
            .into_iter()
            .find(|d| Some(key_of(d)) == p.key_hex)
            .unwrap();
        let orig = t
            .dump()
            .into_iter()
            .find(|d| Some(key_of(d)) == p.key_hex)
            .unwrap();
        let (k, o) = (
            kept["rows"].as_array().unwrap(),
            orig["rows"].as_array().unwrap(),
        );
        // A range tombstone open at the cut is closed at the partition's end.
        let k = match k.split_last() {
            Some((last, head)) if !o.starts_with(k) => {
                assert_eq!(last["type"], "range_tombstone_bound", "{last}");
                assert_eq!(last["end"]["clustering"], serde_json::json!([]), "{last}");
                head
            }
            _ => k.as_slice(),
        };
        assert!(k.len() < o.len() && o.starts_with(k));
    }
    assert_eq!(
        report.partitions_kept as usize + bad_keys.len(),
        t.dump().len()
    );
}

#[test]
fn a_flipped_byte_in_a_generated_chunk_loses_exactly_that_chunks_partitions() {
    let t = generated("oa", Some(Compressor::Lz4));
    assert!(
        t.metadata()
            .compression
            .as_ref()
            .unwrap()
            .chunk_offsets
            .len()
            > 4
    );
    check_flipped_chunk(&t, 2, "nb");
    check_flipped_chunk(&t, 0, "oa");
}

#[test]
fn a_flipped_byte_in_a_crc_protected_chunk_loses_exactly_that_chunks_partitions() {
    let t = generated("nb", None);
    assert!(t.files.contains_key(&ComponentType::Crc));
    check_flipped_chunk(&t, 3, "oa");
    check_flipped_chunk(&t, 0, "nb");
}

#[test]
fn a_flipped_byte_in_a_fixture_chunk_loses_exactly_that_chunks_partitions() {
    let Some(fx) = common::cassandra_fixtures("scrub flipped fixture") else {
        return;
    };
    for (version, table) in [("nb", "legacy_nb_clust"), ("da", "legacy_da_clust")] {
        let t = SSTable::load(&common::legacy_dir(&fx, version, table));
        assert!(
            t.metadata()
                .compression
                .as_ref()
                .unwrap()
                .chunk_offsets
                .len()
                > 2
        );
        check_flipped_chunk(&t, 1, "oa");
    }
}

#[test]
fn a_bti_table_in_one_bad_chunk_reports_its_partitions_without_a_row_index_as_unnamed() {
    let Some(fx) = common::cassandra_fixtures("scrub da simple") else {
        return;
    };
    let t = SSTable::load(&common::legacy_dir(&fx, "da", "legacy_da_simple"));
    let n = t.dump().len() as u64;
    assert!(n > 1);
    let bad = t.with_byte_flipped(&ComponentType::Data, 3);
    let (report, outputs) = scrub(&bad, ScrubMode::Skip, "oa");
    assert!(outputs.is_empty(), "nothing is left to write");
    assert_eq!(report.problems.len(), 1, "{report:#?}");
    let p = &report.problems[0];
    assert_eq!(p.kind, ProblemKind::ChunkChecksum);
    assert_eq!(
        (p.start, p.end),
        (
            0,
            Some(t.metadata().compression.unwrap().data_length_bytes.value)
        )
    );
    assert!(p.key.is_none(), "its header is in the bad chunk");
    assert_eq!(p.unnamed_partitions, n, "every partition is counted");
}

#[test]
fn validate_reports_and_writes_nothing_abort_stops_at_the_first_problem() {
    let t = generated("nb", Some(Compressor::Lz4));
    let bad = t.with_byte_flipped(
        &ComponentType::Data,
        t.metadata().compression.unwrap().chunk_offsets[1] as usize + 3,
    );
    let (skip, _) = scrub(&bad, ScrubMode::Skip, "nb");
    let (validate, outputs) = scrub(&bad, ScrubMode::Validate, "nb");
    assert!(outputs.is_empty());
    assert_eq!(validate.problems.len(), skip.problems.len());
    assert_eq!(validate.partitions_kept, skip.partitions_kept);

    let m = bad.metadata();
    let options = ScrubOptions::new(ScrubMode::Abort, big("nb"));
    let mut scrubber = Scrubber::new(&m, options, |_| Ok(MemorySink::default())).unwrap();
    let files = bad.slices();
    SyncDriver::new(SliceSource { files: &files })
        .run(&mut scrubber, &NoClock)
        .unwrap();
    let outcome = scrubber.finish();
    assert!(outcome.outputs.is_empty());
    assert_eq!(outcome.abandoned.len(), 1);
    assert_eq!(outcome.report.problems.len(), 1);
    assert_eq!(outcome.report.problems[0].key_hex, skip.problems[0].key_hex);
    assert!(outcome.report.aborted.is_some());
}

/// A generated uncompressed table without CRC.db and Digest.crc32 (nothing checks its
/// Data.db, so its partitions can be moved), and each partition's Data.db range and key.
fn unchecked_generated() -> (SSTable, Vec<(std::ops::Range<usize>, String)>) {
    let mut t = generated("nb", None);
    t.files.remove(&ComponentType::Crc);
    t.files
        .retain(|c, _| !matches!(c, ComponentType::Digest(_)));
    let reader = CheckedDataReader::for_sstable(&t.metadata(), DecodeOptions::default()).unwrap();
    assert!(!reader.checks_every_read());
    let spans = partition_spans(&t);
    (t, spans)
}

/// `t` with Data.db rebuilt from the partitions `order` names.
fn reordered(t: &SSTable, spans: &[(std::ops::Range<usize>, String)], order: &[usize]) -> SSTable {
    let data = &t.files[&ComponentType::Data];
    let mut out = Vec::new();
    for &i in order {
        out.extend_from_slice(&data[spans[i].0.clone()]);
    }
    let mut s = t.clone();
    s.files.insert(ComponentType::Data, out);
    s
}

fn keys(dump: &[serde_json::Value]) -> Vec<String> {
    dump.iter().map(key_of).collect()
}

#[test]
fn out_of_order_and_repeated_partitions_are_dropped_by_skip_and_segregated_by_segregate() {
    let (t, spans) = unchecked_generated();
    let n = spans.len();
    assert!(n > 10);
    let original = t.dump();
    // 0, 1, 5, 2, 3, 4, 6, 6, 7, …: 2, 3 and 4 come after 5; 6 is repeated.
    let mut order = vec![0, 1, 5, 2, 3, 4, 6, 6];
    order.extend(7..n);
    let bad = reordered(&t, &spans, &order);

    let (skip, outputs) = scrub(&bad, ScrubMode::Skip, "oa");
    assert!(!skip.data_checksums_checked);
    assert!(!skip.is_clean());
    let reported: Vec<(String, ProblemKind)> = skip
        .problems
        .iter()
        .map(|p| (p.key_hex.clone().unwrap(), p.kind))
        .collect();
    assert_eq!(
        reported,
        vec![
            (spans[2].1.clone(), ProblemKind::OutOfOrder),
            (spans[3].1.clone(), ProblemKind::OutOfOrder),
            (spans[4].1.clone(), ProblemKind::OutOfOrder),
            (spans[6].1.clone(), ProblemKind::DuplicateKey),
        ]
    );
    assert!(skip.problems.iter().all(|p| p.segregated_to.is_none()));
    assert_eq!(skip.partitions_kept as usize, n - 3);
    assert_eq!(outputs.len(), 1);
    assert_eq!(outputs[0].verdict(), Verdict::Valid);
    let kept = outputs[0].dump();
    let want: Vec<serde_json::Value> = original
        .iter()
        .enumerate()
        .filter(|(i, _)| !(2..=4).contains(i))
        .map(|(_, p)| p.clone())
        .collect();
    assert_eq!(kept, want);

    let (seg, outputs) = scrub(&bad, ScrubMode::Segregate, "nb");
    assert_eq!(seg.problems.len(), 4);
    assert_eq!(
        seg.problems
            .iter()
            .map(|p| p.segregated_to)
            .collect::<Vec<_>>(),
        vec![Some(1); 4],
        "2, 3, 4 and the repeat of 6 are in key order: one second SSTable"
    );
    assert_eq!(outputs.len(), 2);
    for o in &outputs {
        assert_eq!(o.verdict(), Verdict::Valid, "{}", o.name);
    }
    assert_eq!(outputs[0].dump(), want);
    let mut second = original[2..=4].to_vec();
    second.push(original[6].clone());
    assert_eq!(keys(&outputs[1].dump()), keys(&second));
    assert_eq!(outputs[1].dump(), second);
}

#[test]
fn a_truncated_data_file_keeps_what_precedes_the_cut_and_reports_the_rest() {
    let (t, spans) = unchecked_generated();
    let n = spans.len();
    let original = t.dump();
    // Cut inside partition n − 3: it is cut short, the last two are listed past the end.
    let cut = spans[n - 3].0.start + (spans[n - 3].0.len() * 2 / 3);
    let mut bad = t.clone();
    bad.files
        .get_mut(&ComponentType::Data)
        .unwrap()
        .truncate(cut);
    for mode in [ScrubMode::Skip, ScrubMode::Segregate] {
        let (report, outputs) = scrub(&bad, mode, "oa");
        let reported: Vec<String> = report
            .problems
            .iter()
            .map(|p| p.key_hex.clone().unwrap())
            .collect();
        assert_eq!(
            reported,
            spans[n - 3..]
                .iter()
                .map(|s| s.1.clone())
                .collect::<Vec<_>>(),
            "{report:#?}"
        );
        assert!(report
            .problems
            .iter()
            .all(|p| p.kind == ProblemKind::Undecodable));
        assert!(report.problems[0].is_cut_short(), "{report:#?}");
        assert_eq!(report.partitions_kept as usize, n - 3);
        assert_eq!(outputs[0].verdict(), Verdict::Valid);
        let dumped = outputs[0].dump();
        assert_eq!(dumped[..n - 3], original[..n - 3]);
        assert_eq!(
            dumped.len(),
            n - 2,
            "the cut-short partition is kept in part"
        );
        let (kept, orig) = (
            dumped[n - 3]["rows"].as_array().unwrap(),
            original[n - 3]["rows"].as_array().unwrap(),
        );
        assert!(!kept.is_empty() && kept.len() < orig.len() && orig.starts_with(kept));
        let regular = kept.iter().filter(|r| r["type"] != "static_block").count();
        assert_eq!(report.problems[0].rows_kept as usize, regular);
    }
}

#[test]
fn a_large_table_scrubs_with_bounded_writer_buffers() {
    // ~8 MiB of Data.db in 2,000 partitions: the writer's working set stays at a chunk and a
    // partition, the scrubber holds one partition.
    let mut options = GenerateOptions::new(big("nb"), 2_000, 40);
    options.compression = Some(Compressor::Lz4);
    let g = generate::generate(&options, MemorySink::default()).unwrap();
    let t = SSTable::from_sink("large", "nb", 1, &g.sink);
    let data_len = g.summary.data_length;
    assert!(data_len > 4 << 20, "{data_len}");
    let m = t.metadata();
    let mut scrubber = Scrubber::new(&m, ScrubOptions::new(ScrubMode::Skip, big("oa")), |_| {
        Ok(sstable_engine::write::CountingSink::default())
    })
    .unwrap();
    let files = t.slices();
    SyncDriver::new(SliceSource { files: &files })
        .run(&mut scrubber, &NoClock)
        .unwrap();
    let outcome = scrubber.finish();
    assert!(outcome.report.is_clean());
    assert_eq!(outcome.report.partitions_kept, 2_000);
    let (_, sink, summary) = &outcome.outputs[0];
    // The same rows; each live partition deletion is 1 byte in oa instead of nb's 12.
    assert_eq!(summary.data_length, data_len - 11 * 2_000);
    assert!(sink.bytes[&ComponentType::Data] > 0);
    assert!(
        summary.max_buffered_bytes < 256 << 10,
        "{} bytes buffered for {data_len} bytes of Data.db",
        summary.max_buffered_bytes
    );
}

/// A 2.x table as `dump --schema` shows it (the atoms grouped into rows), positions removed.
fn legacy_dump(
    t: &SSTable,
    layout: &sstable_engine::component::legacy_data::LegacyLayout,
) -> Vec<serde_json::Value> {
    let mut out = legacy::legacy_dump(&t.metadata(), &t.slices(), layout, None);
    out.iter_mut().for_each(strip_positions);
    out
}

/// The 2.x fixture table `legacy_<v>_<suffix>` (`compact`: its `_compact` variant, `WITH
/// COMPACT STORAGE`) with the `CREATE TABLE` of `body`: its name, table, SSTable and dump.
fn legacy_fixture(
    fx: &Path,
    v: &str,
    suffix: &str,
    body: &str,
    compact: bool,
) -> (
    String,
    sstable_engine::cql_schema::CqlTable,
    SSTable,
    Vec<serde_json::Value>,
) {
    use sstable_engine::component::legacy_data::LegacyLayout;
    use sstable_engine::cql_schema::parse_create_table;
    let (name, options) = if compact {
        (
            format!("legacy_{v}_{suffix}_compact"),
            " WITH COMPACT STORAGE",
        )
    } else {
        (format!("legacy_{v}_{suffix}"), "")
    };
    let table = parse_create_table(&format!("CREATE TABLE {name} {body}{options}")).unwrap();
    let layout = LegacyLayout::from_cql(&table, compact).unwrap();
    let t = SSTable::load(&common::legacy_dir(fx, v, &name));
    let original = legacy_dump(&t, &layout);
    (name, table, t, original)
}

/// `t` (a 2.x fixture table) rewritten as `target` with the schema of its `CREATE TABLE`
/// (`compact`: `WITH COMPACT STORAGE`): the output, which must verify valid, and the count of
/// partitions written.
fn rewritten_legacy(
    name: &str,
    t: &SSTable,
    table: &sstable_engine::cql_schema::CqlTable,
    compact: bool,
    target: &str,
) -> (SSTable, u64) {
    use sstable_engine::scrub::{schema_from_cql, LegacyRewriter};
    let schema = schema_from_cql(table, compact).unwrap();
    let mut rw =
        LegacyRewriter::new(&t.metadata(), schema, big(target), MemorySink::default()).unwrap();
    let files = t.slices();
    SyncDriver::new(SliceSource { files: &files })
        .run(&mut rw, &NoClock)
        .unwrap();
    assert!(rw.is_done());
    let (sink, summary) = rw.finish().map_err(|(e, _)| e).unwrap();
    let out = SSTable::from_sink(&format!("{name} as {target}"), target, 2, &sink);
    assert_eq!(out.verdict(), Verdict::Valid, "{name} as {target}");
    (out, summary.partitions)
}

#[test]
fn every_non_compact_2x_fixture_rewritten_with_its_schema_dumps_the_same_and_verifies() {
    let Some(fx) = common::cassandra_fixtures("scrub 2.x rewrite") else {
        return;
    };
    let mut rewritten = 0;
    for v in ["jb", "ka", "la"] {
        for (suffix, body) in LEGACY_SCHEMAS {
            let (name, table, t, original) = legacy_fixture(&fx, v, suffix, body, false);
            assert!(!original.is_empty(), "{name}");
            for target in ["nb", "oa"] {
                let (out, partitions) = rewritten_legacy(&name, &t, &table, false, target);
                assert_eq!(partitions, original.len() as u64);
                let dumped = out.dump();
                assert_eq!(dumped.len(), original.len());
                for (a, b) in original.iter().zip(&dumped) {
                    assert_eq!(b, a, "{name} as {target}");
                }
                rewritten += 1;
            }
        }
    }
    assert_eq!(rewritten, 24);
}

/// Every COMPACT STORAGE 2.x fixture table (MANIFEST §3: the four schemas `WITH COMPACT
/// STORAGE`, 5 partitions "0".."4") rewritten as `nb` and `oa` with its `CREATE TABLE`: the
/// output verifies valid and dumps as the 2.x SSTable does with its compact layout — the simple
/// tables' `val` in each partition's static row behind 3.0's hidden clustering column
/// (`db/CompactTables.java`), the clust tables' 50 rows without a row marker.
#[test]
fn every_compact_2x_fixture_rewritten_with_its_schema_dumps_the_same_and_verifies() {
    let Some(fx) = common::cassandra_fixtures("scrub compact 2.x rewrite") else {
        return;
    };
    let mut rewritten = 0;
    for v in ["jb", "ka", "la"] {
        for (suffix, body) in LEGACY_SCHEMAS {
            let (name, table, t, original) = legacy_fixture(&fx, v, suffix, body, true);
            assert_eq!(original.len(), 5, "{name}");
            for p in &original {
                let rows = p["rows"].as_array().unwrap();
                if suffix.starts_with("simple") {
                    assert_eq!(rows.len(), 1, "{name}");
                    assert_eq!(rows[0]["type"], "static_block", "{name}");
                } else {
                    assert_eq!(rows.len(), 50, "{name}");
                    assert!(rows.iter().all(|r| r["liveness_info"].is_null()), "{name}");
                }
                for r in rows {
                    let cells = r["cells"].as_array().unwrap();
                    assert_eq!(cells.len(), 1, "{name}");
                    assert_eq!(cells[0]["name"], "val", "{name}");
                    let value = cells[0]["value"].as_str().unwrap();
                    match suffix {
                        "simple" => assert_eq!(value, "foo bar baz"),
                        "clust" => {
                            assert_eq!(value.len(), 128, "{name}");
                            assert!(value.bytes().all(|b| b.is_ascii_lowercase()), "{name}");
                        }
                        _ => assert_eq!(value, "1", "{name}"),
                    }
                }
            }
            for target in ["nb", "oa"] {
                let (out, partitions) = rewritten_legacy(&name, &t, &table, true, target);
                assert_eq!(partitions, 5);
                assert_eq!(out.dump(), original, "{name} as {target}");
                rewritten += 1;
            }
        }
    }
    assert_eq!(rewritten, 24);
}
