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

use serde::{Deserialize, Serialize};

use super::atom::{read_atom_body, Atom, AtomKind};
use crate::component::data::{
    headers_only_schema, read_partition_start, waits_for_more, DataSchema, DecodeOptions,
    PartitionStart, PushDecoder, VisitStep, Window,
};
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::reader::Reader;
use crate::span::Span;
use crate::version::{Format, Version};

/// Atoms of a partition by kind.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, Default, PartialEq, Eq)]
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
        *n = n.saturating_add(1);
    }

    pub fn total(&self) -> u64 {
        [
            self.deleted,
            self.expiring,
            self.counter,
            self.counter_update,
            self.range_tombstone,
        ]
        .into_iter()
        .fold(self.cell, u64::saturating_add)
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
    window: Window,
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
        LegacyDataDecoder {
            header_schema: headers_only_schema(version),
            options,
            window: Window::default(),
            expect: Expect::PartitionStart,
            partition_start: 0,
            counts: AtomCounts::default(),
            failed: None,
        }
    }

    pub fn options(&self) -> &DecodeOptions {
        &self.options
    }

    /// The error the decoder stopped at, if any.
    pub fn error(&self) -> Option<&Error> {
        self.failed.as_ref()
    }

    /// The next item, [`LegacyStep::NeedMoreData`], or [`LegacyStep::Finished`]. Atoms borrow
    /// from the decoder until the next call that changes it.
    pub fn next_item(&mut self) -> Result<LegacyStep<'_>> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let pos = self.window.position();
        let input_finished = self.window.is_input_finished();
        if let Some(end) = self
            .window
            .at_end(self.expect == Expect::PartitionStart, END_MARKER_BYTES)
        {
            return match end {
                Ok(VisitStep::Finished) => Ok(LegacyStep::Finished),
                Ok(_) => Ok(LegacyStep::NeedMoreData),
                Err(e) => Err(fail(&mut self.failed, e)),
            };
        }
        let (bytes, mut consumed) = self.window.split_unread();
        let decoded = decode_one(bytes, pos, self.expect, &self.header_schema, &self.options);
        let (item, used) = match decoded {
            Ok(d) => d,
            Err(e) if waits_for_more(&e, input_finished) && !is_value_cap(&e) => {
                return Ok(LegacyStep::NeedMoreData)
            }
            Err(e) => return Err(fail(&mut self.failed, e)),
        };
        consumed.advance(used);
        let item = match item {
            Decoded::Start(start) => {
                self.expect = Expect::Atom;
                self.partition_start = pos;
                self.counts = AtomCounts::default();
                LegacyItem::PartitionStart(start)
            }
            Decoded::Atom(atom) => {
                self.counts.add(atom.kind);
                LegacyItem::Atom(atom)
            }
            Decoded::End => {
                self.expect = Expect::PartitionStart;
                LegacyItem::PartitionEnd(LegacyPartitionEnd {
                    position: pos,
                    partition_position: self.partition_start,
                    partition_span: Span::new(
                        self.partition_start,
                        pos.saturating_add(END_MARKER_BYTES),
                    ),
                    atom_counts: self.counts,
                })
            }
        };
        Ok(LegacyStep::Item(item))
    }
}

/// Records `e` as the error the decoder stopped at (in `failed`) and returns it.
fn fail(failed: &mut Option<Error>, e: Error) -> Error {
    let e = e.in_component(ComponentType::Data);
    *failed = Some(e.clone());
    e
}

impl PushDecoder for LegacyDataDecoder {
    type Setup = Version;
    type Step<'w> = LegacyStep<'w>;

    fn from_setup(version: Version, options: DecodeOptions) -> Self {
        LegacyDataDecoder::new(version, options)
    }

    fn version(&self) -> &Version {
        &self.header_schema.version
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }

    fn seek_to_partition(&mut self, position: u64) {
        self.window.reset(position);
        self.expect = Expect::PartitionStart;
        self.partition_start = position;
        self.counts = AtomCounts::default();
        self.failed = None;
    }

    fn next_item(&mut self) -> Result<LegacyStep<'_>> {
        LegacyDataDecoder::next_item(self)
    }

    fn needs_more_data(step: &LegacyStep<'_>) -> bool {
        matches!(step, LegacyStep::NeedMoreData)
    }
}

/// Bytes of the end-of-partition marker (an empty name: u16 `0x0000`).
const END_MARKER_BYTES: u64 = 2;

#[allow(clippy::large_enum_variant)]
enum Decoded<'w> {
    Start(PartitionStart),
    Atom(Atom<'w>),
    End,
}

/// Decodes the item at the start of `bytes` (absolute `pos`, not empty) and says how many bytes
/// it took.
fn decode_one<'w>(
    bytes: &'w [u8],
    pos: u64,
    expect: Expect,
    header_schema: &DataSchema,
    options: &DecodeOptions,
) -> Result<(Decoded<'w>, usize)> {
    let mut r = Reader::new(bytes, pos).for_component(ComponentType::Data);
    if expect == Expect::PartitionStart {
        let start = read_partition_start(&mut r, header_schema)?;
        return Ok((Decoded::Start(start), r.position()));
    }
    let name_len = r.u16("atom name length")?;
    if name_len == 0 {
        return Ok((Decoded::End, r.position()));
    }
    let name_start = r.offset();
    let name = r.bytes(usize::from(name_len), "atom name")?;
    let name_span = r.span_from(name_start);
    let atom = read_atom_body(
        &mut r,
        pos,
        name,
        name_span,
        &header_schema.version,
        options,
    )?;
    Ok((Decoded::Atom(atom), r.position()))
}

/// The value-length cap ([`DecodeOptions::max_value_bytes`]) is final: more data cannot help.
fn is_value_cap(e: &Error) -> bool {
    e.what() == "cell value (longer than max_value_bytes)"
}
