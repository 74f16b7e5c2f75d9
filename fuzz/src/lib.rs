//! The engine's decoder entry points as fuzz targets, and a whole-SSTable driver with bounded
//! steps.
//!
//! One file, used three ways: by the `cargo fuzz` binaries in `fuzz_targets/` (through this
//! crate), and, through `#[path]`, by `engine/tests/fuzz_regressions.rs` (replays committed crash
//! inputs and runs ~100 random mutations per target under plain `cargo test`) and by
//! `engine/tests/sweep.rs` (the deterministic corruption sweep). It depends on `sstable_engine`
//! and `std` only.
//!
//! Inputs:
//! - component targets (`statistics`, `compression_info`, …): byte 0 picks the version from
//!   [`VERSIONS`], the rest is the component file;
//! - whole-SSTable targets (`data`, `lookup`, `verify`): [`SSTableInput`] — byte 0 picks the
//!   version, then records of (component code, u32 little-endian length, bytes); `cargo xtask
//!   fuzz` seeds them from the fixtures in this shape.
#![allow(dead_code)]

use sstable_engine::clock::NoClock;
use sstable_engine::component::bti::partitions::{self, PartitionTarget};
use sstable_engine::component::bti::rows::decode_row_index;
use sstable_engine::component::bti::TrieBytes;
use sstable_engine::component::data::{DataFileReader, DecodeOptions, DecodeStep};
use sstable_engine::component::index::{IndexFile, IndexStep};
use sstable_engine::component::statistics;
use sstable_engine::component::{
    compression_info, crc, digest, filter, scylla, summary, ComponentType, DigestAlgorithm,
};
use sstable_engine::descriptor::{parse_file_name, Descriptor};
use sstable_engine::info::{decode_metadata, reads_whole, ComponentInput, SSTableMetadata};
use sstable_engine::lookup::{Lookup, LookupResult};
use sstable_engine::range::{ByteRange, RangeReader};
use sstable_engine::toc::Toc;
use sstable_engine::verify::{VerifyOptions, VerifyReport, VerifyRun};
use sstable_engine::{Error, Format, Version};

/// The versions byte 0 of an input picks from (modulo the length).
pub const VERSIONS: [(Format, &str); 16] = [
    (Format::Big, "ic"),
    (Format::Big, "jb"),
    (Format::Big, "ka"),
    (Format::Big, "la"),
    (Format::Big, "ma"),
    (Format::Big, "mc"),
    (Format::Big, "me"),
    (Format::Big, "na"),
    (Format::Big, "nb"),
    (Format::Big, "nc"),
    (Format::Big, "oa"),
    (Format::Bti, "da"),
    (Format::Big, "ms"),
    (Format::Big, "aa"),
    (Format::Big, "bb"),
    (Format::Bti, "bb"),
];

/// The index in [`VERSIONS`] of `version`, for seeding inputs.
pub fn version_code(version: &Version) -> Option<u8> {
    VERSIONS
        .iter()
        .position(|(f, s)| *f == version.format() && *s == version.as_str())
        .and_then(|i| u8::try_from(i).ok())
}

fn split_version(data: &[u8]) -> (Version, &[u8]) {
    let (first, rest) = data.split_first().map_or((0, data), |(f, r)| (*f, r));
    let (format, letters) = VERSIONS[usize::from(first) % VERSIONS.len()];
    (
        Version::parse(format, letters).expect("valid version"),
        rest,
    )
}

/// A fuzz target: never panics, whatever the bytes.
pub type Target = fn(&[u8]);

/// Every target, by the name of its `fuzz_targets/` binary.
pub const TARGETS: [(&str, Target); 16] = [
    ("statistics", statistics_target),
    ("compression_info", compression_info_target),
    ("summary", summary_target),
    ("filter", filter_target),
    ("toc", toc_target),
    ("digest", digest_target),
    ("crc", crc_target),
    ("scylla", scylla_target),
    ("index", index_target),
    ("bti_partitions", bti_partitions_target),
    ("bti_rows", bti_rows_target),
    ("metadata", metadata_target),
    ("data", data_target),
    ("lookup", lookup_target),
    ("verify", verify_target),
    ("sstable", sstable_target),
];

/// The component a component target's input is a file of (for seeding its corpus).
pub fn target_component(target: &str) -> Option<&'static str> {
    Some(match target {
        "statistics" => "Statistics.db",
        "compression_info" => "CompressionInfo.db",
        "summary" => "Summary.db",
        "filter" => "Filter.db",
        "toc" => "TOC.txt",
        "digest" => "Digest.crc32",
        "crc" => "CRC.db",
        "scylla" => "Scylla.db",
        "index" => "Index.db",
        "bti_partitions" => "Partitions.db",
        "bti_rows" => "Rows.db",
        _ => return None,
    })
}

pub fn statistics_target(data: &[u8]) {
    let (v, b) = split_version(data);
    if let Ok(s) = statistics::decode(b, &v) {
        let _ = s.to_node();
    }
}

pub fn compression_info_target(data: &[u8]) {
    let (v, b) = split_version(data);
    if let Ok(c) = compression_info::decode(b, &v) {
        let _ = c.to_node();
        let _ = c.refusals(Some(b.len() as u64));
        for i in 0..c.chunk_offsets.len().min(64) {
            let _ = c.chunk_span(i, 1 << 20);
            let _ = c.chunk_uncompressed_len(i);
            let _ = c.is_chunk_stored_raw(i, 1 << 20);
        }
        let _ = c.chunk_for_position(u64::MAX / 2);
    }
}

pub fn summary_target(data: &[u8]) {
    let (v, b) = split_version(data);
    if let Ok(s) = summary::decode(b, &v) {
        let _ = s.to_node();
    }
}

pub fn filter_target(data: &[u8]) {
    let (v, b) = split_version(data);
    if let Ok(f) = filter::decode(b, &v) {
        let _ = f.to_node();
    }
}

pub fn toc_target(data: &[u8]) {
    let _ = Toc::parse(data);
}

pub fn digest_target(data: &[u8]) {
    let (v, b) = split_version(data);
    for algorithm in [
        DigestAlgorithm::Crc32,
        DigestAlgorithm::Adler32,
        DigestAlgorithm::Sha1,
    ] {
        if let Ok(d) = digest::decode(b, algorithm, &v) {
            let _ = d.to_node();
        }
    }
}

pub fn crc_target(data: &[u8]) {
    let (v, b) = split_version(data);
    if let Ok(c) = crc::decode(b, &v) {
        let _ = c.to_node();
    }
}

pub fn scylla_target(data: &[u8]) {
    if let Ok(s) = scylla::decode(data) {
        let _ = s.to_node();
    }
}

/// Every entry of a whole Index.db and its promoted index; at most `len + 1` steps.
pub fn index_target(data: &[u8]) {
    let (v, b) = split_version(data);
    let _ = list_index(b, v);
}

/// Lists a whole Index.db; `Err` on a decoding error, `Ok(entries)` otherwise.
pub fn list_index(bytes: &[u8], version: Version) -> Result<usize, Error> {
    let file = IndexFile::whole(bytes, version);
    let mut cursor = file.cursor(true);
    let mut entries = 0usize;
    for _ in 0..=bytes.len() {
        match cursor.next_step()? {
            IndexStep::Entry(e) => {
                entries += 1;
                file.promoted_index(&e)?;
            }
            IndexStep::NeedMoreBytes { .. } | IndexStep::End => return Ok(entries),
        }
    }
    panic!(
        "Index.db listing did not end within {} steps",
        bytes.len() + 1
    );
}

pub fn bti_partitions_target(data: &[u8]) {
    if let Ok(p) = partitions::decode(data) {
        let _ = p.to_node();
    }
}

/// Rows.db entries at the positions the first 8 bytes give (and at 0).
pub fn bti_rows_target(data: &[u8]) {
    let (v, b) = split_version(data);
    let trie = TrieBytes::rows(b, 0);
    let position = b
        .get(..8)
        .and_then(|p| <[u8; 8]>::try_from(p).ok())
        .map_or(0, u64::from_be_bytes)
        % (b.len() as u64 + 1);
    for p in [0, position] {
        if let Ok(ri) = decode_row_index(&trie, p, &v) {
            let _ = ri.to_node();
        }
    }
}

/// Lists a whole Partitions.db and each partition's Rows.db entry.
pub fn list_bti(partitions_db: &[u8], rows_db: &[u8], version: Version) -> Result<usize, Error> {
    let index = partitions::decode(partitions_db)?;
    let trie = TrieBytes::rows(rows_db, 0);
    for e in &index.entries {
        if let PartitionTarget::RowIndex { rows_position } = e.payload.target {
            decode_row_index(&trie, rows_position, &version)?;
        }
    }
    Ok(index.entries.len())
}

/// Component codes of [`SSTableInput`] records.
pub const COMPONENT_SUFFIXES: [&str; 14] = [
    "TOC.txt",
    "Statistics.db",
    "CompressionInfo.db",
    "Data.db",
    "Index.db",
    "Summary.db",
    "Filter.db",
    "Digest.crc32",
    "Digest.adler32",
    "Digest.sha1",
    "CRC.db",
    "Partitions.db",
    "Rows.db",
    "Scylla.db",
];

/// A whole SSTable in one fuzz input.
pub struct SSTableInput {
    pub descriptor: Descriptor,
    pub files: Vec<(ComponentType, Vec<u8>)>,
}

impl SSTableInput {
    /// Byte 0: version; then (component code, u32 LE length, bytes) records, the last one cut
    /// to the bytes left. Later records of a component replace earlier ones.
    pub fn parse(data: &[u8]) -> Option<SSTableInput> {
        let (version, mut rest) = split_version(data);
        let descriptor = descriptor_for(&version)?;
        let mut files: Vec<(ComponentType, Vec<u8>)> = Vec::new();
        while let Some((&code, after)) = rest.split_first() {
            let len = after
                .get(..4)
                .and_then(|l| <[u8; 4]>::try_from(l).ok())
                .map_or(0, u32::from_le_bytes) as usize;
            let body = after.get(4..).unwrap_or(&[]);
            let (bytes, next) = body.split_at(len.min(body.len()));
            let suffix = COMPONENT_SUFFIXES[usize::from(code) % COMPONENT_SUFFIXES.len()];
            let component = ComponentType::from_suffix(suffix);
            files.retain(|(c, _)| *c != component);
            files.push((component, bytes.to_vec()));
            rest = next;
        }
        Some(SSTableInput { descriptor, files })
    }

    /// The input bytes of `files` for `version` (the inverse of [`SSTableInput::parse`]).
    pub fn encode(version: &Version, files: &[(String, Vec<u8>)]) -> Option<Vec<u8>> {
        let mut out = vec![version_code(version)?];
        for (suffix, bytes) in files {
            let code = COMPONENT_SUFFIXES.iter().position(|s| s == suffix)?;
            out.push(u8::try_from(code).ok()?);
            out.extend_from_slice(&u32::try_from(bytes.len()).ok()?.to_le_bytes());
            out.extend_from_slice(bytes);
        }
        Some(out)
    }

    pub fn get(&self, component: &ComponentType) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(c, _)| c == component)
            .map(|(_, b)| b.as_slice())
    }

    pub fn metadata(&self) -> SSTableMetadata {
        let inputs: Vec<ComponentInput<'_>> = self
            .files
            .iter()
            .map(|(c, b)| ComponentInput {
                component: c,
                size_bytes: b.len() as u64,
                bytes: reads_whole(c).then_some(b.as_slice()),
            })
            .collect();
        decode_metadata(&self.descriptor, &inputs)
    }
}

/// A descriptor of generation 1 for `version` (its Data.db name parsed).
pub fn descriptor_for(version: &Version) -> Option<Descriptor> {
    let name = format!("{}-1-{}-Data.db", version.as_str(), version.format().name());
    parse_file_name(&name).ok().map(|(d, _)| d)
}

/// `len` bytes of `file` from `offset`, or fewer at its end (a short read), or an error past it.
fn read_range(file: &[u8], offset: u64, len: u64) -> Result<&[u8], ()> {
    let start = usize::try_from(offset).map_err(|_| ())?;
    let end = usize::try_from(offset.saturating_add(len))
        .unwrap_or(usize::MAX)
        .min(file.len());
    file.get(start..end.max(start)).ok_or(())
}

/// Reads a driver may make before it counts as a hang.
pub const MAX_STEPS: usize = 100_000;

/// What the entry points said about one SSTable.
#[derive(Debug, Default)]
pub struct Outcome {
    pub metadata_errors: usize,
    /// Data.db items decoded, or the error that stopped decoding.
    pub data: Option<Result<usize, Error>>,
    /// Index.db / Partitions.db entries listed, or the error.
    pub index: Option<Result<usize, Error>>,
    pub lookup: Option<LookupResult>,
    pub verify: Option<VerifyReport>,
}

/// Decodes every item of Data.db through the engine's reader (before 3.0, whose cells are not
/// decoded, the first partition header only).
pub fn decode_data(input: &SSTableInput, m: &SSTableMetadata) -> Option<Result<usize, Error>> {
    let data = input.get(&ComponentType::Data)?;
    let mut reader = match DataFileReader::for_sstable(m, DecodeOptions::default()) {
        Ok(r) => r,
        Err(e) => return Some(Err(e)),
    };
    let rows = sstable_engine::lookup::decodes_rows(&input.descriptor.version);
    let mut items = 0usize;
    for _ in 0..MAX_STEPS {
        match reader.next_item() {
            Ok(DecodeStep::Item(_)) if !rows => return Some(Ok(1)),
            Ok(DecodeStep::Item(_)) => items += 1,
            Ok(DecodeStep::Finished) => return Some(Ok(items)),
            Ok(DecodeStep::NeedMoreData) => {
                let range = reader.next_read()?;
                let Ok(bytes) = read_range(data, range.offset, range.len) else {
                    return Some(Ok(items));
                };
                if let Err(e) = reader.supply(&range, bytes, &NoClock) {
                    return Some(Err(e));
                }
            }
            Err(e) => return Some(Err(e)),
        }
    }
    panic!("Data.db decoding did not end within {MAX_STEPS} steps");
}

/// Lists the partition index (Index.db, or Partitions.db + Rows.db).
pub fn list_partition_index(input: &SSTableInput) -> Option<Result<usize, Error>> {
    let version = input.descriptor.version;
    match version.format() {
        Format::Big => Some(list_index(
            input.get(&ComponentType::PrimaryIndex)?,
            version,
        )),
        Format::Bti => Some(list_bti(
            input.get(&ComponentType::Partitions)?,
            input.get(&ComponentType::Rows).unwrap_or(&[]),
            version,
        )),
    }
}

/// Looks `key` up through the SSTable's read path, every read served from `input`.
pub fn lookup(input: &SSTableInput, m: &SSTableMetadata, key: &[u8]) -> LookupResult {
    let clock = NoClock;
    let mut lookup = Lookup::new(m, key.to_vec(), &clock);
    for _ in 0..MAX_STEPS {
        let Some(request) = RangeReader::next_read(&lookup) else {
            return lookup.into_result();
        };
        match input
            .get(&request.component)
            .ok_or(())
            .and_then(|f| read_range(f, request.offset, request.len))
        {
            Ok(bytes) => {
                let _ = RangeReader::supply(&mut lookup, &request, bytes, &clock);
            }
            Err(()) => RangeReader::abort(
                &mut lookup,
                &request,
                &Error::invalid("range not in the file", request.offset)
                    .in_component(request.component.clone()),
                &clock,
            ),
        }
    }
    panic!("lookup did not end within {MAX_STEPS} reads");
}

/// Verifies every checksum, reads served from `input`'s Data.db.
pub fn verify(input: &SSTableInput, m: &SSTableMetadata, decompress: bool) -> Option<VerifyReport> {
    let options = VerifyOptions {
        decompress,
        ..VerifyOptions::default()
    };
    let mut run = VerifyRun::new(m, options);
    for _ in 0..MAX_STEPS {
        let Some(request): Option<ByteRange> = run.next_read() else {
            return Some(run.finish("fuzz", None));
        };
        let read = input
            .get(&request.component)
            .ok_or(())
            .and_then(|f| read_range(f, request.offset, request.len));
        let Ok(bytes) = read else {
            let e = Error::invalid("range not in the file", request.offset)
                .in_component(request.component.clone());
            return Some(run.finish("fuzz", Some(e)));
        };
        if let Err(e) = run.supply(&request, bytes, &NoClock) {
            return Some(run.finish("fuzz", Some(e)));
        }
    }
    panic!("verification did not end within {MAX_STEPS} reads");
}

/// Every entry point over one SSTable.
pub fn run_sstable(input: &SSTableInput, key: &[u8]) -> Outcome {
    let m = input.metadata();
    for (_, node) in m.component_nodes() {
        let _ = node;
    }
    Outcome {
        metadata_errors: m.errors.len(),
        data: decode_data(input, &m),
        index: list_partition_index(input),
        lookup: Some(lookup(input, &m, key)),
        verify: verify(input, &m, true),
    }
}

pub fn metadata_target(data: &[u8]) {
    if let Some(input) = SSTableInput::parse(data) {
        let _ = input.metadata();
    }
}

pub fn data_target(data: &[u8]) {
    if let Some(input) = SSTableInput::parse(data) {
        let m = input.metadata();
        let _ = decode_data(&input, &m);
        let _ = list_partition_index(&input);
    }
}

pub fn lookup_target(data: &[u8]) {
    if let Some(input) = SSTableInput::parse(data) {
        let m = input.metadata();
        for key in [&b"1"[..], b"0", b"\x00\x00\x00\x01"] {
            let _ = lookup(&input, &m, key);
        }
    }
}

pub fn verify_target(data: &[u8]) {
    if let Some(input) = SSTableInput::parse(data) {
        let m = input.metadata();
        let _ = verify(&input, &m, false);
        let _ = verify(&input, &m, true);
    }
}

pub fn sstable_target(data: &[u8]) {
    if let Some(input) = SSTableInput::parse(data) {
        let _ = run_sstable(&input, b"1");
    }
}
