//! The lookup through the byte-range protocol: what it reads next, and where supplied bytes go.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::{Lookup, Processed, Stage, StopReason, FOOTER_BYTES};
use crate::clock::Clock;
use crate::component::bti::trie::PAGE_SIZE;
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::range::{ByteRange, RangeReader};

/// The lookup through the byte-range protocol.
impl RangeReader for Lookup {
    /// The byte range to read next, or `None` when the lookup is done.
    fn next_read(&self) -> Option<ByteRange> {
        match &self.stage {
            Stage::IndexScan(s) => Some(ByteRange::new(
                ComponentType::PrimaryIndex,
                s.next_offset,
                s.window_bytes
                    .min(s.range_end.saturating_sub(s.next_offset)),
            )),
            Stage::PartitionsFooter { file_len } => Some(ByteRange::new(
                ComponentType::Partitions,
                file_len.saturating_sub(FOOTER_BYTES),
                FOOTER_BYTES,
            )),
            Stage::PartitionsNode(d) => {
                let start = d.node.saturating_sub(d.node % PAGE_SIZE);
                Some(ByteRange::new(
                    ComponentType::Partitions,
                    start,
                    d.pages
                        .saturating_mul(PAGE_SIZE)
                        .min(d.file_len.saturating_sub(start)),
                ))
            }
            Stage::RowsEntry { position, window } => Some(window.read_for(*position, *position)),
            Stage::DataHeader { .. } => self.data.as_ref().ok()?.next_read(),
            Stage::Done => None,
        }
    }

    /// Hands over the bytes of the range `next_read` asked for. A decoding error ends the lookup
    /// (its result stops at [`StopReason::Error`]) and is also returned.
    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        let Some(request) = self.next_read() else {
            return Err(
                Error::invalid("bytes supplied but nothing was asked for", range.offset)
                    .context("lookup"),
            );
        };
        let len = bytes.len() as u64;
        let outcome = if request != *range {
            Err(Error::new(
                ErrorKind::MissingBytes {
                    wanted_start: request.offset,
                    wanted_end: request.end(),
                },
                range.offset,
            )
            .context("lookup read (not the range asked for)"))
        } else if len < request.len {
            Err(request.short_read(len).context("lookup read (short read)"))
        } else {
            let bytes = usize::try_from(request.len)
                .ok()
                .and_then(|n| bytes.get(..n))
                .unwrap_or(bytes);
            self.process(&request, bytes, clock)
        };
        match outcome {
            Ok(p) => {
                self.push_step(
                    request.component,
                    request.offset,
                    request.len,
                    p.touched_bytes,
                    p.note,
                    clock,
                );
                Ok(())
            }
            Err(e) => {
                let e = e.in_component(request.component.clone());
                self.push_step(
                    request.component,
                    request.offset,
                    request.len,
                    0,
                    format!("error: {e}"),
                    clock,
                );
                self.stop(StopReason::from_error(&e));
                Err(e)
            }
        }
    }

    /// The caller could not read the range asked for: ends the lookup with this error.
    fn abort(&mut self, range: &ByteRange, error: &Error, clock: &dyn Clock) {
        let error = error.clone().in_component(range.component.clone());
        self.push_step(
            range.component.clone(),
            range.offset,
            range.len,
            0,
            format!("read failed: {error}"),
            clock,
        );
        self.stop(StopReason::from_error(&error));
    }
}

impl Lookup {
    pub(super) fn process(
        &mut self,
        range: &ByteRange,
        bytes: &[u8],
        clock: &dyn Clock,
    ) -> Result<Processed> {
        let offset = range.offset;
        match core::mem::replace(&mut self.stage, Stage::Done) {
            Stage::IndexScan(scan) => self.scan_index(scan, offset, bytes),
            Stage::PartitionsFooter { file_len } => self.read_footer(file_len, offset, bytes),
            Stage::PartitionsNode(d) => self.descend(d, offset, bytes),
            Stage::RowsEntry { position, window } => {
                self.read_rows_entry(position, window, range, bytes)
            }
            Stage::DataHeader { position } => self.read_data_header(position, range, bytes, clock),
            Stage::Done => Err(Error::invalid("the lookup is finished", offset)),
        }
    }
}
