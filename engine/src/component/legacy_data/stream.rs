//! The push decoder: uncompressed pre-3.0 Data.db bytes in, one partition header, atom or
//! partition end at a time out.
//!
//! Same protocol as the 3.0+ [`DataDecoder`](crate::component::data::DataDecoder): `push` the
//! uncompressed bytes in order (from 0, or from a partition position after
//! [`LegacyDataDecoder::seek_to_partition`]), `finish` at the end, `next_item` until
//! [`LegacyStep::Finished`]. Consumed bytes are dropped on the next push, so the window holds one
//! atom plus the last push. Atoms borrow their name and value from the window; the borrow ends
//! before the next `push`. A value length above [`DecodeOptions::max_value_bytes`] is an error,
//! never a wait for more data. After an error the decoder stays failed until
//! [`LegacyDataDecoder::seek_to_partition`].
//!
//! Src: `db/OnDiskAtom.java` (`Serializer.deserializeFromSSTable`), `db/ColumnIndex.java`
//! (`Builder`: key, DeletionTime, atoms, `endOfRowMarker`), `io/sstable/SSTableIdentityIterator.java`.

use serde::Serialize;

use super::atom::{read_atom_body, Atom, AtomKind};
use crate::component::data::{
    read_partition_start, DataSchema, DecodeOptions, DeltaBase, PartitionStart,
};
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;
use crate::span::Span;
use crate::types::AbstractType;
use crate::version::{Format, Version};

/// Atoms of a partition by kind.
#[derive(Serialize, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AtomCounts {
    pub cell: u64,
    pub deleted: u64,
    pub expiring: u64,
    pub counter: u64,
    pub counter_update: u64,
    pub range_tombstone: u64,
}

impl AtomCounts {
    pub fn add(&mut self, kind: AtomKind) {
        let n = match kind {
            AtomKind::Cell => &mut self.cell,
            AtomKind::Deleted => &mut self.deleted,
            AtomKind::Expiring => &mut self.expiring,
            AtomKind::Counter => &mut self.counter,
            AtomKind::CounterUpdate => &mut self.counter_update,
            AtomKind::RangeTombstone => &mut self.range_tombstone,
        };
        *n += 1;
    }

    pub fn total(&self) -> u64 {
        self.cell
            + self.deleted
            + self.expiring
            + self.counter
            + self.counter_update
            + self.range_tombstone
    }
}

/// The end-of-partition marker (an empty name), with the partition's totals.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct LegacyPartitionEnd {
    /// Absolute offset of the two-byte empty name.
    pub position: u64,
    pub partition_position: u64,
    /// The whole partition, end marker included.
    pub partition_span: Span,
    pub atom_counts: AtomCounts,
}

/// One decoded piece of a pre-3.0 Data.db, in file order.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub enum LegacyItem<'w> {
    PartitionStart(PartitionStart),
    Atom(Atom<'w>),
    PartitionEnd(LegacyPartitionEnd),
}

impl LegacyItem<'_> {
    /// Absolute uncompressed offset of the item's first byte.
    pub fn position(&self) -> u64 {
        match self {
            LegacyItem::PartitionStart(p) => p.position,
            LegacyItem::Atom(a) => a.position,
            LegacyItem::PartitionEnd(e) => e.position,
        }
    }
}

/// What [`LegacyDataDecoder::next_item`] produced.
// The item is handed over by value exactly once; boxing it would cost an allocation per atom.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum LegacyStep<'w> {
    Item(LegacyItem<'w>),
    /// The next item is not complete yet: push more bytes (or call `finish`).
    NeedMoreData,
    /// The input is finished and every item was returned.
    Finished,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    PartitionStart,
    Atom,
}

/// The push decoder over uncompressed pre-3.0 Data.db bytes.
#[derive(Debug, Clone)]
pub struct LegacyDataDecoder {
    /// Partition headers are read with the 3.0 reader (same layout before `oa`).
    header_schema: DataSchema,
    options: DecodeOptions,
    buf: Vec<u8>,
    /// Absolute position of `buf[0]`.
    buf_start: u64,
    /// Bytes of `buf` already decoded.
    consumed: usize,
    input_finished: bool,
    expect: Expect,
    partition_start: u64,
    counts: AtomCounts,
    failed: Option<Error>,
}

impl LegacyDataDecoder {
    /// Whether this decoder reads the version's Data.db: `ja` (2.0) up to the 3.0 row format.
    /// Before `ja` a partition also carries a row size and a column count
    /// (`Descriptor.Version.hasRowSizeAndColumnCount`), which is not decoded here.
    pub fn supports(version: &Version) -> bool {
        version.format() == Format::Big && version.as_str() >= "ja" && !version.has_row_format()
    }

    /// A decoder at uncompressed position 0 for a `jb`/`ka`/`la` (or older big) Data.db.
    pub fn new(version: Version, options: DecodeOptions) -> LegacyDataDecoder {
        let header_schema = DataSchema::from_parts(
            version,
            AbstractType::Bytes,
            Vec::new(),
            Vec::new(),
            Vec::new(),
            DeltaBase {
                min_timestamp_micros: 0,
                min_local_deletion_time_raw: 0,
                min_ttl_secs: 0,
                unsigned_deletion_time: false,
            },
        );
        LegacyDataDecoder {
            header_schema,
            options,
            buf: Vec::new(),
            buf_start: 0,
            consumed: 0,
            input_finished: false,
            expect: Expect::PartitionStart,
            partition_start: 0,
            counts: AtomCounts::default(),
            failed: None,
        }
    }

    pub fn version(&self) -> &Version {
        &self.header_schema.version
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

    /// Bytes held in the window (decoded or not) — what memory the decoder keeps.
    pub fn window_bytes(&self) -> usize {
        self.buf.len()
    }

    /// Bytes pushed but not yet decoded.
    pub fn buffered_bytes(&self) -> usize {
        self.buf.len().saturating_sub(self.consumed)
    }

    pub fn is_input_finished(&self) -> bool {
        self.input_finished
    }

    /// The error the decoder stopped at, if any.
    pub fn error(&self) -> Option<&Error> {
        self.failed.as_ref()
    }

    /// Appends the next uncompressed bytes (they start at [`LegacyDataDecoder::input_position`]).
    pub fn push(&mut self, bytes: &[u8]) {
        if self.consumed > 0 {
            let n = self.consumed.min(self.buf.len());
            self.buf.drain(..n);
            self.buf_start += n as u64;
            self.consumed = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// No more input.
    pub fn finish(&mut self) {
        self.input_finished = true;
    }

    /// Restarts at the partition at uncompressed `position` (from Index.db): drops the window,
    /// clears an error.
    pub fn seek_to_partition(&mut self, position: u64) {
        self.buf.clear();
        self.buf_start = position;
        self.consumed = 0;
        self.input_finished = false;
        self.expect = Expect::PartitionStart;
        self.partition_start = position;
        self.counts = AtomCounts::default();
        self.failed = None;
    }

    /// The next item, [`LegacyStep::NeedMoreData`], or [`LegacyStep::Finished`]. Atoms borrow
    /// from the decoder until the next call that changes it.
    pub fn next_item(&mut self) -> Result<LegacyStep<'_>> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let pos = self.buf_start + self.consumed as u64;
        let window: &[u8] = self.buf.get(self.consumed..).unwrap_or(&[]);
        let decoded = decode_one(
            window,
            pos,
            self.expect,
            &self.header_schema,
            &self.options,
            self.input_finished,
        );
        match decoded {
            Err(e) => {
                let e = e.in_component(ComponentType::Data);
                self.failed = Some(e.clone());
                Err(e)
            }
            Ok(Decoded::NeedMoreData) => Ok(LegacyStep::NeedMoreData),
            Ok(Decoded::Finished) => Ok(LegacyStep::Finished),
            Ok(Decoded::Start(start, used)) => {
                self.consumed += used;
                self.expect = Expect::Atom;
                self.partition_start = pos;
                self.counts = AtomCounts::default();
                Ok(LegacyStep::Item(LegacyItem::PartitionStart(start)))
            }
            Ok(Decoded::End) => {
                self.consumed += 2;
                self.expect = Expect::PartitionStart;
                Ok(LegacyStep::Item(LegacyItem::PartitionEnd(
                    LegacyPartitionEnd {
                        position: pos,
                        partition_position: self.partition_start,
                        partition_span: Span::new(self.partition_start, pos + 2),
                        atom_counts: self.counts,
                    },
                )))
            }
            Ok(Decoded::Atom(atom, used)) => {
                self.consumed += used;
                self.counts.add(atom.kind);
                Ok(LegacyStep::Item(LegacyItem::Atom(atom)))
            }
        }
    }
}

#[allow(clippy::large_enum_variant)]
enum Decoded<'w> {
    NeedMoreData,
    Finished,
    Start(PartitionStart, usize),
    Atom(Atom<'w>, usize),
    End,
}

/// Decodes the item at the start of `window` (absolute `pos`).
fn decode_one<'w>(
    window: &'w [u8],
    pos: u64,
    expect: Expect,
    header_schema: &DataSchema,
    options: &DecodeOptions,
    input_finished: bool,
) -> Result<Decoded<'w>> {
    let incomplete = |e: Error| -> Result<Decoded<'w>> {
        if matches!(
            e.kind(),
            ErrorKind::UnexpectedEof { .. } | ErrorKind::LengthTooLarge { .. }
        ) && !input_finished
            && !is_value_cap(&e)
        {
            Ok(Decoded::NeedMoreData)
        } else {
            Err(e)
        }
    };
    if window.is_empty() {
        if !input_finished {
            return Ok(Decoded::NeedMoreData);
        }
        if expect == Expect::PartitionStart {
            return Ok(Decoded::Finished);
        }
        return Err(Error::new(
            ErrorKind::UnexpectedEof {
                needed_bytes: 2,
                available_bytes: 0,
            },
            pos,
        )
        .context("the data ends inside a partition (no end-of-partition marker)"));
    }
    let mut r = Reader::new(window, pos).for_component(ComponentType::Data);
    if expect == Expect::PartitionStart {
        return match read_partition_start(&mut r, header_schema) {
            Ok(s) => Ok(Decoded::Start(s, r.position())),
            Err(e) => incomplete(e),
        };
    }
    let name_len = match r.u16("atom name length") {
        Ok(n) => n,
        Err(e) => return incomplete(e),
    };
    if name_len == 0 {
        return Ok(Decoded::End);
    }
    let name_start = r.offset();
    let name = match r.bytes(usize::from(name_len), "atom name") {
        Ok(n) => n,
        Err(e) => return incomplete(e),
    };
    let name_span = r.span_from(name_start);
    match read_atom_body(
        &mut r,
        pos,
        name,
        name_span,
        &header_schema.version,
        options,
    ) {
        Ok(atom) => Ok(Decoded::Atom(atom, r.position())),
        Err(e) => incomplete(e),
    }
}

/// The value-length cap ([`DecodeOptions::max_value_bytes`]) is final: more data cannot help.
fn is_value_cap(e: &Error) -> bool {
    e.what() == "cell value (longer than max_value_bytes)"
}
