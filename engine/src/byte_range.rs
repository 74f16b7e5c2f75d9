//! The vocabulary of the one byte-range protocol (its drivers and shared readers are in
//! [`crate::range`]): the [`ByteRange`] a reader needs next, the [`RangeReader`] that names it
//! and is handed its bytes, the [`PullReader`] whose items are pulled, and the [`RangeSource`]
//! a sync driver reads from. Every streaming reader, Data.db's included, implements it; it
//! imports nothing but names, errors and the clock, so any layer may.

use serde::Serialize;

use crate::clock::Clock;
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};

/// A byte range of one component file: what a reader needs next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ByteRange {
    pub component: ComponentType,
    /// Absolute offset in the component file (Data.db: the physical file).
    pub offset: u64,
    pub len: u64,
}

impl ByteRange {
    pub fn new(component: ComponentType, offset: u64, len: u64) -> ByteRange {
        ByteRange {
            component,
            offset,
            len,
        }
    }

    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.len)
    }

    /// The length as a `usize` (32 bits on wasm32), or an error naming the range.
    pub fn len_usize(&self) -> Result<usize> {
        usize::try_from(self.len).map_err(|_| {
            Error::invalid(
                format!("a read of {} bytes does not fit in memory", self.len),
                self.offset,
            )
            .in_component(self.component.clone())
        })
    }

    /// The error for bytes that do not cover this range.
    pub fn short_read(&self, got_bytes: u64) -> Error {
        Error::new(
            ErrorKind::MissingBytes {
                wanted_start: self.offset,
                wanted_end: self.end(),
            },
            self.offset.saturating_add(got_bytes),
        )
        .context("short read")
        .in_component(self.component.clone())
    }
}

impl core::fmt::Display for ByteRange {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} [{}, {})", self.component, self.offset, self.end())
    }
}

/// A sans-I/O reader of byte ranges (see the [module docs](crate::range)).
pub trait RangeReader {
    /// The range to read next; `None` when nothing more is needed.
    fn next_read(&self) -> Option<ByteRange>;

    /// The bytes of `range` (the one [`RangeReader::next_read`] gave). An error is the reader's
    /// own (a corrupt structure, a short read); the reader decides whether it can go on.
    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()>;

    /// The caller could not read `range`. The default does nothing; readers that report what
    /// happened (a lookup's steps) record it and stop asking.
    fn abort(&mut self, range: &ByteRange, error: &Error, clock: &dyn Clock) {
        let _ = (range, error, clock);
    }
}

/// What a [`PullReader`] produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Pulled<T> {
    Item(T),
    /// Read [`RangeReader::next_read`] and supply it, then pull again.
    NeedMoreData,
    /// Nothing more.
    End,
}

/// A reader whose caller pulls items (Index.db entries, the partitions of an index listing):
/// the drivers' [`crate::range::SyncDriver::pull`] / [`crate::range::AsyncDriver::pull`] read what it asks for between
/// pulls. After a failed read ([`RangeReader::abort`]) the driver pulls once more: an item or
/// a different range means the reader went on; otherwise the read's error is returned.
pub trait PullReader: RangeReader {
    type Item;
    fn pull(&mut self) -> Result<Pulled<Self::Item>>;
}

/// Where a [`crate::range::SyncDriver`] reads: a positioned read of one component file.
pub trait RangeSource {
    /// Reads `range` into `buf` (replacing its contents). Fewer bytes than asked only where the
    /// file ends; an implementation must not allocate more than the file holds.
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> Result<()>;

    /// The bytes of `range` borrowed from memory the source already holds, as
    /// [`RangeSource::read_into`] would give them, without a copy; `None` (the default) when the
    /// source has to read (or fail: errors come from `read_into`).
    fn borrow_range(&self, _range: &ByteRange) -> Option<&[u8]> {
        None
    }
}

impl<T: RangeSource + ?Sized> RangeSource for &mut T {
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> Result<()> {
        (**self).read_into(range, buf)
    }

    fn borrow_range(&self, range: &ByteRange) -> Option<&[u8]> {
        (**self).borrow_range(range)
    }
}

/// A read function as a [`RangeSource`]: `FnSource(|range| … Ok(bytes))`.
pub struct FnSource<F>(pub F);

impl<F> core::fmt::Debug for FnSource<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("FnSource")
    }
}

impl<F> RangeSource for FnSource<F>
where
    F: FnMut(&ByteRange) -> Result<Vec<u8>>,
{
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> Result<()> {
        *buf = (self.0)(range)?;
        Ok(())
    }
}

/// Whole component files in memory, as a [`RangeSource`] (tests, the embedded sample).
#[derive(Debug, Clone, Copy)]
pub struct SliceSource<'a> {
    pub files: &'a [(ComponentType, &'a [u8])],
}

impl RangeSource for SliceSource<'_> {
    /// The range's bytes are already in memory: no copy (they are what `read_into` copies).
    fn borrow_range(&self, range: &ByteRange) -> Option<&[u8]> {
        let file = self
            .files
            .iter()
            .find(|(c, _)| *c == range.component)
            .map(|(_, b)| *b)?;
        let start = usize::try_from(range.offset).unwrap_or(usize::MAX);
        let end = usize::try_from(range.end()).unwrap_or(usize::MAX);
        Some(
            file.get(start.min(file.len())..end.min(file.len()))
                .unwrap_or(&[]),
        )
    }

    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> Result<()> {
        let file = self
            .files
            .iter()
            .find(|(c, _)| *c == range.component)
            .map(|(_, b)| *b)
            .ok_or_else(|| {
                Error::invalid(format!("{} is missing", range.component), range.offset)
                    .in_component(range.component.clone())
            })?;
        buf.clear();
        let start = usize::try_from(range.offset).unwrap_or(usize::MAX);
        let end = usize::try_from(range.end()).unwrap_or(usize::MAX);
        if let Some(part) = file.get(start.min(file.len())..end.min(file.len())) {
            buf.extend_from_slice(part);
        }
        Ok(())
    }
}
