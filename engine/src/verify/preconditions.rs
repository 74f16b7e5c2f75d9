//! Whether the checks can run at all: the components they read, a chunk table Cassandra would
//! refuse to open (`io/compress/CompressionMetadata.java`), and findings about the chunk table.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::component::ComponentType;
use crate::compress::Compressor;
use crate::info::{ErrorReport, SSTableMetadata};
use crate::version::Format;

/// Why a check of this SSTable cannot run, in words: a component the checks read (Data.db,
/// CompressionInfo.db, CRC.db, Digest, Statistics.db) listed in TOC.txt but missing, one of them that does not decode, a chunk table Cassandra would refuse to
/// open, a Statistics.db that does not decode in full (its metadata CRCs then go unchecked).
pub fn unverifiable_reasons(m: &SSTableMetadata) -> Vec<String> {
    let mut out = Vec::new();
    // The components a check reads; a missing Summary.db, Index.db or Filter.db stops no check.
    for c in m.components.missing.iter().filter(|c| checked_component(c)) {
        out.push(format!("{c} is listed in TOC.txt but missing"));
    }
    let missing = |c: &ComponentType| m.components.missing.contains(c);
    if m.size_of(&ComponentType::Data).is_none() && !missing(&ComponentType::Data) {
        out.push("there is no Data.db".to_owned());
    }
    for e in &m.errors {
        let Some(c) = e.component() else { continue };
        let blocks = matches!(
            c,
            ComponentType::CompressionInfo
                | ComponentType::Crc
                | ComponentType::Digest(_)
                | ComponentType::Statistics
        );
        if blocks {
            out.push(format!("{c} does not decode: {e}"));
        }
    }
    match &m.statistics {
        None if !missing(&ComponentType::Statistics)
            && m.size_of(&ComponentType::Statistics).is_none() =>
        {
            out.push("there is no Statistics.db".to_owned());
        }
        _ => {}
    }
    if let Some(ci) = &m.compression {
        let chunk_len = u64::from(ci.chunk_length_bytes.value);
        let data_len = ci.data_length_bytes.value;
        let chunks = ci.chunk_offsets.len() as u64;
        if let Compressor::Unknown(name) = Compressor::from_class_name(&ci.compressor) {
            out.push(format!(
                "CompressionInfo.db names an unknown compressor {name:?}"
            ));
        }
        if chunk_len == 0 || !chunk_len.is_power_of_two() {
            out.push(format!(
                "CompressionInfo.db's chunk length {chunk_len} is not a positive power of two"
            ));
        } else {
            let expected = data_len.div_ceil(chunk_len);
            if chunks == 0 {
                out.push(
                    "CompressionInfo.db lists 0 chunks (Cassandra refuses such a file): no chunk can be checked"
                        .to_owned(),
                );
            } else if chunks != expected && chunks != expected.saturating_add(1) {
                // One extra chunk holding zero bytes is what Cassandra 3.0's writer leaves when
                // it flushes an empty buffer at close ([`extra_chunk_finding`]); readers never
                // reach it.
                out.push(format!(
                    "CompressionInfo.db lists {chunks} chunks, but {data_len} bytes in {chunk_len}-byte chunks make {expected}"
                ));
            }
        }
    } else if chunk_checksums_absent_without_toc(m) && m.digest.is_none() {
        // Without TOC.txt, the version says a chunk checksum file exists; with no digest
        // either, no check covers Data.db.
        out.push(
            "neither CompressionInfo.db nor CRC.db nor a Digest: no check covers Data.db"
                .to_owned(),
        );
    }
    out.dedup();
    out
}

/// An uncompressed Data.db with no CRC.db and no TOC.txt to say whether one was written
/// (directories copied without them), of a version whose writer writes one.
fn chunk_checksums_absent_without_toc(m: &SSTableMetadata) -> bool {
    m.compression.is_none()
        && m.size_of(&ComponentType::CompressionInfo).is_none()
        && m.size_of(&ComponentType::Crc).is_none()
        && m.size_of(&ComponentType::Data).is_some()
        && m.components.missing.is_empty()
        && m.toc.is_none()
        && (m.descriptor.format == Format::Bti || m.descriptor.version.as_str() >= "ja")
}

/// A finding for [`chunk_checksums_absent_without_toc`] when a Digest is there: the digest
/// covers every byte of Data.db, so the SSTable can be valid (Cassandra's own verifier calls it
/// so), but a corruption would be detected, not located.
pub(crate) fn missing_crc_db_finding(m: &SSTableMetadata) -> Option<ErrorReport> {
    (chunk_checksums_absent_without_toc(m) && m.digest.is_some()).then(|| ErrorReport {
        component: Some(ComponentType::Crc.file_suffix().to_owned()),
        offset: 0,
        message: "no CRC.db and no TOC.txt to list it: the Digest covers all of Data.db, so a \
                  corruption would be detected, not located"
            .to_owned(),
    })
}

/// A finding for a chunk table with one chunk more than the data needs: the empty chunk
/// Cassandra 3.0's `CompressedSequentialWriter` writes when it flushes an empty buffer at close
/// (its checksum is still checked).
pub(crate) fn extra_chunk_finding(m: &SSTableMetadata) -> Option<ErrorReport> {
    let ci = m.compression.as_ref()?;
    let chunk_len = u64::from(ci.chunk_length_bytes.value);
    if chunk_len == 0 || !chunk_len.is_power_of_two() {
        return None;
    }
    let expected = ci.data_length_bytes.value.div_ceil(chunk_len);
    let chunks = ci.chunk_offsets.len() as u64;
    (chunks == expected.saturating_add(1) && expected > 0).then(|| ErrorReport {
        component: Some(ComponentType::CompressionInfo.file_suffix().to_owned()),
        offset: ci.chunk_offsets_span.start.saturating_add(expected.saturating_mul(8)),
        message: format!(
            "chunk {expected} holds none of the {} data bytes: the empty chunk Cassandra's writer \
             appends when it flushes an empty buffer at close; its checksum is checked, nothing reads it",
            ci.data_length_bytes.value
        ),
    })
}

/// Whether a checksum check reads `c` (its expected values, or the bytes they cover).
pub(super) fn checked_component(c: &ComponentType) -> bool {
    matches!(
        c,
        ComponentType::Data
            | ComponentType::CompressionInfo
            | ComponentType::Crc
            | ComponentType::Digest(_)
            | ComponentType::Statistics
    )
}
