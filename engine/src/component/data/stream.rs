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

use super::clustering::ClusteringView;
use super::partition::{read_partition_start, PartitionEnd};
use super::row::{read_head, Head, RowEnd, RowScratch, UnfilteredHead, END_OF_PARTITION};
use super::schema::DataSchema;
use super::visit::{DataVisitor, IgnoreAll, ItemBuilder};
use super::{DataItem, DecodeOptions, Finding, FindingKind};
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;
use crate::span::{Span, Spanned};

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

/// What the decoder remembers about the current partition.
#[derive(Debug, Clone, Default)]
struct PartitionState {
    start: u64,
    previous_unfiltered_start: Option<u64>,
    /// The encoded clustering of the previous row (valid when `has_last_clustering`); kept in a
    /// reused buffer. Equal encodings are equal clusterings.
    last_clustering: Vec<u8>,
    has_last_clustering: bool,
    row_count: u64,
    marker_count: u64,
    has_static_row: bool,
}

impl PartitionState {
    /// A new partition at `start`, keeping the buffer.
    fn reset(&mut self, start: u64) {
        self.start = start;
        self.previous_unfiltered_start = None;
        self.last_clustering.clear();
        self.has_last_clustering = false;
        self.row_count = 0;
        self.marker_count = 0;
        self.has_static_row = false;
    }

    fn check_previous_size(
        &self,
        position: u64,
        stored: &Spanned<u64>,
        is_static: bool,
        findings: &mut Vec<Finding>,
    ) {
        let expected = if is_static {
            0
        } else {
            position.saturating_sub(self.previous_unfiltered_start.unwrap_or(self.start))
        };
        if stored.value != expected {
            findings.push(Finding::new(
                FindingKind::PreviousSizeMismatch,
                stored.span,
                format!(
                    "previous unfiltered size is {}, but the previous unfiltered (or the \
                     partition start) is {expected} bytes back",
                    stored.value
                ),
            ));
        }
    }

    /// Cross-row checks (previous size, duplicate clustering) and partition bookkeeping.
    fn after_row(
        &mut self,
        position: u64,
        previous_unfiltered_size: &Spanned<u64>,
        clustering: Option<&ClusteringView<'_>>,
        findings: &mut Vec<Finding>,
    ) {
        let is_static = clustering.is_none();
        self.check_previous_size(position, previous_unfiltered_size, is_static, findings);
        let Some(c) = clustering else {
            self.has_static_row = true;
            return;
        };
        self.previous_unfiltered_start = Some(position);
        self.row_count += 1;
        if self.has_last_clustering && self.last_clustering == c.encoded_values() {
            findings.push(Finding::new(
                FindingKind::DuplicateClustering,
                c.span,
                "this row has the same clustering as the previous row of the partition \
                 (duplicate rows; scrub keeps one)"
                    .to_owned(),
            ));
        }
        self.last_clustering.clear();
        self.last_clustering.extend_from_slice(c.encoded_values());
        self.has_last_clustering = true;
    }

    /// The end-of-partition item for the flags byte at `pos`.
    fn end(&self, pos: u64, flags: Spanned<u8>) -> PartitionEnd {
        let mut findings = Vec::new();
        if flags.value != END_OF_PARTITION {
            findings.push(Finding::new(
                FindingKind::UnexpectedFlags,
                flags.span,
                format!(
                    "end-of-partition byte {:#04x} has other bits than 0x01",
                    flags.value
                ),
            ));
        }
        PartitionEnd {
            position: pos,
            flags,
            partition_position: self.start,
            partition_span: Span::new(self.start, pos + 1),
            row_count: self.row_count,
            range_tombstone_marker_count: self.marker_count,
            has_static_row: self.has_static_row,
            findings,
        }
    }
}

/// The declared body `[body_start, declared_end)` of an unfiltered starting at `pos` (the
/// window's first byte): `None` while it is not all in the window, an error when the input
/// ended before it.
fn declared_body<'w>(
    window: &'w [u8],
    pos: u64,
    body_start: u64,
    declared_end: u64,
    input_finished: bool,
    what: &'static str,
) -> Result<Option<&'w [u8]>> {
    let available = window.len() as u64;
    if declared_end - pos > available {
        if !input_finished {
            return Ok(None);
        }
        return Err(Error::new(
            ErrorKind::UnexpectedEof {
                needed_bytes: declared_end - pos,
                available_bytes: available,
            },
            pos,
        )
        .context(what));
    }
    let body = usize::try_from(body_start - pos)
        .ok()
        .zip(usize::try_from(declared_end - pos).ok())
        .and_then(|(a, b)| window.get(a..b))
        .unwrap_or(&[]);
    Ok(Some(body))
}

/// The push decoder over uncompressed Data.db bytes.
#[derive(Debug, Clone)]
pub struct DataDecoder {
    schema: DataSchema,
    /// The other reading of an ambiguous frozen-UDT header, until one is chosen.
    alternate: Option<DataSchema>,
    options: DecodeOptions,
    buf: Vec<u8>,
    /// Absolute position of `buf[0]`.
    buf_start: u64,
    /// Bytes of `buf` already decoded.
    consumed: usize,
    input_finished: bool,
    expect: Expect,
    partition: PartitionState,
    failed: Option<Error>,
    scratch: RowScratch,
    /// The next row is the one that switched to the frozen-UDT reading (it gets the finding).
    switched_to_frozen_udts: bool,
}

impl DataDecoder {
    /// A decoder at uncompressed position 0.
    pub fn new(schema: DataSchema, options: DecodeOptions) -> DataDecoder {
        let alternate = schema.with_frozen_bare_udts();
        DataDecoder {
            schema,
            alternate,
            options,
            buf: Vec::new(),
            buf_start: 0,
            consumed: 0,
            input_finished: false,
            expect: Expect::PartitionStart,
            partition: PartitionState::default(),
            failed: None,
            scratch: RowScratch::default(),
            switched_to_frozen_udts: false,
        }
    }

    /// The schema rows are decoded with (after a frozen-UDT switch, the frozen reading).
    pub fn schema(&self) -> &DataSchema {
        &self.schema
    }

    pub fn options(&self) -> &DecodeOptions {
        &self.options
    }

    /// Absolute uncompressed position of the next byte to decode.
    pub fn position(&self) -> u64 {
        self.buf_start + self.consumed as u64
    }

    /// Absolute uncompressed position the next pushed byte must have.
    pub fn input_position(&self) -> u64 {
        self.buf_start + self.buf.len() as u64
    }

    /// Bytes pushed but not yet decoded.
    pub fn buffered_bytes(&self) -> usize {
        self.buf.len().saturating_sub(self.consumed)
    }

    /// Whether [`DataDecoder::finish`] was called.
    pub fn is_input_finished(&self) -> bool {
        self.input_finished
    }

    /// The error the decoder stopped at, if any.
    pub fn error(&self) -> Option<&Error> {
        self.failed.as_ref()
    }

    /// Appends the next uncompressed bytes (they start at [`DataDecoder::input_position`]).
    pub fn push(&mut self, bytes: &[u8]) {
        self.compact();
        self.buf.extend_from_slice(bytes);
    }

    /// Releases the consumed bytes: only the undecoded tail (less than one item) moves, once
    /// per push, never per item.
    fn compact(&mut self) {
        if self.consumed == 0 {
            return;
        }
        let n = self.consumed.min(self.buf.len());
        if n == self.buf.len() {
            self.buf.clear();
        } else {
            self.buf.copy_within(n.., 0);
            self.buf.truncate(self.buf.len() - n);
        }
        self.buf_start += n as u64;
        self.consumed = 0;
    }

    /// Lets `fill` append the next bytes straight into the window (a chunk decompressed where
    /// it will be decoded). With `skip > 0` the appended bytes start `skip` bytes before
    /// [`DataDecoder::input_position`] (a chunk entered after a seek); that needs an empty
    /// window. When `fill` fails, the window is as before.
    pub(crate) fn fill_with<E>(
        &mut self,
        skip: usize,
        fill: impl FnOnce(&mut Vec<u8>) -> core::result::Result<(), E>,
    ) -> core::result::Result<bool, E> {
        self.compact();
        if skip > 0 && !self.buf.is_empty() {
            return Ok(false);
        }
        let before = self.buf.len();
        let skip_u64 = skip as u64;
        if skip > 0 {
            self.buf_start = self.buf_start.saturating_sub(skip_u64);
            self.consumed = skip;
        }
        match fill(&mut self.buf) {
            Ok(()) if self.buf.len() >= before + skip => Ok(true),
            Ok(()) => {
                // Fewer bytes than skipped: nothing of them is input.
                self.buf.truncate(before);
                self.restore_skip(skip_u64);
                Ok(true)
            }
            Err(e) => {
                self.buf.truncate(before);
                self.restore_skip(skip_u64);
                Err(e)
            }
        }
    }

    fn restore_skip(&mut self, skip: u64) {
        if skip > 0 {
            self.buf_start += skip;
            self.consumed = 0;
        }
    }

    /// No more input: the data ends at [`DataDecoder::input_position`].
    pub fn finish(&mut self) {
        self.input_finished = true;
    }

    /// Restarts at the partition starting at uncompressed `position` (from Index.db or
    /// Partitions.db): drops the window, clears an error, expects a partition header next.
    pub fn seek_to_partition(&mut self, position: u64) {
        self.buf.clear();
        self.buf_start = position;
        self.consumed = 0;
        self.input_finished = false;
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
    pub fn visit_next<V: DataVisitor + ?Sized>(&mut self, visitor: &mut V) -> Result<VisitStep> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        loop {
            match self.attempt(visitor) {
                Ok(Attempt::Done(step)) => return Ok(step),
                Ok(Attempt::SwitchToFrozenUdts) => {
                    if let Some(alt) = self.alternate.take() {
                        self.schema = alt;
                    }
                    self.switched_to_frozen_udts = true;
                }
                Err(e) => {
                    let e = e.in_component(ComponentType::Data);
                    self.failed = Some(e.clone());
                    return Err(e);
                }
            }
        }
    }

    fn attempt<V: DataVisitor + ?Sized>(&mut self, v: &mut V) -> Result<Attempt> {
        let pos = self.position();
        let DataDecoder {
            schema,
            alternate,
            options,
            buf,
            consumed,
            input_finished,
            expect,
            partition,
            scratch,
            switched_to_frozen_udts,
            ..
        } = self;
        let input_finished = *input_finished;
        let incomplete = |e: Error| -> Result<Attempt> {
            let short = matches!(
                e.kind(),
                ErrorKind::UnexpectedEof { .. } | ErrorKind::LengthTooLarge { .. }
            );
            if short && !input_finished {
                Ok(Attempt::Done(VisitStep::NeedMoreData))
            } else {
                Err(e)
            }
        };
        let window = buf.get(*consumed..).unwrap_or(&[]);
        if window.is_empty() {
            if !input_finished {
                return Ok(Attempt::Done(VisitStep::NeedMoreData));
            }
            if *expect == Expect::PartitionStart {
                return Ok(Attempt::Done(VisitStep::Finished));
            }
            return Err(Error::new(
                ErrorKind::UnexpectedEof {
                    needed_bytes: 1,
                    available_bytes: 0,
                },
                pos,
            )
            .context("the data ends inside a partition"));
        }
        let mut r = Reader::new(window, pos).for_component(ComponentType::Data);
        if *expect == Expect::PartitionStart {
            let start = match read_partition_start(&mut r, schema) {
                Ok(s) => s,
                Err(e) => return incomplete(e),
            };
            *consumed += r.position();
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
        let head = match read_head(&mut r, schema, options, static_row) {
            Ok(h) => h,
            Err(e) => return incomplete(e),
        };
        let window_len = window.len();
        match head {
            Head::EndOfPartition(flags) => {
                *consumed += 1;
                *expect = Expect::PartitionStart;
                v.partition_end(&partition.end(pos, flags));
                Ok(Attempt::Done(VisitStep::Visited))
            }
            Head::Row(h) => {
                let Some(body) = declared_body(
                    window,
                    pos,
                    h.body_start,
                    h.declared_end,
                    input_finished,
                    "row",
                )?
                else {
                    return Ok(Attempt::Done(VisitStep::NeedMoreData));
                };
                if let Some(alt) = alternate.as_ref() {
                    // An ambiguous frozen-UDT header: a row that does not decode to exactly its
                    // declared size with this reading but does with the other switches readings.
                    if !decodes_exactly(&h, body, schema, options, scratch)
                        && decodes_exactly(&h, body, alt, options, scratch)
                    {
                        return Ok(Attempt::SwitchToFrozenUdts);
                    }
                }
                let mut br = Reader::new(body, h.body_start).for_component(ComponentType::Data);
                let (body_end, previous_unfiltered_size) =
                    h.visit_body(&mut br, schema, options, scratch, v)?;
                if core::mem::take(switched_to_frozen_udts) {
                    scratch.findings.push(Finding::new(
                        FindingKind::FrozenUdtInterpretation,
                        h.size.span,
                        "this row only decodes with bare UserType columns read as frozen (a \
                         Cassandra 3.0.x writer, CASSANDRA-15035); the rest of the SSTable is \
                         read that way"
                            .to_owned(),
                    ));
                }
                partition.after_row(
                    h.position,
                    &previous_unfiltered_size,
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
                *consumed += usize::try_from(h.declared_end - pos).unwrap_or(window_len);
                *expect = Expect::Unfiltered;
                Ok(Attempt::Done(VisitStep::Visited))
            }
            Head::Marker(h) => {
                let Some(body) = declared_body(
                    window,
                    pos,
                    h.body_start,
                    h.declared_end,
                    input_finished,
                    "range tombstone marker",
                )?
                else {
                    return Ok(Attempt::Done(VisitStep::NeedMoreData));
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
                partition.marker_count += 1;
                *consumed += usize::try_from(h.declared_end - pos).unwrap_or(window_len);
                v.range_tombstone_marker(&marker);
                Ok(Attempt::Done(VisitStep::Visited))
            }
        }
    }
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
