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

mod drivers;
mod index_entries;
mod partitions;
mod rows_entry;
mod trie_pages;

pub use drivers::{AsyncDriver, DriverItems, ReadStats, SyncDriver};
pub use index_entries::{IndexEntries, IndexEntryStep, INDEX_WINDOW_BYTES, MAX_INDEX_WINDOW_BYTES};
pub use partitions::{PartitionFinder, PartitionRange};
pub use rows_entry::RowsWindow;
pub use trie_pages::{TriePages, TrieStep, MAX_CACHED_PAGES, MAX_NODE_PAGES};

pub use crate::byte_range::{
    ByteRange, FnSource, PullReader, Pulled, RangeReader, RangeSource, SliceSource,
};

use crate::component::data::{DataFileReader, DecodeStep};
use crate::error::Result;

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

#[cfg(test)]
mod tests {
    use core::future::Future;

    use super::*;
    use crate::clock::{Clock, NoClock};
    use crate::component::ComponentType;
    use crate::error::Error;

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
