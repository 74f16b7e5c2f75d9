//! The two drivers of the byte-range protocol: [`SyncDriver`] over a [`RangeSource`] (the CLI,
//! tests) and [`AsyncDriver`] over an async read function (the page). Both read what a reader
//! names, hand it the bytes, time the reads with the caller's clock ([`ReadStats`]) and pass a
//! failed read to [`RangeReader::abort`]; front ends never write these loops themselves.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use core::future::Future;

use serde::Serialize;

use super::{ByteRange, ItemReader, PullReader, Pulled, RangeReader, RangeSource};
use crate::clock::Clock;
use crate::component::data::{
    ChunkedDataReader, DataFileReader, DataItem, DataVisitor, DecodeStep, PushDecoder, VisitStep,
};
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};

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
        // A source that holds the bytes in memory lends them (no copy into the buffer).
        if range.len_usize().is_ok() {
            if let Some(bytes) = self.source.borrow_range(&range) {
                self.stats
                    .add(bytes.len(), clock.now_nanos().saturating_sub(started));
                reader.supply(&range, bytes, clock)?;
                return Ok(Some(range));
            }
        }
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
