//! Starting a lookup: the token, the bloom filter probe, the format's first step; the
//! lookup's accessors and bookkeeping.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::{
    broken_path, BloomBit, BloomOutcome, CheckedDataReader, Lookup, LookupStep, Stage, StopReason,
    DATA_PLAIN_READ_BYTES,
};
use crate::clock::Clock;
use crate::component::data::DecodeOptions;
use crate::component::ComponentType;
use crate::info::SSTableMetadata;
use crate::token::Token;
use crate::version::Format;

impl Lookup {
    /// Starts a lookup of `key` (raw partition key bytes) in the SSTable `metadata` describes:
    /// computes the token, probes the bloom filter and, for big SSTables, searches Summary.db.
    /// The sizes of Index.db / Partitions.db / Rows.db and Data.db must be in `metadata`.
    pub fn new(metadata: &SSTableMetadata, key: Vec<u8>, clock: &dyn Clock) -> Lookup {
        let start = clock.now_nanos();
        let partitioner = metadata.partitioner();
        let token = partitioner.token(&key);
        let mut lookup = Lookup {
            token,
            partitioner,
            version: metadata.descriptor.version,
            key_type: metadata
                .statistics
                .as_ref()
                .and_then(|s| s.header.as_ref())
                .and_then(|h| crate::types::parse_type(&h.key_type.value).ok()),
            rows_len: metadata.size_of(&ComponentType::Rows),
            bloom: None,
            bloom_negative: false,
            outside: None,
            confirming: None,
            trie_prefix: None,
            hash_mismatch: None,
            no_transition_after: None,
            steps: Vec::new(),
            last_nanos: start,
            stage: Stage::Done,
            data: CheckedDataReader::for_sstable(metadata, DecodeOptions::default())
                .map(|r| Box::new(r.with_read_block_bytes(DATA_PLAIN_READ_BYTES))),
            before_last_key: false,
            index_len: 0,
            index_hit: None,
            partition_position: None,
            partition_start: None,
            found: false,
            stopped_at: None,
            key,
        };
        if let Some(e) = broken_path(metadata) {
            lookup.push_step(
                e.component().cloned().unwrap_or(ComponentType::Data),
                e.offset(),
                0,
                0,
                format!("error: {e}"),
                clock,
            );
            lookup.stop(StopReason::from_error(&e));
            return lookup;
        }
        if let Some(filter) = &metadata.filter {
            let probe = filter.might_contain(&lookup.key);
            let bits: Vec<BloomBit> = probe
                .bit_indexes
                .iter()
                .zip(&probe.bits)
                .zip(&probe.byte_offsets)
                .map(|((&index, &set), &byte_offset)| BloomBit {
                    index,
                    set,
                    byte_offset,
                })
                .collect();
            let lo = bits.iter().map(|b| b.byte_offset).min().unwrap_or(0);
            let hi = bits.iter().map(|b| b.byte_offset).max().unwrap_or(lo);
            let clear = bits.iter().filter(|b| !b.set).count();
            let note = if probe.maybe_present {
                format!("{} probes, every bit set: may be present", bits.len())
            } else {
                format!(
                    "{} probes, {clear} clear (first: bit {}): absent",
                    bits.len(),
                    bits.iter().find(|b| !b.set).map_or(0, |b| b.index)
                )
            };
            let mut bytes: Vec<u64> = bits.iter().map(|b| b.byte_offset).collect();
            crate::sort::sort(&mut bytes);
            bytes.dedup();
            let touched = bytes.len() as u64;
            lookup.bloom = Some(BloomOutcome {
                maybe_present: probe.maybe_present,
                bits,
                false_negative: false,
            });
            lookup.push_step(
                ComponentType::Filter,
                lo,
                hi.saturating_sub(lo).saturating_add(1),
                touched,
                note,
                clock,
            );
            // A clear bit is not taken on trust: the index confirms the negative (a key the
            // index holds is a false negative, so Filter.db is corrupt), and a miss it agrees
            // with is reported as the bloom filter's ([`Lookup::stop`]).
            lookup.bloom_negative = !probe.maybe_present;
        }
        match metadata.descriptor.format {
            Format::Bti => lookup.start_bti(metadata),
            Format::Big => lookup.start_big(metadata, clock),
        }
        lookup
    }

    /// The key looked up.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    pub fn token(&self) -> &Token {
        &self.token
    }

    /// The steps so far.
    pub fn steps(&self) -> &[LookupStep] {
        &self.steps
    }

    /// Whether the lookup has finished (nothing more to read).
    pub fn is_done(&self) -> bool {
        matches!(self.stage, Stage::Done)
    }

    pub(super) fn stop(&mut self, reason: StopReason) {
        let reason = match self.outside {
            _ if self.bloom_negative && reason.is_absent() => StopReason::BloomNegative,
            Some(side) if reason.is_absent() => StopReason::OutsideKeyRange { side },
            _ => reason,
        };
        self.found = false;
        self.stopped_at = Some(reason);
        self.stage = Stage::Done;
    }

    pub(super) fn push_step(
        &mut self,
        component: ComponentType,
        offset: u64,
        length: u64,
        touched_bytes: u64,
        note: String,
        clock: &dyn Clock,
    ) {
        let now = clock.now_nanos();
        self.steps.push(LookupStep {
            component,
            offset,
            length,
            touched_bytes,
            nanos: now.saturating_sub(self.last_nanos),
            note,
        });
        self.last_nanos = now;
    }
}
