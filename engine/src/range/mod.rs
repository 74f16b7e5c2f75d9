//! The one byte-range protocol every streaming reader speaks, and the two drivers that run it.
//!
//! Large components (Data.db, Index.db, Partitions.db, Rows.db) never enter the engine whole. A
//! reader is a state machine that says which byte range it needs next and is handed the bytes:
//!
//! | call | meaning |
//! |---|---|
//! | [`RangeReader::next_read`] | the next [`ByteRange`] (component, offset, length), or `None` when done |
//! | [`RangeReader::supply`] | the bytes of that range (fewer only where the file ends) |
//! | [`RangeReader::abort`] | the caller could not read it: the reader records the error and stops |
//!
//! Readers: [`crate::component::data::ChunkedDataReader`] (Data.db chunks or blocks, 3.0+ rows
//! or 2.x atoms),
//! [`crate::verify::Verifier`] (all of Data.db once), [`crate::lookup::Lookup`] (one key's read
//! path), [`IndexEntries`] (Index.db entries in windows), [`PartitionFinder`] and
//! [`TriePartitionFinder`] (the partitions a set of uncompressed Data.db ranges overlap),
//! [`crate::index_listing::IndexListing`] (every partition an index lists) and
//! [`crate::load::MetadataLoader`] (the small components, whole). Two shared steps are read
//! once here for all of them: [`RowsWindow`] (a Rows.db entry: grow the window, retry) and
//! [`TriePages`] (the Partitions.db trie walked over a few cached pages).
//!
//! Two drivers run any of them over a caller's source, so no front end writes its own loop:
//! [`SyncDriver`] over a [`RangeSource`] (a `pread`, a byte slice — the CLI and tests) and
//! [`AsyncDriver`] over an async read function (`Blob.slice` in the page; the engine depends on
//! no runtime). Both time the reads with the caller's [`Clock`] ([`ReadStats`]). Data.db items
//! come from `next_item` / `items` (owned 3.0+ items), `visit_next` / `visit_all` (a
//! borrowing 3.0+ scan) or
//! `with_next_step` (any chunked reader, 2.x atoms included, the step handed to a closure while
//! it borrows the window); the items of any [`PullReader`] (Index.db entries, the index
//! listing's partitions) from `pull`.
//!
//! The model is arrow-rs parquet's push decoder: I/O never enters the parser.

mod index_entries;
mod partitions;
mod rows_entry;
mod trie_pages;

pub use index_entries::{IndexEntries, IndexEntryStep, INDEX_WINDOW_BYTES, MAX_INDEX_WINDOW_BYTES};
pub use partitions::{PartitionFinder, PartitionRange};
pub use rows_entry::RowsWindow;
pub use trie_pages::{TriePages, TrieStep, MAX_CACHED_PAGES, MAX_NODE_PAGES};

use core::future::Future;

use serde::Serialize;

use crate::clock::Clock;
use crate::component::data::{
    ChunkedDataReader, DataFileReader, DataItem, DataVisitor, DecodeStep, PushDecoder, VisitStep,
};
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

/// A sans-I/O reader of byte ranges (see the [module docs](self)).
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

/// A reader that decodes items as it goes (Data.db): [`ItemReader::next_item`] answers
/// [`DecodeStep::NeedMoreData`] until the range it names next is supplied.
pub trait ItemReader: RangeReader {
    fn next_item(&mut self) -> Result<DecodeStep>;
}

impl ItemReader for DataFileReader {
    fn next_item(&mut self) -> Result<DecodeStep> {
        DataFileReader::next_item(self)
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
/// the drivers' [`SyncDriver::pull`] / [`AsyncDriver::pull`] read what it asks for between
/// pulls. After a failed read ([`RangeReader::abort`]) the driver pulls once more: an item or
/// a different range means the reader went on; otherwise the read's error is returned.
pub trait PullReader: RangeReader {
    type Item;
    fn pull(&mut self) -> Result<Pulled<Self::Item>>;
}

impl PullReader for IndexEntries {
    type Item = crate::component::index::IndexEntry;

    fn pull(&mut self) -> Result<Pulled<Self::Item>> {
        Ok(match self.next_entry()? {
            IndexEntryStep::Entry(e) => Pulled::Item(e),
            IndexEntryStep::NeedMoreData => Pulled::NeedMoreData,
            IndexEntryStep::End => Pulled::End,
        })
    }
}

/// After a failed read of `failed`: what the reader's next pull means for the driver.
fn after_failed_read<T, R: PullReader<Item = T> + ?Sized>(
    reader: &mut R,
    failed: Option<ByteRange>,
    error: Error,
) -> Result<Option<T>> {
    let Some(failed) = failed else {
        return Err(error);
    };
    match reader.pull()? {
        Pulled::Item(item) => Ok(Some(item)),
        Pulled::NeedMoreData if reader.next_read().is_some_and(|r| r != failed) => Ok(None),
        _ => Err(error),
    }
}

fn no_range_named() -> Error {
    Error::invalid("a reader asked for more data but named no range", 0).context("read")
}

/// Where a [`SyncDriver`] reads: a positioned read of one component file.
pub trait RangeSource {
    /// Reads `range` into `buf` (replacing its contents). Fewer bytes than asked only where the
    /// file ends; an implementation must not allocate more than the file holds.
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> Result<()>;
}

impl<T: RangeSource + ?Sized> RangeSource for &mut T {
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> Result<()> {
        (**self).read_into(range, buf)
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

/// What a driver read, timed with the caller's clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReadStats {
    pub reads: u64,
    pub bytes: u64,
    /// Nanoseconds spent in the source's reads.
    pub nanos: u64,
}

impl ReadStats {
    fn add(&mut self, bytes: usize, nanos: u64) {
        self.reads = self.reads.saturating_add(1);
        self.bytes = self.bytes.saturating_add(bytes as u64);
        self.nanos = self.nanos.saturating_add(nanos);
    }
}

/// Runs readers over a [`RangeSource`], one buffer reused for every read.
#[derive(Debug)]
pub struct SyncDriver<S> {
    source: S,
    buf: Vec<u8>,
    stats: ReadStats,
    /// The range whose read failed last (passed to [`RangeReader::abort`]).
    failed_read: Option<ByteRange>,
}

impl<S: RangeSource> SyncDriver<S> {
    pub fn new(source: S) -> SyncDriver<S> {
        SyncDriver {
            source,
            buf: Vec::new(),
            stats: ReadStats::default(),
            failed_read: None,
        }
    }

    pub fn stats(&self) -> ReadStats {
        self.stats
    }

    pub fn source_mut(&mut self) -> &mut S {
        &mut self.source
    }

    pub fn into_source(self) -> S {
        self.source
    }

    /// Reads and supplies one range; `Ok(None)` when the reader needs nothing more. A failed
    /// read is passed to [`RangeReader::abort`] and returned.
    pub fn step<R: RangeReader + ?Sized>(
        &mut self,
        reader: &mut R,
        clock: &dyn Clock,
    ) -> Result<Option<ByteRange>> {
        let Some(range) = reader.next_read() else {
            return Ok(None);
        };
        let started = clock.now_nanos();
        let read = range
            .len_usize()
            .and_then(|_| self.source.read_into(&range, &mut self.buf));
        if let Err(e) = read {
            let e = e.in_component(range.component.clone());
            reader.abort(&range, &e, clock);
            self.failed_read = Some(range);
            return Err(e);
        }
        self.stats
            .add(self.buf.len(), clock.now_nanos().saturating_sub(started));
        reader.supply(&range, &self.buf, clock)?;
        Ok(Some(range))
    }

    /// Runs `reader` until it needs nothing more or an error stops it.
    pub fn run<R: RangeReader + ?Sized>(
        &mut self,
        reader: &mut R,
        clock: &dyn Clock,
    ) -> Result<()> {
        self.run_while(reader, clock, |_| true)
    }

    /// Like [`SyncDriver::run`], asking `go_on` after each range (progress, cancellation). A
    /// failed read that the reader recovers from (it asks for another range after
    /// [`RangeReader::abort`]) does not stop the run; otherwise the error is returned.
    pub fn run_while<R, G>(&mut self, reader: &mut R, clock: &dyn Clock, mut go_on: G) -> Result<()>
    where
        R: RangeReader + ?Sized,
        G: FnMut(&R) -> bool,
    {
        let mut last_error = None;
        loop {
            self.failed_read = None;
            match self.step(reader, clock) {
                Ok(None) => return last_error.map_or(Ok(()), Err),
                Ok(Some(_)) => {
                    if !go_on(reader) {
                        return Ok(());
                    }
                }
                Err(e) => {
                    if !recovered(reader, self.failed_read.take()) {
                        return Err(e);
                    }
                    last_error = Some(e);
                }
            }
        }
    }

    /// The next item of a [`PullReader`] (`None` at its end), reading what it asks for.
    pub fn pull<R: PullReader + ?Sized>(
        &mut self,
        reader: &mut R,
        clock: &dyn Clock,
    ) -> Result<Option<R::Item>> {
        loop {
            match reader.pull()? {
                Pulled::Item(item) => return Ok(Some(item)),
                Pulled::End => return Ok(None),
                Pulled::NeedMoreData => {}
            }
            self.failed_read = None;
            match self.step(reader, clock) {
                Ok(Some(_)) => {}
                Ok(None) => return Err(no_range_named()),
                Err(e) => {
                    if let Some(item) = after_failed_read(reader, self.failed_read.take(), e)? {
                        return Ok(Some(item));
                    }
                }
            }
        }
    }

    /// The next Data.db item, reading chunks as the reader asks.
    pub fn next_item<R: ItemReader + ?Sized>(
        &mut self,
        reader: &mut R,
        clock: &dyn Clock,
    ) -> Result<DecodeStep> {
        loop {
            match reader.next_item()? {
                DecodeStep::NeedMoreData => {
                    if self.step(reader, clock)?.is_none() {
                        return Err(nothing_to_read());
                    }
                }
                step => return Ok(step),
            }
        }
    }

    /// The next step of a borrowing Data.db scan: `visitor` sees views into the window, and
    /// chunks are read as the reader asks. Never returns [`VisitStep::NeedMoreData`].
    pub fn visit_next<V: DataVisitor + ?Sized>(
        &mut self,
        reader: &mut DataFileReader,
        visitor: &mut V,
        clock: &dyn Clock,
    ) -> Result<VisitStep> {
        loop {
            match reader.visit_next(visitor)? {
                VisitStep::NeedMoreData => {
                    if self.step(reader, clock)?.is_none() {
                        return Err(nothing_to_read());
                    }
                }
                step => return Ok(step),
            }
        }
    }

    /// Visits every item from the reader's position to the end (a borrowing scan: `visitor`
    /// sees views into the window), reading chunks as the reader asks. Stops at the first error.
    pub fn visit_all<V: DataVisitor + ?Sized>(
        &mut self,
        reader: &mut DataFileReader,
        visitor: &mut V,
        clock: &dyn Clock,
    ) -> Result<()> {
        while let VisitStep::Visited = self.visit_next(reader, visitor, clock)? {}
        Ok(())
    }

    /// The items from the reader's position to the end, reading chunks as the reader asks; the
    /// iterator ends after the last item or the first error.
    pub fn items<'d, R: ItemReader + ?Sized>(
        &'d mut self,
        reader: &'d mut R,
        clock: &'d dyn Clock,
    ) -> DriverItems<'d, S, R> {
        DriverItems {
            driver: self,
            reader,
            clock,
            done: false,
        }
    }

    /// The next step of any chunked Data.db reader — 3.0+ items or 2.x atoms, whose steps
    /// borrow the reader's window — handed to `take` while the borrow lasts; chunks are read as
    /// the reader asks. `take` never sees "need more data". This is how a caller drives a
    /// `LegacyDataFileReader` without a read loop of its own.
    pub fn with_next_step<D, T, F>(
        &mut self,
        reader: &mut ChunkedDataReader<D>,
        clock: &dyn Clock,
        take: F,
    ) -> Result<T>
    where
        D: PushDecoder,
        F: for<'w> FnOnce(D::Step<'w>) -> T,
    {
        loop {
            let step = reader.next_item()?;
            if !D::needs_more_data(&step) {
                return Ok(take(step));
            }
            // The step borrows the window: it must end before the next chunk is supplied.
            drop(step);
            if self.step(reader, clock)?.is_none() {
                return Err(nothing_to_read());
            }
        }
    }
}

/// The items of [`SyncDriver::items`].
pub struct DriverItems<'d, S, R: ?Sized> {
    driver: &'d mut SyncDriver<S>,
    reader: &'d mut R,
    clock: &'d dyn Clock,
    done: bool,
}

impl<S, R: ?Sized> core::fmt::Debug for DriverItems<'_, S, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DriverItems")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<S: RangeSource, R: ItemReader + ?Sized> Iterator for DriverItems<'_, S, R> {
    type Item = Result<DataItem>;

    fn next(&mut self) -> Option<Result<DataItem>> {
        if self.done {
            return None;
        }
        match self.driver.next_item(self.reader, self.clock) {
            Ok(DecodeStep::Item(item)) => Some(Ok(item)),
            Ok(_) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Runs readers over an async read function (`Blob.slice` in the page). The engine has no
/// runtime: the caller awaits the returned futures.
pub struct AsyncDriver<F> {
    read: F,
    stats: ReadStats,
    failed_read: Option<ByteRange>,
}

impl<F> core::fmt::Debug for AsyncDriver<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncDriver")
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl<F, Fut> AsyncDriver<F>
where
    F: FnMut(ByteRange) -> Fut,
    Fut: Future<Output = Result<Vec<u8>>>,
{
    pub fn new(read: F) -> AsyncDriver<F> {
        AsyncDriver {
            read,
            stats: ReadStats::default(),
            failed_read: None,
        }
    }

    pub fn stats(&self) -> ReadStats {
        self.stats
    }

    /// Reads and supplies one range; `Ok(None)` when the reader needs nothing more.
    pub async fn step<R: RangeReader + ?Sized>(
        &mut self,
        reader: &mut R,
        clock: &dyn Clock,
    ) -> Result<Option<ByteRange>> {
        let Some(range) = reader.next_read() else {
            return Ok(None);
        };
        let started = clock.now_nanos();
        let read = match range.len_usize() {
            Ok(_) => (self.read)(range.clone()).await,
            Err(e) => Err(e),
        };
        let bytes = match read {
            Ok(b) => b,
            Err(e) => {
                let e = e.in_component(range.component.clone());
                reader.abort(&range, &e, clock);
                self.failed_read = Some(range);
                return Err(e);
            }
        };
        self.stats
            .add(bytes.len(), clock.now_nanos().saturating_sub(started));
        reader.supply(&range, &bytes, clock)?;
        Ok(Some(range))
    }

    /// Runs `reader` until it needs nothing more, an error stops it or `go_on` (asked after each
    /// range, e.g. to report progress or check a cancel flag) says stop.
    pub async fn run_while<R, G>(
        &mut self,
        reader: &mut R,
        clock: &dyn Clock,
        mut go_on: G,
    ) -> Result<()>
    where
        R: RangeReader + ?Sized,
        G: FnMut(&R) -> bool,
    {
        let mut last_error = None;
        loop {
            self.failed_read = None;
            match self.step(reader, clock).await {
                Ok(None) => return last_error.map_or(Ok(()), Err),
                Ok(Some(_)) => {
                    if !go_on(reader) {
                        return Ok(());
                    }
                }
                Err(e) => {
                    if !recovered(reader, self.failed_read.take()) {
                        return Err(e);
                    }
                    last_error = Some(e);
                }
            }
        }
    }

    pub async fn run<R: RangeReader + ?Sized>(
        &mut self,
        reader: &mut R,
        clock: &dyn Clock,
    ) -> Result<()> {
        self.run_while(reader, clock, |_| true).await
    }

    /// The next item of a [`PullReader`] (see [`SyncDriver::pull`]).
    pub async fn pull<R: PullReader + ?Sized>(
        &mut self,
        reader: &mut R,
        clock: &dyn Clock,
    ) -> Result<Option<R::Item>> {
        loop {
            match reader.pull()? {
                Pulled::Item(item) => return Ok(Some(item)),
                Pulled::End => return Ok(None),
                Pulled::NeedMoreData => {}
            }
            self.failed_read = None;
            match self.step(reader, clock).await {
                Ok(Some(_)) => {}
                Ok(None) => return Err(no_range_named()),
                Err(e) => {
                    if let Some(item) = after_failed_read(reader, self.failed_read.take(), e)? {
                        return Ok(Some(item));
                    }
                }
            }
        }
    }

    /// The next Data.db item, reading chunks as the reader asks.
    pub async fn next_item<R: ItemReader + ?Sized>(
        &mut self,
        reader: &mut R,
        clock: &dyn Clock,
    ) -> Result<DecodeStep> {
        loop {
            match reader.next_item()? {
                DecodeStep::NeedMoreData => {
                    if self.step(reader, clock).await?.is_none() {
                        return Err(nothing_to_read());
                    }
                }
                step => return Ok(step),
            }
        }
    }

    /// The next step of a borrowing Data.db scan (see [`SyncDriver::visit_next`]).
    pub async fn visit_next<V: DataVisitor + ?Sized>(
        &mut self,
        reader: &mut DataFileReader,
        visitor: &mut V,
        clock: &dyn Clock,
    ) -> Result<VisitStep> {
        loop {
            match reader.visit_next(visitor)? {
                VisitStep::NeedMoreData => {
                    if self.step(reader, clock).await?.is_none() {
                        return Err(nothing_to_read());
                    }
                }
                step => return Ok(step),
            }
        }
    }

    /// Visits every item to the end (see [`SyncDriver::visit_all`]).
    pub async fn visit_all<V: DataVisitor + ?Sized>(
        &mut self,
        reader: &mut DataFileReader,
        visitor: &mut V,
        clock: &dyn Clock,
    ) -> Result<()> {
        while let VisitStep::Visited = self.visit_next(reader, visitor, clock).await? {}
        Ok(())
    }

    /// The next step of any chunked Data.db reader, handed to `take` (see
    /// [`SyncDriver::with_next_step`]).
    pub async fn with_next_step<D, T, G>(
        &mut self,
        reader: &mut ChunkedDataReader<D>,
        clock: &dyn Clock,
        take: G,
    ) -> Result<T>
    where
        D: PushDecoder,
        G: for<'w> FnOnce(D::Step<'w>) -> T,
    {
        loop {
            let step = reader.next_item()?;
            if !D::needs_more_data(&step) {
                return Ok(take(step));
            }
            drop(step);
            if self.step(reader, clock).await?.is_none() {
                return Err(nothing_to_read());
            }
        }
    }
}

/// Whether a reader asks for another range after the read of `failed` failed.
fn recovered<R: RangeReader + ?Sized>(reader: &R, failed: Option<ByteRange>) -> bool {
    match (failed, reader.next_read()) {
        (Some(failed), Some(next)) => next != failed,
        _ => false,
    }
}

fn nothing_to_read() -> Error {
    Error::new(
        ErrorKind::UnexpectedEof {
            needed_bytes: 1,
            available_bytes: 0,
        },
        0,
    )
    .context("Data.db")
    .in_component(ComponentType::Data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::NoClock;

    /// A reader that wants three 4-byte ranges of Index.db and sums their bytes.
    struct Three {
        next: u64,
        sum: u64,
    }

    impl RangeReader for Three {
        fn next_read(&self) -> Option<ByteRange> {
            (self.next < 12).then(|| ByteRange::new(ComponentType::PrimaryIndex, self.next, 4))
        }
        fn supply(&mut self, range: &ByteRange, bytes: &[u8], _: &dyn Clock) -> Result<()> {
            if (bytes.len() as u64) < range.len {
                return Err(range.short_read(bytes.len() as u64));
            }
            self.sum += bytes.iter().map(|&b| u64::from(b)).sum::<u64>();
            self.next += 4;
            Ok(())
        }
    }

    #[test]
    fn sync_driver_reads_every_range_once() {
        let bytes: Vec<u8> = (1..=12).collect();
        let files = [(ComponentType::PrimaryIndex, bytes.as_slice())];
        let mut d = SyncDriver::new(SliceSource { files: &files });
        let mut r = Three { next: 0, sum: 0 };
        d.run(&mut r, &NoClock).unwrap();
        assert_eq!(r.sum, 78);
        assert_eq!(d.stats().reads, 3);
        assert_eq!(d.stats().bytes, 12);
    }

    #[test]
    fn short_source_is_an_error_naming_the_range() {
        let bytes: Vec<u8> = (1..=6).collect();
        let files = [(ComponentType::PrimaryIndex, bytes.as_slice())];
        let mut d = SyncDriver::new(SliceSource { files: &files });
        let mut r = Three { next: 0, sum: 0 };
        let e = d.run(&mut r, &NoClock).unwrap_err();
        assert_eq!(e.offset(), 6);
        assert_eq!(e.component(), Some(&ComponentType::PrimaryIndex));
    }

    /// Pulls one item per 4-byte range of `Three`; a failed read is skipped when `skips`.
    struct Pulling {
        three: Three,
        items: Vec<u64>,
        skips: bool,
    }

    impl RangeReader for Pulling {
        fn next_read(&self) -> Option<ByteRange> {
            self.three.next_read()
        }
        fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
            let before = self.three.sum;
            self.three.supply(range, bytes, clock)?;
            self.items.push(self.three.sum - before);
            Ok(())
        }
        fn abort(&mut self, _: &ByteRange, _: &Error, _: &dyn Clock) {
            if self.skips {
                self.three.next += 4;
                self.items.push(0);
            } else {
                self.three.next = u64::MAX;
            }
        }
    }

    impl PullReader for Pulling {
        type Item = u64;
        fn pull(&mut self) -> Result<Pulled<u64>> {
            Ok(match self.items.pop() {
                Some(x) => Pulled::Item(x),
                None if self.three.next >= 12 => Pulled::End,
                None => Pulled::NeedMoreData,
            })
        }
    }

    #[test]
    fn pull_reads_between_items_and_goes_on_after_a_failed_read_only_if_the_reader_does() {
        let bytes: Vec<u8> = (1..=12).collect();
        let read = |range: &ByteRange| -> Result<Vec<u8>> {
            if range.offset == 4 {
                return Err(Error::invalid("bad sector", 4));
            }
            Ok(bytes[range.offset as usize..range.end() as usize].to_vec())
        };
        for skips in [true, false] {
            let mut d = SyncDriver::new(FnSource(read));
            let mut r = Pulling {
                three: Three { next: 0, sum: 0 },
                items: Vec::new(),
                skips,
            };
            assert_eq!(d.pull(&mut r, &NoClock).unwrap(), Some(1 + 2 + 3 + 4));
            if skips {
                assert_eq!(d.pull(&mut r, &NoClock).unwrap(), Some(0));
                assert_eq!(d.pull(&mut r, &NoClock).unwrap(), Some(9 + 10 + 11 + 12));
                assert_eq!(d.pull(&mut r, &NoClock).unwrap(), None);
            } else {
                let e = d.pull(&mut r, &NoClock).unwrap_err();
                assert_eq!(e.offset(), 4);
                assert!(e.to_string().contains("bad sector"), "{e}");
            }
        }
    }

    #[test]
    fn async_driver_matches_the_sync_one() {
        let bytes: Vec<u8> = (1..=12).collect();
        let mut r = Three { next: 0, sum: 0 };
        let mut d = AsyncDriver::new(|range: ByteRange| {
            let part = bytes
                .get(range.offset as usize..range.end() as usize)
                .map(<[u8]>::to_vec)
                .unwrap_or_default();
            core::future::ready(Ok(part))
        });
        {
            let fut = d.run(&mut r, &NoClock);
            // Every read is ready at once: one poll finishes the run.
            let waker = core::task::Waker::noop();
            let mut cx = core::task::Context::from_waker(waker);
            let mut fut = core::pin::pin!(fut);
            assert!(matches!(
                fut.as_mut().poll(&mut cx),
                core::task::Poll::Ready(Ok(()))
            ));
        }
        assert_eq!(r.sum, 78);
        assert_eq!(d.stats().reads, 3);
    }
}

mod trie_partitions;

pub use trie_partitions::TriePartitionFinder;
