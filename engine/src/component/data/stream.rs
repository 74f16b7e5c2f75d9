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

use super::clustering::{Clustering, ClusteringValueState};
use super::partition::{read_partition_start, PartitionEnd};
use super::row::{read_head, Head, Row, UnfilteredHead, END_OF_PARTITION};
use super::schema::DataSchema;
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

/// What the decoder remembers about the current partition.
#[derive(Debug, Clone, Default)]
struct PartitionState {
    start: u64,
    previous_unfiltered_start: Option<u64>,
    last_clustering: Option<Vec<(ClusteringValueState, Vec<u8>)>>,
    row_count: u64,
    marker_count: u64,
    has_static_row: bool,
}

impl PartitionState {
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
        if self.consumed > 0 {
            let n = self.consumed.min(self.buf.len());
            self.buf.drain(..n);
            self.buf_start += n as u64;
            self.consumed = 0;
        }
        self.buf.extend_from_slice(bytes);
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
        self.partition = PartitionState::default();
        self.failed = None;
    }

    /// The next item, [`DecodeStep::NeedMoreData`], or [`DecodeStep::Finished`].
    pub fn next_item(&mut self) -> Result<DecodeStep> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        match self.step() {
            Ok(step) => Ok(step),
            Err(e) => {
                let e = e.in_component(ComponentType::Data);
                self.failed = Some(e.clone());
                Err(e)
            }
        }
    }

    /// An error from a read of the head: more data may complete it.
    fn incomplete(&self, e: Error) -> Result<DecodeStep> {
        let short = matches!(
            e.kind(),
            ErrorKind::UnexpectedEof { .. } | ErrorKind::LengthTooLarge { .. }
        );
        if short && !self.input_finished {
            Ok(DecodeStep::NeedMoreData)
        } else {
            Err(e)
        }
    }

    fn step(&mut self) -> Result<DecodeStep> {
        let pos = self.position();
        let window = self.buf.get(self.consumed..).unwrap_or(&[]);
        if window.is_empty() {
            if !self.input_finished {
                return Ok(DecodeStep::NeedMoreData);
            }
            if self.expect == Expect::PartitionStart {
                return Ok(DecodeStep::Finished);
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
        if self.expect == Expect::PartitionStart {
            let start = match read_partition_start(&mut r, &self.schema) {
                Ok(s) => s,
                Err(e) => return self.incomplete(e),
            };
            self.consumed += r.position();
            self.partition = PartitionState {
                start: pos,
                ..PartitionState::default()
            };
            self.expect = if self.schema.has_static_row() {
                Expect::StaticRow
            } else {
                Expect::Unfiltered
            };
            return Ok(DecodeStep::Item(DataItem::PartitionStart(start)));
        }
        let static_row = self.expect == Expect::StaticRow;
        let head = match read_head(&mut r, &self.schema, &self.options, static_row) {
            Ok(h) => h,
            Err(e) => return self.incomplete(e),
        };
        let window_len = window.len();
        match head {
            Head::EndOfPartition(flags) => {
                self.consumed += 1;
                self.expect = Expect::PartitionStart;
                Ok(DecodeStep::Item(DataItem::PartitionEnd(
                    self.partition.end(pos, flags),
                )))
            }
            Head::Row(h) => {
                let Some(body) = declared_body(
                    window,
                    pos,
                    h.body_start,
                    h.declared_end,
                    self.input_finished,
                    "row",
                )?
                else {
                    return Ok(DecodeStep::NeedMoreData);
                };
                let (decoded, switched) = decode_row_body(
                    &self.schema,
                    self.alternate.as_ref(),
                    &self.options,
                    &h,
                    body,
                );
                if switched {
                    if let Some(alt) = self.alternate.take() {
                        self.schema = alt;
                    }
                }
                let mut row = decoded?;
                self.after_row(&mut row);
                self.consumed += usize::try_from(h.declared_end - pos).unwrap_or(window_len);
                self.expect = Expect::Unfiltered;
                Ok(DecodeStep::Item(if row.is_static {
                    DataItem::StaticRow(row)
                } else {
                    DataItem::Row(row)
                }))
            }
            Head::Marker(h) => {
                let Some(body) = declared_body(
                    window,
                    pos,
                    h.body_start,
                    h.declared_end,
                    self.input_finished,
                    "range tombstone marker",
                )?
                else {
                    return Ok(DecodeStep::NeedMoreData);
                };
                let mut br = Reader::new(body, h.body_start).for_component(ComponentType::Data);
                let mut marker = h.read_body(&mut br, &self.schema)?;
                self.check_previous_size(
                    marker.position,
                    marker.previous_unfiltered_size.value,
                    marker.previous_unfiltered_size.span,
                    false,
                    &mut marker.findings,
                );
                self.partition.previous_unfiltered_start = Some(marker.position);
                self.partition.marker_count += 1;
                self.consumed += usize::try_from(h.declared_end - pos).unwrap_or(window_len);
                Ok(DecodeStep::Item(DataItem::RangeTombstoneMarker(marker)))
            }
        }
    }

    /// Cross-row checks (previous size, duplicate clustering) and partition bookkeeping.
    fn after_row(&mut self, row: &mut Row) {
        self.check_previous_size(
            row.position,
            row.previous_unfiltered_size.value,
            row.previous_unfiltered_size.span,
            row.is_static,
            &mut row.findings,
        );
        if row.is_static {
            self.partition.has_static_row = true;
            return;
        }
        self.partition.previous_unfiltered_start = Some(row.position);
        self.partition.row_count += 1;
        let clustering: Option<Vec<(ClusteringValueState, Vec<u8>)>> = row
            .clustering
            .as_ref()
            .map(|c| c.value_bytes().map(|(s, b)| (*s, b.to_vec())).collect());
        if clustering.is_some() && clustering == self.partition.last_clustering {
            if let Some(c) = &row.clustering {
                row.findings.push(Finding::new(
                    FindingKind::DuplicateClustering,
                    c.span,
                    "this row has the same clustering as the previous row of the partition \
                     (duplicate rows; scrub keeps one)"
                        .to_owned(),
                ));
            }
        }
        self.partition.last_clustering = clustering;
    }

    fn check_previous_size(
        &self,
        position: u64,
        stored: u64,
        span: Span,
        is_static: bool,
        findings: &mut Vec<Finding>,
    ) {
        let expected = if is_static {
            0
        } else {
            position.saturating_sub(
                self.partition
                    .previous_unfiltered_start
                    .unwrap_or(self.partition.start),
            )
        };
        if stored != expected {
            findings.push(Finding::new(
                FindingKind::PreviousSizeMismatch,
                span,
                format!(
                    "previous unfiltered size is {stored}, but the previous unfiltered (or the \
                     partition start) is {expected} bytes back"
                ),
            ));
        }
    }
}

/// Decodes a row body, retrying an ambiguous frozen-UDT header's other reading when the row
/// does not decode to exactly its declared size. The flag says whether the other reading won.
fn decode_row_body(
    schema: &DataSchema,
    alternate: Option<&DataSchema>,
    options: &DecodeOptions,
    head: &UnfilteredHead<Option<Clustering>>,
    body: &[u8],
) -> (Result<Row>, bool) {
    let attempt = |schema: &DataSchema| {
        let mut br = Reader::new(body, head.body_start).for_component(ComponentType::Data);
        head.read_body(&mut br, schema, options)
    };
    let first = attempt(schema);
    let exact = matches!(&first, Ok(row) if row.body_end == head.declared_end);
    let Some(alternate) = alternate.filter(|_| !exact) else {
        return (first, false);
    };
    match attempt(alternate) {
        Ok(mut row) if row.body_end == head.declared_end => {
            row.findings.push(Finding::new(
                FindingKind::FrozenUdtInterpretation,
                row.row_size.span,
                "this row only decodes with bare UserType columns read as frozen (a Cassandra \
                 3.0.x writer, CASSANDRA-15035); the rest of the SSTable is read that way"
                    .to_owned(),
            ));
            (Ok(row), true)
        }
        _ => (first, false),
    }
}
