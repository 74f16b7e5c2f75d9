//! Loading one SSTable's metadata: which components are read whole, and decoding them together.
//!
//! | component | how it is read |
//! |---|---|
//! | TOC.txt, Statistics.db, CompressionInfo.db, Filter.db, Summary.db, Digest.*, CRC.db, Scylla.db | whole ([`reads_whole`]), through the byte-range protocol |
//! | Partitions.db, Rows.db (BTI) | up to [`WHOLE_TRIE_BYTES`] whole: decoded as field trees ([`SSTableMetadata::trie_nodes`]) and the footer (partition count, first and last key, [`SSTableMetadata::partition_index_footer`]); a larger Partitions.db: its end, back to the first key, for the footer |
//! | Data.db, Index.db, a larger Rows.db or the rest of a larger Partitions.db | measured only; their readers ask for ranges later |
//!
//! [`MetadataLoader`] is a [`RangeReader`]: given the SSTable's files and their sizes, it asks for
//! each small component whole, records a failed read as an error of that component, and
//! [`MetadataLoader::finish`] decodes everything with [`decode_metadata`]. The CLI drives it with
//! [`crate::range::SyncDriver`] over positioned reads, the page with
//! [`crate::range::AsyncDriver`] over `Blob.slice`.

use crate::clock::Clock;
use crate::component::bti::partitions::{decode_footer, PartitionTarget};
use crate::component::bti::rows::decode_entry;
use crate::component::bti::trie::TrieBytes;
use crate::component::ComponentType;
use crate::descriptor::Descriptor;
use crate::error::{Error, Result};
use crate::metadata::{decode_metadata, reads_whole, ComponentInput, SSTableMetadata};
use crate::range::{ByteRange, RangeReader};
use crate::span::Node;
use crate::version::Format;

/// Partitions.db and Rows.db up to this size are read whole and decoded as field trees.
pub const WHOLE_TRIE_BYTES: u64 = 1 << 20;
/// Rows.db entries shown in its field tree.
const MAX_ROWS_ENTRIES_SHOWN: usize = 200;

/// Bytes of Partitions.db's end read first: the footer and, mostly, both keys.
const FOOTER_TAIL_BYTES: u64 = 4096;
/// The footer (3 × i64) and two keys of at most 65,535 bytes with their u16 lengths.
const FOOTER_MAX_BYTES: u64 = 24 + 2 * (2 + 65_535);

/// Reads and decodes the metadata components of one SSTable (see the module docs).
#[derive(Debug, Clone)]
pub struct MetadataLoader {
    descriptor: Descriptor,
    /// Every file of the SSTable and its size.
    files: Vec<(ComponentType, u64)>,
    contents: Vec<Option<Vec<u8>>>,
    /// The next file to look at.
    next: usize,
    read_errors: Vec<Error>,
    /// BTI: the Partitions.db range still to read for its footer.
    footer_read: Option<ByteRange>,
    footer: Option<Result<crate::component::bti::PartitionIndexFooter>>,
    /// BTI: the whole Partitions.db (and Rows.db) when small, read after the footer.
    whole_partitions: Option<Vec<u8>>,
    whole_rows: Option<Vec<u8>>,
    trie_reads: Vec<ByteRange>,
}

impl MetadataLoader {
    /// `files`: each component present and its size in bytes.
    pub fn new(descriptor: &Descriptor, files: Vec<(ComponentType, u64)>) -> MetadataLoader {
        let mut loader = MetadataLoader {
            descriptor: descriptor.clone(),
            contents: vec![None; files.len()],
            files,
            next: 0,
            read_errors: Vec::new(),
            footer_read: None,
            footer: None,
            whole_partitions: None,
            whole_rows: None,
            trie_reads: Vec::new(),
        };
        if descriptor.format == Format::Bti {
            let size = |c: ComponentType| {
                loader
                    .files
                    .iter()
                    .find(|(f, n)| *f == c && *n > 0)
                    .map(|&(_, n)| n)
            };
            match size(ComponentType::Partitions) {
                Some(n) if n <= WHOLE_TRIE_BYTES => {
                    loader
                        .trie_reads
                        .push(ByteRange::new(ComponentType::Partitions, 0, n));
                    if let Some(r) = size(ComponentType::Rows).filter(|&r| r <= WHOLE_TRIE_BYTES) {
                        loader
                            .trie_reads
                            .push(ByteRange::new(ComponentType::Rows, 0, r));
                    }
                }
                Some(n) => {
                    let len = n.min(FOOTER_TAIL_BYTES);
                    loader.footer_read = Some(ByteRange::new(
                        ComponentType::Partitions,
                        n.saturating_sub(len),
                        len,
                    ));
                }
                None => {}
            }
        }
        loader.skip_unread();
        loader
    }

    fn skip_unread(&mut self) {
        while self
            .files
            .get(self.next)
            .is_some_and(|(c, _)| !reads_whole(c))
        {
            self.next = self.next.saturating_add(1);
        }
    }

    /// Decodes what was read. A read that failed is an error of its component.
    pub fn finish(self) -> SSTableMetadata {
        let inputs: Vec<ComponentInput<'_>> = self
            .files
            .iter()
            .zip(&self.contents)
            .map(|((component, size), bytes)| ComponentInput {
                component,
                size_bytes: *size,
                bytes: bytes.as_deref(),
            })
            .collect();
        let mut m = decode_metadata(&self.descriptor, &inputs);
        m.errors.extend(self.read_errors);
        match self.footer {
            Some(Ok(f)) => m.partition_index_footer = Some(f),
            Some(Err(e)) => m.errors.push(e.in_component(ComponentType::Partitions)),
            None => {}
        }
        if let Some(bytes) = &self.whole_partitions {
            decode_tries(&mut m, bytes, self.whole_rows.as_deref());
        }
        m
    }

    /// The Partitions.db end just read: the footer, or the range back to its first key.
    fn supply_footer(&mut self, range: &ByteRange, bytes: &[u8]) {
        self.footer_read = None;
        let end = range.offset.saturating_add(bytes.len() as u64);
        let first_key_position = bytes
            .len()
            .checked_sub(24)
            .and_then(|at| bytes.get(at..at.saturating_add(8)))
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(u64::from_be_bytes);
        match first_key_position {
            Some(fk) if fk < range.offset && end.saturating_sub(fk) <= FOOTER_MAX_BYTES => {
                self.footer_read = Some(ByteRange::new(
                    range.component.clone(),
                    fk,
                    end.saturating_sub(fk),
                ));
            }
            _ => self.footer = Some(decode_footer(bytes, range.offset)),
        }
    }
}

impl RangeReader for MetadataLoader {
    fn next_read(&self) -> Option<ByteRange> {
        self.files
            .get(self.next)
            .map(|(c, size)| ByteRange::new(c.clone(), 0, *size))
            .or_else(|| self.trie_reads.first().cloned())
            .or_else(|| self.footer_read.clone())
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], _clock: &dyn Clock) -> Result<()> {
        if self.next >= self.files.len() {
            let take = usize::try_from(range.len).unwrap_or(usize::MAX);
            let bytes = bytes.get(..take).unwrap_or(bytes);
            if !self.trie_reads.is_empty() {
                self.trie_reads.remove(0);
                match range.component {
                    ComponentType::Rows => self.whole_rows = Some(bytes.to_vec()),
                    _ => self.whole_partitions = Some(bytes.to_vec()),
                }
                return Ok(());
            }
            self.supply_footer(range, bytes);
            return Ok(());
        }
        if let Some(slot) = self.contents.get_mut(self.next) {
            let take = usize::try_from(range.len).unwrap_or(usize::MAX);
            *slot = Some(bytes.get(..take).unwrap_or(bytes).to_vec());
        }
        self.next = self.next.saturating_add(1);
        self.skip_unread();
        Ok(())
    }

    /// A component that cannot be read is recorded and skipped; loading goes on.
    fn abort(&mut self, range: &ByteRange, error: &Error, _clock: &dyn Clock) {
        if self.next >= self.files.len() {
            if !self.trie_reads.is_empty() {
                self.trie_reads.remove(0);
                self.read_errors
                    .push(error.clone().in_component(range.component.clone()));
                return;
            }
            self.footer_read = None;
            self.footer = Some(Err(error.clone()));
            return;
        }
        self.read_errors
            .push(error.clone().in_component(range.component.clone()));
        self.next = self.next.saturating_add(1);
        self.skip_unread();
    }
}

/// A whole Partitions.db decoded (footer, every partition) and, beside it, the Rows.db entries its
/// payloads point at (at most [`MAX_ROWS_ENTRIES_SHOWN`]). A file that does not decode is an error
/// of its component.
fn decode_tries(m: &mut SSTableMetadata, partitions: &[u8], rows: Option<&[u8]>) {
    let index = match crate::component::bti::partitions::decode(partitions) {
        Ok(index) => index,
        Err(e) => {
            m.errors.push(e.in_component(ComponentType::Partitions));
            return;
        }
    };
    m.partition_index_footer = Some(index.footer.clone());
    m.trie_nodes
        .push((ComponentType::Partitions, index.to_node()));
    let with_row_index: Vec<u64> = index
        .entries
        .iter()
        .filter_map(|e| match e.payload.target {
            PartitionTarget::RowIndex { rows_position } => Some(rows_position),
            PartitionTarget::Data { .. } => None,
        })
        .collect();
    let rows_node = match rows {
        Some(bytes) => {
            let trie = TrieBytes::rows(bytes, 0);
            let children: Vec<Node> = with_row_index
                .iter()
                .take(MAX_ROWS_ENTRIES_SHOWN)
                .map(|&p| match decode_entry(&trie, p, &m.descriptor.version) {
                    Ok(e) => e.to_node(),
                    Err(e) => Node::new(
                        format!("entry at {p}"),
                        format!("does not decode: {e}"),
                        None,
                    ),
                })
                .collect();
            Node::new(
                "Rows.db",
                format!(
                    "{} partitions with a row index{}",
                    with_row_index.len(),
                    if with_row_index.len() > MAX_ROWS_ENTRIES_SHOWN {
                        format!(" (the first {MAX_ROWS_ENTRIES_SHOWN} shown)")
                    } else {
                        String::new()
                    }
                ),
                Some(crate::span::Span::new(0, bytes.len() as u64)),
            )
            .with_children(children)
        }
        None if m.size_of(&ComponentType::Rows) == Some(0) => Node::new(
            "Rows.db",
            "empty: no partition has a row index (every Partitions.db payload points into Data.db)",
            None,
        ),
        None => return,
    };
    m.trie_nodes.push((ComponentType::Rows, rows_node));
}
