//! Loading one SSTable's metadata: which components are read whole, and decoding them together.
//!
//! | component | how it is read |
//! |---|---|
//! | TOC.txt, Statistics.db, CompressionInfo.db, Filter.db, Summary.db, Digest.*, CRC.db, Scylla.db | whole ([`reads_whole`]), through the byte-range protocol |
//! | Data.db, Index.db, Partitions.db, Rows.db | measured only; their readers ask for ranges later |
//!
//! [`MetadataLoader`] is a [`RangeReader`]: given the SSTable's files and their sizes, it asks for
//! each small component whole, records a failed read as an error of that component, and
//! [`MetadataLoader::finish`] decodes everything with [`decode_metadata`]. The CLI drives it with
//! [`crate::range::SyncDriver`] over positioned reads, the page with
//! [`crate::range::AsyncDriver`] over `Blob.slice`.

use crate::clock::Clock;
use crate::component::ComponentType;
use crate::descriptor::Descriptor;
use crate::error::{Error, Result};
use crate::metadata::{decode_metadata, reads_whole, ComponentInput, SSTableMetadata};
use crate::range::{ByteRange, RangeReader};

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
        };
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
        m
    }
}

impl RangeReader for MetadataLoader {
    fn next_read(&self) -> Option<ByteRange> {
        self.files
            .get(self.next)
            .map(|(c, size)| ByteRange::new(c.clone(), 0, *size))
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], _clock: &dyn Clock) -> Result<()> {
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
        self.read_errors
            .push(error.clone().in_component(range.component.clone()));
        self.next = self.next.saturating_add(1);
        self.skip_unread();
    }
}
