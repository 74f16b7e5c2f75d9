//! The Rows.db entry read, once for every reader that needs a `TrieIndexEntry` (the lookup,
//! the BTI partition finder, the index listing): a window of Rows.db from the entry (or from an
//! earlier position, to hold the partition's row-index trie too) grown while the entry does not
//! fit in it.
//!
//! | step | what happens |
//! |---|---|
//! | [`RowsWindow::decode`] | decodes from the bytes held; `None` when they do not hold the entry |
//! | [`RowsWindow::read_for`] | the range to read then: `[from, position + tail)`, not past Rows.db |
//! | a short decode | the window was read for this entry: the tail doubles (up to a maximum), else it is read again from the entry |
//!
//! Src: `io/sstable/format/bti/TrieIndexEntry.java` (an entry has no length prefix: its end is
//! only known once it is decoded).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::ByteRange;
use crate::component::bti::trie::TrieBytes;
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};

/// Rows.db bytes held around the entries being read, and the grow-and-retry rule.
#[derive(Debug, Clone)]
pub struct RowsWindow {
    rows_len: u64,
    initial_tail_bytes: u64,
    max_tail_bytes: u64,
    /// Bytes asked for from the entry's position on.
    tail_bytes: u64,
    start: u64,
    bytes: Vec<u8>,
    /// The bytes were supplied for the read [`RowsWindow::read_for`] gave and not decoded yet.
    fresh: bool,
}

impl RowsWindow {
    /// A window over a Rows.db of `rows_len` bytes, asking for `initial_tail_bytes` from an
    /// entry on (at least 1); an entry longer than `max_tail_bytes` is an error.
    pub fn new(rows_len: u64, initial_tail_bytes: u64, max_tail_bytes: u64) -> RowsWindow {
        let initial = initial_tail_bytes.max(1);
        RowsWindow {
            rows_len,
            initial_tail_bytes: initial,
            max_tail_bytes,
            tail_bytes: initial,
            start: 0,
            bytes: Vec::new(),
            fresh: false,
        }
    }

    /// Length of Rows.db.
    pub fn rows_len(&self) -> u64 {
        self.rows_len
    }

    /// Whether the bytes held cover `[from, position]` (`from` ≤ `position`).
    fn covers(&self, from: u64, position: u64) -> bool {
        let end = self.start.saturating_add(self.bytes.len() as u64);
        self.start <= from.min(position) && position < end
    }

    /// The range to read for the entry at `position`, from `from` (≤ `position`; the start of
    /// the partition's row-index trie when it is wanted too).
    pub fn read_for(&self, from: u64, position: u64) -> ByteRange {
        let from = from.min(position);
        let end = position.saturating_add(self.tail_bytes).min(self.rows_len);
        ByteRange::new(ComponentType::Rows, from, end.saturating_sub(from))
    }

    /// The bytes of `range` (one [`RowsWindow::read_for`] gave).
    pub fn supply(&mut self, range: &ByteRange, bytes: &[u8]) {
        let take = usize::try_from(range.len).unwrap_or(usize::MAX);
        self.start = range.offset;
        self.bytes.clear();
        self.bytes
            .extend_from_slice(bytes.get(..take).unwrap_or(bytes));
        self.fresh = true;
    }

    /// Runs `decode` over the bytes held from `from` on (a Rows.db window starting there) for
    /// the entry at `position`. `Ok(None)`: read [`RowsWindow::read_for`] and
    /// call again.
    pub fn decode<T>(
        &mut self,
        from: u64,
        position: u64,
        decode: impl FnOnce(&TrieBytes<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        let from = from.min(position);
        let fresh = core::mem::replace(&mut self.fresh, false);
        if !self.covers(from, position) {
            if fresh && self.start == from {
                // The read made for this entry does not reach it: reading again cannot help.
                return Err(self
                    .read_for(from, position)
                    .short_read(self.bytes.len() as u64));
            }
            return Ok(None);
        }
        let window_end = self.start.saturating_add(self.bytes.len() as u64);
        // The decoder sees the window from `from` on only, as if it had been read from there.
        let skip = usize::try_from(from.saturating_sub(self.start)).unwrap_or(usize::MAX);
        let held = self.bytes.get(skip..).unwrap_or(&[]);
        match decode(&TrieBytes::rows(held, from)) {
            Ok(v) => {
                self.tail_bytes = self.initial_tail_bytes;
                Ok(Some(v))
            }
            Err(e) if is_short(&e) && window_end < self.rows_len => {
                if self.start == from {
                    if self.tail_bytes >= self.max_tail_bytes {
                        return Err(e.context(self.too_long()));
                    }
                    self.tail_bytes = self.tail_bytes.saturating_mul(2);
                }
                self.bytes.clear();
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    fn too_long(&self) -> &'static str {
        if self.max_tail_bytes == 1 << 20 {
            "row index entry longer than 1 MiB"
        } else {
            "row index entry longer than the longest window"
        }
    }
}

/// Whether a decoding error says the bytes ended (a longer window may hold the entry).
pub(crate) fn is_short(e: &Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::UnexpectedEof { .. } | ErrorKind::LengthTooLarge { .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A "decoder" that needs `need` bytes from `position`.
    fn needs(need: u64, position: u64) -> impl FnOnce(&TrieBytes<'_>) -> Result<u64> {
        move |t: &TrieBytes<'_>| {
            let mut r = t.reader_at(position)?;
            r.bytes_u64(need, "entry")?;
            Ok(need)
        }
    }

    #[test]
    fn the_window_doubles_until_the_entry_fits() {
        let file: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let mut w = RowsWindow::new(1000, 10, 1 << 20);
        assert_eq!(w.decode(100, 100, needs(70, 100)).unwrap(), None);
        let mut reads = Vec::new();
        loop {
            let r = w.read_for(100, 100);
            reads.push(r.len);
            w.supply(&r, &file[r.offset as usize..r.end() as usize]);
            if let Some(n) = w.decode(100, 100, needs(70, 100)).unwrap() {
                assert_eq!(n, 70);
                break;
            }
        }
        assert_eq!(reads, [10, 20, 40, 80]);
        // The next entry inside the window decodes without a read; the tail is reset.
        assert_eq!(w.decode(120, 120, needs(5, 120)).unwrap(), Some(5));
        assert_eq!(w.read_for(300, 300).len, 10);
    }

    #[test]
    fn an_entry_longer_than_the_maximum_is_an_error() {
        let file = [0u8; 100];
        let mut w = RowsWindow::new(100, 8, 16);
        let mut errors = 0;
        for _ in 0..4 {
            let r = w.read_for(0, 0);
            w.supply(&r, &file[..r.len as usize]);
            match w.decode(0, 0, needs(50, 0)) {
                Ok(None) => {}
                Ok(Some(_)) => panic!("50 bytes do not fit in 16"),
                Err(_) => {
                    errors += 1;
                    break;
                }
            }
        }
        assert_eq!(errors, 1);
    }

    #[test]
    fn a_read_that_does_not_reach_the_entry_is_an_error_not_a_loop() {
        let mut w = RowsWindow::new(100, 8, 1 << 20);
        let r = w.read_for(10, 10);
        w.supply(&r, &[]);
        assert!(w.decode(10, 10, needs(1, 10)).is_err());
    }
}
