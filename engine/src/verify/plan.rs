//! Planning the checks from the decoded metadata: which layout Data.db has (compressed
//! chunks, CRC.db slices, or neither), the digest to compare, the Statistics.db metadata CRCs.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::component::compression_info::CompressionInfo;
use crate::component::crc::ChecksumType;
use crate::component::digest::{Digest, DigestValue};
use crate::component::statistics::Statistics;
use crate::component::ComponentType;
use crate::compress::Compressor;
use crate::info::SSTableMetadata;
use crate::version::{Format, Version};
use sha1::{Digest as _, Sha1};

use super::running_checksum::Running;
use super::{
    algorithm_name, blocking_errors, unverifiable_reasons, Check, CheckKind, CompressedPlan,
    CrcPlan, DigestExpected, DigestPlan, DigestState, Failure, FindingKind, Layout, PartitionRange,
    Timer, Verifier, VerifyInput, VerifyOptions, MAX_CHUNK_BYTES,
};

impl Verifier {
    pub fn new(input: VerifyInput<'_>, options: VerifyOptions) -> Verifier {
        let version = input.version;
        let file_len = input.data_file_len_bytes;
        let mut crc_check = None;
        let layout = if let Some(ci) = input.compression {
            Layout::Compressed(compressed_plan(ci, &version))
        } else if let Some(crc) = input.crc {
            let mut check = Check::new(
                ComponentType::Crc.file_suffix(),
                CheckKind::CrcDb,
                algorithm_name(crc.algorithm),
            );
            let chunk_size = u64::from(crc.chunk_size_bytes.value);
            let layout = if chunk_size == 0 {
                check.fail(Failure {
                    kind: FindingKind::CrcDb,
                    chunk: None,
                    offset: 0,
                    length: file_len,
                    expected: "a chunk size > 0".to_owned(),
                    actual: "0".to_owned(),
                    partitions: Vec::new(),
                    message: "CRC.db gives a chunk size of 0: its checksums cannot be placed"
                        .to_owned(),
                });
                Layout::Plain
            } else {
                Layout::Crc(CrcPlan {
                    chunk_size,
                    checksums: crc.checksums.clone(),
                    algorithm: crc.algorithm,
                })
            };
            crc_check = Some(check);
            layout
        } else {
            Layout::Plain
        };
        let chunk_check = match &layout {
            Layout::Compressed(p) => Some(Check::new(
                ComponentType::Data.file_suffix(),
                CheckKind::Chunk,
                algorithm_name(p.algorithm),
            )),
            _ => None,
        };
        let decompress_check = match &layout {
            Layout::Compressed(p) if options.decompress => Some(Check::new(
                ComponentType::Data.file_suffix(),
                CheckKind::Decompress,
                p.compressor.codec_name(),
            )),
            _ => None,
        };
        let digest = input.digest.map(|d| digest_plan(d, &layout));
        let metadata_check = input
            .statistics
            .filter(|_| version.has_metadata_checksum())
            .map(metadata_check);
        let statistics_covered = input
            .statistics
            .filter(|_| version.has_metadata_checksum())
            .map(|s| {
                s.checksums
                    .iter()
                    .flat_map(|c| c.covered.iter().copied())
                    .collect()
            })
            .unwrap_or_default();
        Verifier {
            file_len,
            pos: 0,
            range_end: file_len,
            split: None,
            layout,
            next_chunk: 0,
            partial: None,
            crc_slice: None,
            first_unlisted_chunk: None,
            digest,
            options,
            partitions: Vec::new(),
            chunk_check,
            crc_check,
            decompress_check,
            metadata_check,
            statistics_covered,
            checksum_time: Timer::default(),
            decompress_time: Timer::default(),
            digest_time: Timer::default(),
            carry: Vec::new(),
            out: Vec::new(),
            max_buffered: 0,
            finalized: false,
            errors: Vec::new(),
            unverified: Vec::new(),
            findings: Vec::new(),
        }
    }

    /// A verifier for a decoded SSTable, carrying its [`blocking_errors`] and
    /// [`unverifiable_reasons`] into the report; `None` when the SSTable has no Data.db.
    pub fn for_sstable(m: &SSTableMetadata, options: VerifyOptions) -> Option<Verifier> {
        let mut v = Verifier::new(VerifyInput::from_metadata(m)?, options);
        v.errors = blocking_errors(m);
        v.unverified = unverifiable_reasons(m);
        v.findings
            .extend(super::preconditions::extra_chunk_finding(m));
        v.findings
            .extend(super::preconditions::missing_crc_db_finding(m));
        Some(v)
    }

    /// Partition ranges in the uncompressed stream, so failures can name the partitions whose
    /// bytes they touch.
    pub fn with_partitions(mut self, mut partitions: Vec<PartitionRange>) -> Verifier {
        crate::sort::sort_by_key(&mut partitions, |p| (p.start, p.end));
        self.partitions = partitions;
        self
    }
}

pub(super) fn compressed_plan(ci: &CompressionInfo, version: &Version) -> CompressedPlan {
    let chunk_len = u64::from(ci.chunk_length_bytes.value);
    CompressedPlan {
        compressor: Compressor::from_class_name(&ci.compressor),
        chunk_len,
        data_len: ci.data_length_bytes.value,
        max_compressed: ci
            .max_compressed_length_bytes
            .as_ref()
            .map(|m| u64::from(m.value)),
        offsets: ci.chunk_offsets.clone(),
        algorithm: ChecksumType::for_compressed_chunks(version),
        over_uncompressed: version.format() == Format::Big
            && !version.is_dse()
            && version.as_str() < "jb",
        // Above every codec's worst case (LZ4 n + n/255 + 16, Snappy 32 + n + n/6, zlib
        // n + n/4096 + … + 13, zstd n + n/256 + …) and a na+ raw chunk padded to the chunk length.
        // At most MAX_CHUNK_BYTES of uncompressed chunk are trusted with memory.
        stored_limit_bytes: {
            let n = chunk_len.min(MAX_CHUNK_BYTES);
            n.saturating_add(n / 4).saturating_add(4096)
        },
    }
}

pub(super) fn digest_plan(d: &Digest, layout: &Layout) -> DigestPlan {
    let component = ComponentType::Digest(d.file_algorithm);
    let (state, expected, sum_type) = match &d.value {
        DigestValue::Sha1 { hex, .. } => (
            DigestState::Sha1(Sha1::new()),
            DigestExpected::Sha1(hex.value.clone()),
            None,
        ),
        DigestValue::Checksum(v) => {
            // The effective algorithm: Adler32 for a decimal value in a `Digest.sha1`.
            let t = d.checksum_type().unwrap_or(ChecksumType::Adler32);
            (
                DigestState::Sum(Running::new(t)),
                DigestExpected::Sum(v.value),
                Some(t),
            )
        }
    };
    let combine = match (sum_type, layout) {
        (Some(t), Layout::Compressed(p)) => !p.over_uncompressed && p.algorithm == t,
        (Some(t), Layout::Crc(p)) => p.algorithm == t,
        _ => false,
    };
    DigestPlan {
        state,
        expected,
        combine,
        check: Check::new(
            component.file_suffix(),
            CheckKind::Digest,
            sum_type.map_or("sha1", algorithm_name),
        ),
    }
}

/// The na+ metadata CRCs, as the Statistics decoder computed them.
pub(super) fn metadata_check(s: &Statistics) -> Check {
    let mut check = Check::new(
        ComponentType::Statistics.file_suffix(),
        CheckKind::Metadata,
        algorithm_name(ChecksumType::Crc32),
    );
    for c in &s.checksums {
        check.checked = check.checked.saturating_add(1);
        if c.ok {
            continue;
        }
        let offset = c.covered.first().map_or(c.stored.span.start, |s| s.start);
        let end = c.covered.last().map_or(offset, |s| s.end).max(offset);
        check.fail(Failure {
            kind: FindingKind::Metadata,
            chunk: None,
            offset,
            length: end.saturating_sub(offset),
            expected: c.stored.value.to_string(),
            actual: c.computed.to_string(),
            partitions: Vec::new(),
            message: format!(
                "CRC32 of the {} (Statistics.db {offset}..{end}), stored at {}: stored {:#010x}, computed {:#010x}",
                c.part, c.stored.span.start, c.stored.value, c.computed
            ),
        });
    }
    check
}
