//! The push decoder: uncompressed Data.db bytes in, one item at a time out.
//!
//! The caller pushes the uncompressed bytes of Data.db in order (from position 0, or from any
//! partition position taken from Index.db / Partitions.db after [`DataDecoder::seek_to_partition`])
//! and calls [`DataDecoder::finish`] at the end of the data. [`DataDecoder::next_item`] returns
//! the next complete item, or [`DecodeStep::NeedMoreData`] while the item is not yet complete in
//! the window. Consumed bytes are dropped on the next push, so the window holds about one item
//! plus what was pushed last, whatever the file size. Lengths read from the file are capped
//! ([`DecodeOptions`]) before the decoder waits for them.
//!
//! An unfiltered is decoded in two steps: its head (flags, clustering or bound, size field)
//! from the window, then — once the declared bytes are all present — its body inside exactly
//! those bytes. A body that ends early is a finding and decoding goes on at the declared end; a
//! body that cannot be decoded inside its declared bytes is an error. For an SSTable whose header
//! is ambiguous about frozen UDTs (CASSANDRA-15035), a row that fails either way is retried with
//! the other reading, which is kept from then on.
//!
//! After an error the decoder stays failed (every call returns the same error) until
//! [`DataDecoder::seek_to_partition`] restarts it at a partition boundary.
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/SSTableIdentityIterator.java`,
//! `io/sstable/format/big/BigTableScanner.java`, `db/rows/UnfilteredSerializer.java`.

#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::clustering::ClusteringView;
use super::items::ItemBuilder;
use super::partition::read_partition_start;
use super::row::{read_head, read_row_fast, Head, RowScratch, RowStart, UnfilteredHead};
use super::schema::DataSchema;
use super::view::{DataVisitor, IgnoreAll, RowEnd};
use super::{DataItem, DecodeOptions, Finding, FindingKind};
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;
use crate::version::Version;

mod partition_state;

use partition_state::PartitionState;

/// What [`DataDecoder::next_item`] produced.
// The item is handed over by value exactly once; boxing it would cost an allocation per item.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum DecodeStep {
    Item(DataItem),
    /// The next item is not complete yet: push more bytes (or call `finish`).
    NeedMoreData,
    /// The input is finished and every item was returned.
    Finished,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    PartitionStart,
    StaticRow,
    Unfiltered,
}

/// What [`DataDecoder::visit_next`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VisitStep {
    /// One item (a partition boundary, a row with its cells, or a marker) went to the visitor.
    Visited,
    /// The next item is not complete yet: push more bytes (or call `finish`).
    NeedMoreData,
    /// The input is finished and every item was visited.
    Finished,
}

/// What one attempt at a step did.
enum Attempt {
    Done(VisitStep),
    /// The row decodes only with bare UDTs read as frozen: switch and decode it again.
    SwitchToFrozenUdts,
}

/// The declared body `[body_start, declared_end)` of the unfiltered `head` starting at `pos`
/// (the first byte of `bytes`), and the bytes from `pos` to its declared end: `None` while it is
/// not all in the window, an error when the input ended before it.
fn declared_body<'w, P>(
    bytes: &'w [u8],
    pos: u64,
    head: &UnfilteredHead<P>,
    input_finished: bool,
    what: &'static str,
) -> Result<Option<(&'w [u8], usize)>> {
    let available = bytes.len() as u64;
    let needed = head.declared_end.saturating_sub(pos);
    if needed > available {
        if !input_finished {
            return Ok(None);
        }
        return Err(Error::new(
            ErrorKind::UnexpectedEof {
                needed_bytes: needed,
                available_bytes: available,
            },
            pos,
        )
        .context(what));
    }
    let end = usize::try_from(needed).unwrap_or(bytes.len());
    let body = usize::try_from(head.body_start.saturating_sub(pos))
        .ok()
        .and_then(|start| bytes.get(start..end))
        .unwrap_or(&[]);
    Ok(Some((body, end)))
}

/// The push decoder over uncompressed Data.db bytes.
#[derive(Debug, Clone)]
pub struct DataDecoder {
    schema: DataSchema,
    /// The other reading of an ambiguous frozen-UDT header, until one is chosen.
    alternate: Option<DataSchema>,
    options: DecodeOptions,
    window: Window,
    expect: Expect,
    partition: PartitionState,
    failed: Option<Error>,
    scratch: RowScratch,
    /// The next row is the one that switched to the frozen-UDT reading (it gets the finding).
    switched_to_frozen_udts: bool,
    /// Whether rows are read with the frozen-UDT reading (switched, or told so).
    frozen_udts: bool,
    /// A scan of one range: the data "ends" at the first partition that starts at or after it.
    range_end: Option<u64>,
}

impl DataDecoder {
    /// A decoder at uncompressed position 0.
    pub fn new(schema: DataSchema, options: DecodeOptions) -> DataDecoder {
        let alternate = schema.with_frozen_bare_udts();
        DataDecoder {
            schema,
            alternate,
            options,
            window: Window::default(),
            expect: Expect::PartitionStart,
            partition: PartitionState::default(),
            failed: None,
            scratch: RowScratch::default(),
            switched_to_frozen_udts: false,
            frozen_udts: false,
            range_end: None,
        }
    }

    /// Ends the scan at the first partition starting at or after uncompressed `position` (a
    /// range of a split scan: [`ScanRange`](super::ScanRange)); `None` scans to the end of the data.
    /// [`DataDecoder::seek_to_partition`] keeps it.
    pub fn set_range_end(&mut self, position: Option<u64>) {
        self.range_end = position;
    }

    /// Whether rows are read with bare UDTs as frozen (CASSANDRA-15035): switched to by a row
    /// that only decodes that way, or by [`DataDecoder::read_bare_udts_as_frozen`]. A range of
    /// a split scan that switched hands the reading on to the ranges after it.
    pub fn reads_bare_udts_as_frozen(&self) -> bool {
        self.frozen_udts
    }

    /// Reads bare UDTs as frozen from now on, as a scan that switched earlier in the file does
    /// (no finding: the row that switched had it).
    pub fn read_bare_udts_as_frozen(&mut self) {
        if let Some(alt) = self.alternate.take() {
            self.schema = alt;
            self.frozen_udts = true;
        }
    }

    /// The schema rows are decoded with (after a frozen-UDT switch, the frozen reading).
    pub fn schema(&self) -> &DataSchema {
        &self.schema
    }

    pub fn options(&self) -> &DecodeOptions {
        &self.options
    }

    /// The error the decoder stopped at, if any.
    pub fn error(&self) -> Option<&Error> {
        self.failed.as_ref()
    }

    /// Restarts at the partition starting at uncompressed `position` (from Index.db or
    /// Partitions.db): drops the window, clears an error, expects a partition header next.
    pub fn seek_to_partition(&mut self, position: u64) {
        self.window.reset(position);
        self.expect = Expect::PartitionStart;
        self.partition.reset(position);
        self.failed = None;
        self.switched_to_frozen_udts = false;
    }

    /// The next item, [`DecodeStep::NeedMoreData`], or [`DecodeStep::Finished`]: the owned
    /// form of [`DataDecoder::visit_next`], for callers that keep items.
    pub fn next_item(&mut self) -> Result<DecodeStep> {
        let mut builder = ItemBuilder::default();
        match self.visit_next(&mut builder)? {
            VisitStep::Visited => match builder.take() {
                Some(item) => Ok(DecodeStep::Item(item)),
                None => Err(Error::invalid("no item was decoded", self.position())
                    .in_component(ComponentType::Data)),
            },
            VisitStep::NeedMoreData => Ok(DecodeStep::NeedMoreData),
            VisitStep::Finished => Ok(DecodeStep::Finished),
        }
    }

    /// Decodes the next item into `visitor` (borrowed: nothing allocated per row or cell), or
    /// says that more data is needed or that everything was visited.
    #[inline]
    pub fn visit_next<V: DataVisitor + ?Sized>(&mut self, visitor: &mut V) -> Result<VisitStep> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        // One item done is the step of nearly every call; a switch of reading or an error is
        // handled out of line.
        match self.attempt(visitor) {
            Ok(Attempt::Done(step)) => Ok(step),
            other => self.visit_next_after(other, visitor),
        }
    }

    /// [`DataDecoder::visit_next`] after an attempt that switched to the frozen-UDT reading
    /// (the row is decoded again) or failed (the decoder keeps the error).
    #[cold]
    #[inline(never)]
    fn visit_next_after<V: DataVisitor + ?Sized>(
        &mut self,
        mut attempt: Result<Attempt>,
        visitor: &mut V,
    ) -> Result<VisitStep> {
        loop {
            match attempt {
                Ok(Attempt::Done(step)) => return Ok(step),
                Ok(Attempt::SwitchToFrozenUdts) => {
                    if let Some(alt) = self.alternate.take() {
                        self.schema = alt;
                        self.frozen_udts = true;
                    }
                    self.switched_to_frozen_udts = true;
                }
                Err(e) => {
                    let e = e.in_component(ComponentType::Data);
                    self.failed = Some(e.clone());
                    return Err(e);
                }
            }
            attempt = self.attempt(visitor);
        }
    }

    fn attempt<V: DataVisitor + ?Sized>(&mut self, v: &mut V) -> Result<Attempt> {
        let DataDecoder {
            schema,
            alternate,
            options,
            window,
            expect,
            partition,
            scratch,
            switched_to_frozen_udts,
            range_end,
            ..
        } = self;
        let pos = window.position();
        let input_finished = window.is_input_finished();
        if *expect == Expect::PartitionStart && range_end.is_some_and(|end| pos >= end) {
            return Ok(Attempt::Done(VisitStep::Finished));
        }
        if let Some(end) = window.at_end(*expect == Expect::PartitionStart, 1) {
            return end.map(Attempt::Done);
        }
        let (bytes, mut consumed) = window.split_unread();
        let need_more = Ok(Attempt::Done(VisitStep::NeedMoreData));
        if *expect == Expect::PartitionStart {
            let mut r = Reader::new(bytes, pos).for_component(ComponentType::Data);
            let start = match read_partition_start(&mut r, schema) {
                Ok(s) => s,
                Err(e) if waits_for_more(&e, input_finished) => return need_more,
                Err(e) => return Err(e),
            };
            consumed.advance(r.position());
            partition.reset(pos);
            *expect = if schema.has_static_row() {
                Expect::StaticRow
            } else {
                Expect::Unfiltered
            };
            v.partition_start(&start);
            return Ok(Attempt::Done(VisitStep::Visited));
        }
        let static_row = *expect == Expect::StaticRow;
        // A plain row by plain slice reads (no ambiguous frozen-UDT header to try both ways);
        // anything else, and a row that does not decode that way, through the checked reader.
        if !static_row && alternate.is_none() {
            if let Some(row) = read_row_fast(bytes, pos, schema, options) {
                #[cfg(debug_assertions)]
                check_row_fast(&row, bytes, pos, schema, options);
                scratch.findings.clear();
                return visit_row(
                    &row,
                    bytes,
                    pos,
                    schema,
                    options,
                    scratch,
                    partition,
                    switched_to_frozen_udts,
                    v,
                )
                .map(|()| {
                    consumed.advance(row.declared_len);
                    *expect = Expect::Unfiltered;
                    Attempt::Done(VisitStep::Visited)
                });
            }
        }
        let mut r = Reader::new(bytes, pos).for_component(ComponentType::Data);
        let head = match read_head(&mut r, schema, options, static_row) {
            Ok(h) => h,
            Err(e) if waits_for_more(&e, input_finished) => return need_more,
            Err(e) => return Err(e),
        };
        match head {
            Head::EndOfPartition(flags) => {
                consumed.advance(1);
                *expect = Expect::PartitionStart;
                v.partition_end(&partition.end(pos, flags));
                return Ok(Attempt::Done(VisitStep::Visited));
            }
            Head::Row(h) => {
                let Some((body, declared_len)) =
                    declared_body(bytes, pos, &h, input_finished, "row")?
                else {
                    return need_more;
                };
                if let Some(alt) = alternate.as_ref() {
                    // An ambiguous frozen-UDT header: a row that does not decode to
                    // exactly its declared size with this reading but does with the
                    // other switches readings.
                    if !decodes_exactly(&h, body, schema, options, scratch)
                        && decodes_exactly(&h, body, alt, options, scratch)
                    {
                        return Ok(Attempt::SwitchToFrozenUdts);
                    }
                }
                let mut br = Reader::new(body, h.body_start).for_component(ComponentType::Data);
                scratch.findings.clear();
                let prelude = h.read_prelude(&mut br, schema, scratch)?;
                // The body starts inside the window, after `pos`.
                let body_start =
                    usize::try_from(h.body_start.saturating_sub(pos)).unwrap_or(usize::MAX);
                let row = RowStart {
                    head: h,
                    prelude,
                    data_start: body_start.saturating_add(br.position()),
                    declared_len,
                };
                visit_row(
                    &row,
                    bytes,
                    pos,
                    schema,
                    options,
                    scratch,
                    partition,
                    switched_to_frozen_udts,
                    v,
                )?;
                consumed.advance(declared_len);
                *expect = Expect::Unfiltered;
            }
            Head::Marker(h) => {
                let Some((body, declared_len)) =
                    declared_body(bytes, pos, &h, input_finished, "range tombstone marker")?
                else {
                    return need_more;
                };
                let mut br = Reader::new(body, h.body_start).for_component(ComponentType::Data);
                let mut marker = h.read_body(&mut br, schema)?;
                partition.check_previous_size(
                    marker.position,
                    &marker.previous_unfiltered_size,
                    false,
                    &mut marker.findings,
                );
                partition.previous_unfiltered_start = Some(marker.position);
                partition.marker_count = partition.marker_count.saturating_add(1);
                consumed.advance(declared_len);
                v.range_tombstone_marker(&marker);
                return Ok(Attempt::Done(VisitStep::Visited));
            }
        }
        Ok(Attempt::Done(VisitStep::Visited))
    }
}

impl PushDecoder for DataDecoder {
    type Setup = DataSchema;
    type Step<'w> = DecodeStep;

    fn from_setup(schema: DataSchema, options: DecodeOptions) -> Self {
        DataDecoder::new(schema, options)
    }

    fn version(&self) -> &Version {
        &self.schema.version
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }

    fn seek_to_partition(&mut self, position: u64) {
        DataDecoder::seek_to_partition(self, position);
    }

    fn next_item(&mut self) -> Result<DecodeStep> {
        DataDecoder::next_item(self)
    }

    fn needs_more_data(step: &DecodeStep) -> bool {
        matches!(step, DecodeStep::NeedMoreData)
    }
}

/// A row read up to its column data (by either path): its columns and cells to `v`, its size
/// check, the cross-row checks and its end. The caller marks its bytes decoded.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn visit_row<'a, V: DataVisitor + ?Sized>(
    row: &RowStart<'a>,
    bytes: &'a [u8],
    pos: u64,
    schema: &DataSchema,
    options: &DecodeOptions,
    scratch: &mut RowScratch,
    partition: &mut PartitionState,
    switched_to_frozen_udts: &mut bool,
    v: &mut V,
) -> Result<()> {
    let RowStart {
        head: h,
        prelude,
        data_start,
        declared_len,
    } = row;
    // `data_start <= declared_len <= bytes.len()`: both paths checked them.
    let data = bytes.get(*data_start..*declared_len).unwrap_or(&[]);
    let data_offset = pos.saturating_add(*data_start as u64);
    let used = h.visit_columns(prelude, data, data_offset, schema, options, scratch, v)?;
    let body_end = data_offset.saturating_add(used as u64);
    h.check_body_end(body_end, &mut scratch.findings);
    if core::mem::take(switched_to_frozen_udts) {
        scratch.findings.push(Finding::new(
            FindingKind::FrozenUdtInterpretation,
            h.size.span,
            "this row only decodes with bare UserType columns read as frozen (a Cassandra \
             3.0.x writer, CASSANDRA-15035); the rest of the SSTable is read that way"
                .to_owned(),
        ));
    }
    partition.after_row(
        h.position,
        &prelude.previous_unfiltered_size,
        h.prefix.as_ref(),
        &mut scratch.findings,
    );
    v.row_end(&RowEnd {
        position: h.position,
        is_static: h.prefix.is_none(),
        body_end,
        declared_end: h.declared_end,
        findings: &scratch.findings,
    });
    Ok(())
}

/// Debug builds (every test run): the fast path's row equals the checked path's — head,
/// prelude, where its column data starts and its declared end — and the checked path has no
/// finding for it (the fast path refuses a row with one).
#[cfg(debug_assertions)]
fn check_row_fast(
    fast: &RowStart<'_>,
    bytes: &[u8],
    pos: u64,
    schema: &DataSchema,
    options: &DecodeOptions,
) {
    let mut r = Reader::new(bytes, pos);
    let head = read_head(&mut r, schema, options, false);
    debug_assert!(
        matches!(head, Ok(Head::Row(_))),
        "the fast path read a row at {pos} where the checked path reads {head:?}"
    );
    let Ok(Head::Row(h)) = head else {
        return;
    };
    debug_assert_eq!(h.position, fast.head.position);
    debug_assert_eq!(h.flags, fast.head.flags);
    debug_assert_eq!(h.extended_flags, fast.head.extended_flags);
    debug_assert_eq!(h.prefix, fast.head.prefix);
    debug_assert_eq!(h.size, fast.head.size);
    debug_assert_eq!(h.body_start, fast.head.body_start);
    debug_assert_eq!(h.declared_end, fast.head.declared_end);
    let body = declared_body(bytes, pos, &h, true, "row");
    debug_assert!(
        matches!(body, Ok(Some(_))),
        "the fast path read a row at {pos} whose body the checked path does not find"
    );
    let Ok(Some((body, declared_len))) = body else {
        return;
    };
    debug_assert_eq!(declared_len, fast.declared_len);
    let mut br = Reader::new(body, h.body_start);
    let mut scratch = RowScratch::default();
    let prelude = h.read_prelude(&mut br, schema, &mut scratch);
    debug_assert_eq!(prelude.as_ref().ok(), Some(&fast.prelude), "row at {pos}");
    debug_assert!(scratch.findings.is_empty(), "row at {pos}");
    debug_assert_eq!(
        br.offset(),
        pos.saturating_add(fast.data_start as u64),
        "row at {pos}"
    );
}

/// Whether the row body decodes to exactly its declared end with `schema` (a trial decode,
/// nothing visited).
fn decodes_exactly(
    head: &UnfilteredHead<Option<ClusteringView<'_>>>,
    body: &[u8],
    schema: &DataSchema,
    options: &DecodeOptions,
    scratch: &mut RowScratch,
) -> bool {
    let mut br = Reader::new(body, head.body_start).for_component(ComponentType::Data);
    matches!(
        head.visit_body(&mut br, schema, options, scratch, &mut IgnoreAll),
        Ok((end, _)) if end == head.declared_end
    )
}

/// Whether reading failed only because the item is not all in the window yet (a short read or
/// a length past the window) while more input can come.
pub(crate) fn waits_for_more(e: &Error, input_finished: bool) -> bool {
    !input_finished
        && matches!(
            e.kind(),
            ErrorKind::UnexpectedEof { .. } | ErrorKind::LengthTooLarge { .. }
        )
}

/// The window of a push decoder over uncompressed Data.db: the bytes pushed in order, of which
/// the first `consumed` are decoded. Consumed bytes are released by the next push (only the
/// undecoded tail, less than one item, moves); a chunk can be decompressed straight into it
/// ([`Window::fill_with`]). The buffer is only ever grown: bytes past `filled` are stale and
/// never read, so a chunk is decompressed over them without zero-filling it first. Shared by
/// [`DataDecoder`] and [`LegacyDataDecoder`](crate::component::legacy_data::LegacyDataDecoder).
#[derive(Debug, Clone, Default)]
pub struct Window {
    /// `buf[..filled]` is the window; the rest is spare room (stale bytes).
    buf: Vec<u8>,
    /// Bytes of `buf` pushed (at most `buf.len()`).
    filled: usize,
    /// Absolute position of `buf[0]`.
    start: u64,
    /// Bytes of `buf` already decoded (at most `filled`).
    consumed: usize,
    input_finished: bool,
}

/// Marks bytes of a [`Window::split_unread`] slice decoded, while items still borrow the slice.
pub(crate) struct Consumed<'w> {
    consumed: &'w mut usize,
    len: usize,
}

impl Consumed<'_> {
    /// `bytes` more are decoded (never past the window's end).
    pub(crate) fn advance(&mut self, bytes: usize) {
        *self.consumed = self.consumed.saturating_add(bytes).min(self.len);
    }
}

impl Window {
    /// Absolute uncompressed position of the next byte to decode.
    pub fn position(&self) -> u64 {
        self.start.saturating_add(self.consumed as u64)
    }

    /// Absolute uncompressed position the next pushed byte must have.
    pub fn input_position(&self) -> u64 {
        self.start.saturating_add(self.filled as u64)
    }

    /// Bytes pushed but not yet decoded.
    pub fn buffered_bytes(&self) -> usize {
        self.filled.saturating_sub(self.consumed)
    }

    /// Bytes held (decoded or not): the memory the decoder keeps.
    pub fn window_bytes(&self) -> usize {
        self.filled
    }

    /// Whether [`Window::finish`] was called.
    pub fn is_input_finished(&self) -> bool {
        self.input_finished
    }

    /// Appends the next uncompressed bytes (they start at [`Window::input_position`]).
    pub fn push(&mut self, bytes: &[u8]) {
        self.compact();
        self.buf.truncate(self.filled);
        self.buf.extend_from_slice(bytes);
        self.filled = self.buf.len();
    }

    /// No more input: the data ends at [`Window::input_position`].
    pub fn finish(&mut self) {
        self.input_finished = true;
    }

    /// Empties the window and restarts it at `position`, input not finished.
    pub(crate) fn reset(&mut self, position: u64) {
        self.filled = 0;
        self.start = position;
        self.consumed = 0;
        self.input_finished = false;
    }

    /// The undecoded bytes, and the handle that marks them decoded.
    pub(crate) fn split_unread(&mut self) -> (&[u8], Consumed<'_>) {
        let Window {
            buf,
            filled,
            consumed,
            ..
        } = self;
        let len = *filled;
        (
            buf.get(*consumed..len).unwrap_or(&[]),
            Consumed { consumed, len },
        )
    }

    /// What an empty window means, `None` while undecoded bytes are left: more data, the end
    /// of the data (`between_partitions`), or an error (the data ends inside a partition, whose
    /// end marker has `end_marker_bytes`).
    pub(crate) fn at_end(
        &self,
        between_partitions: bool,
        end_marker_bytes: u64,
    ) -> Option<Result<VisitStep>> {
        if self.consumed < self.filled {
            return None;
        }
        Some(if !self.input_finished {
            Ok(VisitStep::NeedMoreData)
        } else if between_partitions {
            Ok(VisitStep::Finished)
        } else {
            Err(Error::new(
                ErrorKind::UnexpectedEof {
                    needed_bytes: end_marker_bytes,
                    available_bytes: 0,
                },
                self.position(),
            )
            .context("the data ends inside a partition (no end-of-partition marker)"))
        })
    }

    /// Releases the consumed bytes: only the undecoded tail (less than one item) moves, once
    /// per push, never per item.
    fn compact(&mut self) {
        if self.consumed == 0 {
            return;
        }
        let n = self.consumed.min(self.filled);
        if self.filled <= self.buf.len() {
            self.buf.copy_within(n..self.filled, 0);
        }
        self.filled = self.filled.saturating_sub(n);
        self.start = self.start.saturating_add(n as u64);
        self.consumed = 0;
    }

    /// Lets `fill` write the next `len` bytes straight into the window (a chunk decompressed
    /// where it will be decoded; it must fill all of them, over stale bytes). With `skip > 0`
    /// the written bytes start `skip` bytes before [`Window::input_position`] (a chunk entered
    /// after a seek); that needs an empty window and `len >= skip`, else `Ok(false)` and nothing
    /// is written. When `fill` fails, the window is as before.
    pub(crate) fn fill_with<E>(
        &mut self,
        skip: usize,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<bool, E> {
        self.compact();
        if skip > 0 && (self.filled > 0 || len < skip) {
            return Ok(false);
        }
        let before = self.filled;
        let Some(end) = before.checked_add(len) else {
            return Ok(false);
        };
        if self.buf.len() < end {
            // Grown once to the largest window; never zeroed again.
            self.buf.resize(end, 0);
        }
        let Some(target) = self.buf.get_mut(before..end) else {
            return Ok(false);
        };
        fill(target)?;
        if skip > 0 {
            self.start = self.start.saturating_sub(skip as u64);
            self.consumed = skip;
        }
        self.filled = end;
        Ok(true)
    }
}

/// A push decoder over uncompressed Data.db bytes, the part that
/// [`ChunkedDataReader`](super::ChunkedDataReader) feeds: a [`Window`] it fills, a seek, and the
/// items it yields. [`DataDecoder`] (3.0+ rows) and
/// [`LegacyDataDecoder`](crate::component::legacy_data::LegacyDataDecoder) (2.x atoms) are the
/// two; the window calls (`push`, `finish`, positions) exist once, here.
pub trait PushDecoder {
    /// What the decoder is built from: the schema (3.0+) or the version (2.x).
    type Setup;
    /// What [`PushDecoder::next_item`] yields (it may borrow the window).
    type Step<'w>
    where
        Self: 'w;

    /// A decoder at uncompressed position 0.
    fn from_setup(setup: Self::Setup, options: DecodeOptions) -> Self;

    /// The SSTable version (it picks the chunk checksum: Adler32 before 3.0, then CRC32).
    fn version(&self) -> &Version;

    fn window(&self) -> &Window;

    fn window_mut(&mut self) -> &mut Window;

    /// Restarts at the partition starting at uncompressed `position` (from Index.db or
    /// Partitions.db): drops the window, clears an error.
    fn seek_to_partition(&mut self, position: u64);

    /// The next item, "need more data", or "finished".
    fn next_item(&mut self) -> Result<Self::Step<'_>>;

    /// Whether `step` is "need more data".
    fn needs_more_data(step: &Self::Step<'_>) -> bool;

    /// Appends the next uncompressed bytes (they start at [`PushDecoder::input_position`]).
    fn push(&mut self, bytes: &[u8]) {
        self.window_mut().push(bytes);
    }

    /// No more input: the data ends at [`PushDecoder::input_position`].
    fn finish(&mut self) {
        self.window_mut().finish();
    }

    /// Whether [`PushDecoder::finish`] was called.
    fn is_input_finished(&self) -> bool {
        self.window().is_input_finished()
    }

    /// Absolute uncompressed position of the next byte to decode.
    fn position(&self) -> u64 {
        self.window().position()
    }

    /// Absolute uncompressed position the next pushed byte must have.
    fn input_position(&self) -> u64 {
        self.window().input_position()
    }

    /// Bytes pushed but not yet decoded.
    fn buffered_bytes(&self) -> usize {
        self.window().buffered_bytes()
    }

    /// Bytes held in the window (decoded or not): what memory the decoder keeps.
    fn window_bytes(&self) -> usize {
        self.window().window_bytes()
    }
}
