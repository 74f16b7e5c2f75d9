//! Reading a partition from the Data.db position a lookup gave: its header, or all its rows.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use super::{CheckedDataReader, LookupStep};
use crate::clock::Clock;
use crate::component::data::{DataItem, DecodeStep, PartitionEnd, PartitionStart, PushDecoder};
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::range::{ItemReader, RangeSource, SyncDriver};
use crate::version::Version;

pub(super) use crate::checked_data::not_a_partition_header;

pub fn decodes_rows(version: &Version) -> bool {
    version.has_row_format()
}

/// The partition header at uncompressed Data.db `position`.
pub fn read_partition_start_with<S: RangeSource>(
    reader: &mut CheckedDataReader,
    position: u64,
    driver: &mut SyncDriver<S>,
    clock: &dyn Clock,
) -> Result<PartitionStart> {
    reader.reader_mut().seek_to_partition(position)?;
    match driver.next_item(reader, clock)? {
        DecodeStep::Item(DataItem::PartitionStart(s)) => Ok(s),
        DecodeStep::Item(other) => Err(not_a_partition_header(position, &other)),
        DecodeStep::Finished | DecodeStep::NeedMoreData => Err(Error::invalid(
            format!("no partition at Data.db {position}: the data ends there"),
            position,
        )
        .in_component(ComponentType::Data)),
    }
}

/// One partition read from Data.db by [`read_partition_with`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionRead {
    pub start: PartitionStart,
    pub has_static_row: bool,
    /// Regular rows.
    pub rows: u64,
    pub range_tombstone_markers: u64,
    pub end: PartitionEnd,
    /// One per Data.db read (chunk or block).
    pub steps: Vec<LookupStep>,
}

/// Decodes the whole partition at uncompressed Data.db `position` (3.0+), handing every item
/// to `on_item` and timing each read with `clock`.
pub fn read_partition_with<S: RangeSource, G>(
    reader: &mut CheckedDataReader,
    position: u64,
    driver: &mut SyncDriver<S>,
    clock: &dyn Clock,
    mut on_item: G,
) -> Result<PartitionRead>
where
    G: FnMut(&DataItem),
{
    reader.reader_mut().seek_to_partition(position)?;
    let mut steps = Vec::new();
    let mut last = clock.now_nanos();
    let mut start: Option<PartitionStart> = None;
    let mut items = 0usize;
    loop {
        match reader.next_item()? {
            DecodeStep::NeedMoreData => {
                let Some(range) = driver.step(reader, clock)? else {
                    return Err(Error::invalid(
                        "the data ends inside the partition",
                        reader.reader().decoder().position(),
                    )
                    .in_component(ComponentType::Data));
                };
                let now = clock.now_nanos();
                steps.push(LookupStep {
                    component: ComponentType::Data,
                    offset: range.offset,
                    length: range.len,
                    touched_bytes: range.len,
                    nanos: now.saturating_sub(last),
                    note: format!(
                        "rows of the partition at {position}: read {}, {items} items decoded before it",
                        steps.len().saturating_add(1)
                    ),
                });
                last = now;
            }
            DecodeStep::Finished => {
                return Err(Error::new(
                    ErrorKind::UnexpectedEof {
                        needed_bytes: 1,
                        available_bytes: 0,
                    },
                    reader.reader().decoder().position(),
                )
                .context("the data ends inside the partition")
                .in_component(ComponentType::Data))
            }
            DecodeStep::Item(item) => {
                items = items.saturating_add(1);
                on_item(&item);
                match item {
                    DataItem::PartitionStart(s) if start.is_none() => start = Some(s),
                    DataItem::PartitionEnd(end) => {
                        let Some(start) = start else {
                            return Err(Error::invalid("partition end without a start", position)
                                .in_component(ComponentType::Data));
                        };
                        return Ok(PartitionRead {
                            start,
                            has_static_row: end.has_static_row,
                            rows: end.row_count,
                            range_tombstone_markers: end.range_tombstone_marker_count,
                            end,
                            steps,
                        });
                    }
                    DataItem::PartitionStart(s) => {
                        return Err(Error::invalid(
                            "a second partition header before the end of the partition",
                            s.position,
                        )
                        .in_component(ComponentType::Data))
                    }
                    _ => {}
                }
            }
        }
    }
}
