//! CRC.db: one checksum per chunk of an uncompressed Data.db, and the checksum algorithms
//! ([`ChecksumType`]) shared with the compressed-chunk and digest checks.
//!
//! | field | type | since |
//! |---|---|---|
//! | chunk size | i32 BE: Data.db bytes covered by each checksum (the writer's buffer size; 65536 typical) | 1.2 |
//! | checksums | u32 BE per chunk of Data.db, in file order, up to EOF; the last chunk may be shorter | 1.2 |
//!
//! The algorithm is not stored: Adler32 for `ka` and `la` (Cassandra 2.1/2.2,
//! `hasAllAdlerChecksums`), CRC32 before (`jb`, 2.0 — checked on the `jb/Keyspace1` fixture) and
//! from `ma` (3.0) on, `da` included. The file is written only when Data.db is not compressed.
//!
//! Src: `src/java/org/apache/cassandra/io/util/ChecksumWriter.java`,
//! `src/java/org/apache/cassandra/utils/ChecksumType.java`; on `cassandra-2.2` and `cassandra-2.0`:
//! `io/util/DataIntegrityMetadata.java` (`ChecksumValidator`) and `io/sstable/Descriptor.java`
//! (`hasAllAdlerChecksums`, `hasPostCompressionAdlerChecksums`).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::component::ComponentType;
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::{Format, Version};

/// At most this many array elements become children in [`CrcFile::to_node`].
const MAX_CHILD_NODES: usize = 100;

/// A 32-bit checksum algorithm (Cassandra's `ChecksumType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChecksumType {
    Crc32,
    Adler32,
}

impl ChecksumType {
    /// The algorithm of CRC.db for `version`: Adler32 for ka/la, CRC32 otherwise.
    pub fn for_crc_component(version: &Version) -> ChecksumType {
        if has_all_adler_checksums(version) {
            ChecksumType::Adler32
        } else {
            ChecksumType::Crc32
        }
    }

    /// The algorithm of the 4-byte checksum after each compressed Data.db chunk: Adler32 for
    /// jb…la (2.0.1–2.2), CRC32 from ma on. Before jb the CRC32 covered the *uncompressed* chunk.
    pub fn for_compressed_chunks(version: &Version) -> ChecksumType {
        let jb_to_la =
            version.format() == Format::Big && version.as_str() >= "jb" && version.uses_adler32();
        if jb_to_la {
            ChecksumType::Adler32
        } else {
            ChecksumType::Crc32
        }
    }

    /// The checksum of `bytes`.
    pub fn checksum(self, bytes: &[u8]) -> u32 {
        let mut c = self.checksummer();
        c.update(bytes);
        c.finish()
    }

    /// An incremental checksum, for data that arrives in ranges.
    pub fn checksummer(self) -> Checksummer {
        Checksummer {
            state: match self {
                ChecksumType::Crc32 => State::Crc32(crc32fast::Hasher::new()),
                ChecksumType::Adler32 => State::Adler32(adler32::RollingAdler32::new()),
            },
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ChecksumType::Crc32 => "CRC32",
            ChecksumType::Adler32 => "Adler32",
        }
    }
}

/// ka and la (2.1, 2.2) use Adler32 for CRC.db and digests (2.x `hasAllAdlerChecksums`).
fn has_all_adler_checksums(version: &Version) -> bool {
    version.has_repaired_at() && version.uses_adler32()
}

/// An in-progress checksum; feed it with [`Checksummer::update`].
#[derive(Clone)]
pub struct Checksummer {
    state: State,
}

#[derive(Clone)]
enum State {
    Crc32(crc32fast::Hasher),
    Adler32(adler32::RollingAdler32),
}

impl Checksummer {
    pub fn update(&mut self, bytes: &[u8]) {
        match &mut self.state {
            State::Crc32(h) => h.update(bytes),
            State::Adler32(h) => h.update_buffer(bytes),
        }
    }

    pub fn finish(self) -> u32 {
        match self.state {
            State::Crc32(h) => h.finalize(),
            State::Adler32(h) => h.hash(),
        }
    }
}

impl core::fmt::Debug for Checksummer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let name = match self.state {
            State::Crc32(_) => "Crc32",
            State::Adler32(_) => "Adler32",
        };
        f.debug_struct("Checksummer").field("type", &name).finish()
    }
}

/// A decoded CRC.db.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrcFile {
    /// The algorithm implied by the version (not stored in the file).
    pub algorithm: ChecksumType,
    /// Data.db bytes per checksum.
    pub chunk_size_bytes: Spanned<u32>,
    /// One checksum per chunk; checksum `i` is at [`CrcFile::checksum_span`]`(i)`.
    pub checksums: Vec<u32>,
    /// The bytes of the checksum array.
    pub checksums_span: Span,
    /// 1–3 bytes after the last whole checksum, if any.
    pub trailing: Option<Span>,
    /// Suspicious values (decoding went on).
    pub warnings: Vec<String>,
    /// The whole file.
    pub span: Span,
}

/// Decodes a whole CRC.db.
pub fn decode(bytes: &[u8], version: &Version) -> Result<CrcFile> {
    let mut r = Reader::new(bytes, 0).for_component(ComponentType::Crc);
    let mut warnings = Vec::new();
    let chunk_size_bytes = r.spanned(|r| r.u32("CRC.db chunk size"))?;
    if chunk_size_bytes.value == 0 || chunk_size_bytes.value > i32::MAX as u32 {
        warnings.push(format!(
            "chunk size {} is not a positive 32-bit int",
            chunk_size_bytes.value as i32
        ));
    }
    let checksums_start = r.offset();
    let count = r.remaining_bytes() / 4;
    let mut checksums = Vec::with_capacity(count);
    for _ in 0..count {
        checksums.push(r.u32("CRC.db chunk checksum")?);
    }
    let checksums_span = r.span_from(checksums_start);
    let trailing = if r.is_empty() {
        None
    } else {
        let t = Span::new(
            r.offset(),
            r.offset().saturating_add(r.remaining_bytes() as u64),
        );
        warnings.push(format!(
            "{} trailing bytes after the last checksum (not a whole u32)",
            t.len_bytes()
        ));
        Some(t)
    };
    if checksums.is_empty() {
        warnings.push("no chunk checksums (an empty Data.db?)".to_owned());
    }
    Ok(CrcFile {
        algorithm: ChecksumType::for_crc_component(version),
        chunk_size_bytes,
        checksums,
        checksums_span,
        trailing,
        warnings,
        span: Span::new(0, bytes.len() as u64),
    })
}

impl CrcFile {
    /// The bytes of checksum `i`.
    pub fn checksum_span(&self, i: usize) -> Option<Span> {
        if i >= self.checksums.len() {
            return None;
        }
        let start = self
            .checksums_span
            .start
            .checked_add((i as u64).checked_mul(4)?)?;
        Some(Span::new(start, start.checked_add(4)?))
    }

    /// How many checksums a Data.db of `data_file_len` bytes needs (`None` when the chunk size is 0).
    pub fn expected_chunk_count(&self, data_file_len: u64) -> Option<u64> {
        let size = u64::from(self.chunk_size_bytes.value);
        if size == 0 {
            return None;
        }
        Some(data_file_len.div_ceil(size))
    }

    /// The Data.db byte range `[start, end)` that checksum `i` covers, or `None` when chunk `i`
    /// starts at or after the end of a `data_file_len`-byte Data.db.
    pub fn chunk_range(&self, i: usize, data_file_len: u64) -> Option<(u64, u64)> {
        let size = u64::from(self.chunk_size_bytes.value);
        let start = (i as u64).checked_mul(size)?;
        if size == 0 || start >= data_file_len {
            return None;
        }
        Some((start, start.saturating_add(size).min(data_file_len)))
    }

    /// Compares the stored checksums with those of `data` (the whole Data.db); returns one
    /// message per mismatch or count difference (empty when everything matches).
    pub fn verify(&self, data: &[u8]) -> Vec<String> {
        let mut findings = Vec::new();
        let len = data.len() as u64;
        if let Some(expected) = self.expected_chunk_count(len) {
            if expected != self.checksums.len() as u64 {
                findings.push(format!(
                    "{} checksums stored, a {len}-byte Data.db has {expected} chunks",
                    self.checksums.len()
                ));
            }
        }
        for (i, &stored) in self.checksums.iter().enumerate() {
            let Some((start, end)) = self.chunk_range(i, len) else {
                break;
            };
            let chunk = usize::try_from(start)
                .ok()
                .zip(usize::try_from(end).ok())
                .and_then(|(s, e)| data.get(s..e));
            let Some(chunk) = chunk else { break };
            let actual = self.algorithm.checksum(chunk);
            if actual != stored {
                findings.push(format!(
                    "chunk {i} (Data.db {start}..{end}): stored {} {stored:#010x}, computed {actual:#010x}",
                    self.algorithm.name()
                ));
            }
        }
        findings
    }

    /// The labelled field tree for the UI.
    pub fn to_node(&self) -> Node {
        let mut children = vec![
            Node::new("algorithm", self.algorithm.name(), None),
            Node::new(
                "chunk size",
                format!("{} bytes", self.chunk_size_bytes.value),
                Some(self.chunk_size_bytes.span),
            ),
        ];
        let sums = Node::capped_list(
            &self.checksums,
            MAX_CHILD_NODES,
            "checksums",
            || {
                self.checksum_span(MAX_CHILD_NODES)
                    .map(|s| Span::new(s.start, self.checksums_span.end))
            },
            |(i, c)| {
                Node::new(
                    format!("chunk {i}"),
                    format!("{c:#010x}"),
                    self.checksum_span(i),
                )
            },
        );
        children.push(
            Node::new(
                "checksums",
                format!("{} × u32", self.checksums.len()),
                Some(self.checksums_span),
            )
            .with_children(sums),
        );
        if let Some(t) = self.trailing {
            children.push(Node::new(
                "trailing bytes",
                format!("{} bytes", t.len_bytes()),
                Some(t),
            ));
        }
        push_warnings(&mut children, &self.warnings);
        Node::new(
            "CRC.db",
            format!(
                "{} checksums of {}",
                self.checksums.len(),
                self.algorithm.name()
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

/// Appends a "warnings" node when there are any (shared by the small-component modules).
pub(crate) fn push_warnings(children: &mut Vec<Node>, warnings: &[String]) {
    if warnings.is_empty() {
        return;
    }
    children.push(
        Node::new("warnings", warnings.len().to_string(), None).with_children(
            warnings
                .iter()
                .enumerate()
                .map(|(i, w)| Node::new(format!("warning {i}"), w.clone(), None))
                .collect(),
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::test_support::big;

    #[test]
    fn algorithm_follows_the_version() {
        assert_eq!(
            ChecksumType::for_crc_component(&big("jb")),
            ChecksumType::Crc32
        );
        assert_eq!(
            ChecksumType::for_crc_component(&big("ka")),
            ChecksumType::Adler32
        );
        assert_eq!(
            ChecksumType::for_crc_component(&big("la")),
            ChecksumType::Adler32
        );
        assert_eq!(
            ChecksumType::for_crc_component(&big("ma")),
            ChecksumType::Crc32
        );
        let da = Version::parse(Format::Bti, "da").unwrap();
        assert_eq!(ChecksumType::for_crc_component(&da), ChecksumType::Crc32);
        assert_eq!(
            ChecksumType::for_compressed_chunks(&big("ic")),
            ChecksumType::Crc32
        );
        assert_eq!(
            ChecksumType::for_compressed_chunks(&big("jb")),
            ChecksumType::Adler32
        );
        assert_eq!(
            ChecksumType::for_compressed_chunks(&big("la")),
            ChecksumType::Adler32
        );
        assert_eq!(
            ChecksumType::for_compressed_chunks(&big("ma")),
            ChecksumType::Crc32
        );
        assert_eq!(
            ChecksumType::for_compressed_chunks(&da),
            ChecksumType::Crc32
        );
    }

    #[test]
    fn known_checksums() {
        assert_eq!(ChecksumType::Crc32.checksum(b"123456789"), 0xcbf4_3926);
        assert_eq!(ChecksumType::Adler32.checksum(b"Wikipedia"), 0x11e6_0398);
        let mut c = ChecksumType::Adler32.checksummer();
        c.update(b"Wiki");
        c.update(b"pedia");
        assert_eq!(c.finish(), 0x11e6_0398);
    }

    #[test]
    fn decodes_chunks_and_ranges() {
        let data: Vec<u8> = (0..10u8).collect();
        let mut file = 4u32.to_be_bytes().to_vec();
        for chunk in data.chunks(4) {
            file.extend_from_slice(&crc32fast::hash(chunk).to_be_bytes());
        }
        let crc = decode(&file, &big("nb")).unwrap();
        assert_eq!(crc.chunk_size_bytes.value, 4);
        assert_eq!(crc.chunk_size_bytes.span, Span::new(0, 4));
        assert_eq!(crc.checksums.len(), 3);
        assert_eq!(crc.checksum_span(2), Some(Span::new(12, 16)));
        assert_eq!(crc.checksum_span(3), None);
        assert_eq!(crc.chunk_range(2, 10), Some((8, 10)));
        assert_eq!(crc.chunk_range(3, 10), None);
        assert_eq!(crc.expected_chunk_count(10), Some(3));
        assert!(crc.verify(&data).is_empty());
        let mut bad = data.clone();
        bad[5] ^= 1;
        let findings = crc.verify(&bad);
        assert_eq!(findings.len(), 1);
        assert!(findings[0].starts_with("chunk 1 "), "{findings:?}");
        assert!(crc.warnings.is_empty());
        assert_eq!(crc.to_node().find_at(13).unwrap().label, "chunk 2");
    }

    #[test]
    fn odd_files_give_findings_or_errors() {
        let e = decode(&[0, 1], &big("nb")).unwrap_err();
        assert_eq!(e.offset(), 0);
        assert_eq!(e.component(), Some(&ComponentType::Crc));
        let crc = decode(&[0, 0, 0, 0, 1, 2, 3, 4, 5], &big("ka")).unwrap();
        assert_eq!(crc.algorithm, ChecksumType::Adler32);
        assert_eq!(crc.trailing, Some(Span::new(8, 9)));
        assert_eq!(crc.warnings.len(), 2, "{:?}", crc.warnings);
        assert_eq!(crc.expected_chunk_count(100), None);
        assert_eq!(crc.chunk_range(0, 100), None);
        let many: Vec<u8> = [0, 0, 0, 1].into_iter().chain([0u8; 4 * 150]).collect();
        let node = decode(&many, &big("ma")).unwrap().to_node();
        let sums = node
            .children
            .iter()
            .find(|n| n.label == "checksums")
            .unwrap();
        assert_eq!(sums.children.len(), MAX_CHILD_NODES + 1);
    }
}
