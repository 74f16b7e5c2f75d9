//! What a query reads: every range goes through a [`CountingSource`], whose totals are the
//! [`ReadLog`] `--stats` prints.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use sstable_engine::byte_range::{ByteRange, RangeSource};
use sstable_engine::component::ComponentType;

/// The bytes read from each component (by its file-name suffix), and Data.db's reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadLog {
    pub bytes_by_component: BTreeMap<String, u64>,
    /// `(offset, length)` of every Data.db read, in order.
    pub data_reads: Vec<(u64, u64)>,
}

impl ReadLog {
    /// Bytes read from Data.db.
    pub fn data_bytes(&self) -> u64 {
        self.data_reads
            .iter()
            .fold(0u64, |a, (_, l)| a.saturating_add(*l))
    }
}

/// A [`RangeSource`] that records what it reads in a shared [`ReadLog`], and keeps the last
/// Data.db read: a read inside it (a lookup's header chunk read again by the row reader) is
/// served from memory and not counted.
pub struct CountingSource<S> {
    inner: S,
    log: Arc<Mutex<ReadLog>>,
    last_data: Option<(ByteRange, Vec<u8>)>,
}

impl<S> CountingSource<S> {
    pub fn new(inner: S, log: Arc<Mutex<ReadLog>>) -> Self {
        CountingSource {
            inner,
            log,
            last_data: None,
        }
    }
}

impl<S: RangeSource> RangeSource for CountingSource<S> {
    fn read_into(
        &mut self,
        range: &ByteRange,
        buf: &mut Vec<u8>,
    ) -> sstable_engine::error::Result<()> {
        let is_data = range.component == ComponentType::Data;
        if let Some((last, bytes)) = self.last_data.as_ref().filter(|_| is_data) {
            let from = range.offset.checked_sub(last.offset);
            let held = u64::try_from(bytes.len()).unwrap_or(0);
            let to = from.and_then(|f| f.checked_add(range.len));
            if let (Some(from), Some(to)) = (from, to.filter(|t| *t <= held)) {
                let slice = usize::try_from(from)
                    .ok()
                    .zip(usize::try_from(to).ok())
                    .and_then(|(f, t)| bytes.get(f..t));
                if let Some(slice) = slice {
                    buf.clear();
                    buf.extend_from_slice(slice);
                    return Ok(());
                }
            }
        }
        self.inner.read_into(range, buf)?;
        let n = buf.len() as u64;
        if is_data {
            self.last_data = Some((range.clone(), buf.clone()));
        }
        if let Ok(mut log) = self.log.lock() {
            let name = range.component.to_string();
            if is_data {
                log.data_reads.push((range.offset, n));
            }
            let e = log.bytes_by_component.entry(name).or_insert(0);
            *e = e.saturating_add(n);
        }
        Ok(())
    }
}
