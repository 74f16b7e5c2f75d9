//! The native monotonic clock for the engine's phase timings.

use std::time::Instant;

use sstable_engine::clock::Clock;

/// `std::time::Instant` as the engine's injected [`Clock`]: nanoseconds since [`InstantClock::new`].
#[derive(Debug, Clone, Copy)]
pub struct InstantClock(Instant);

impl InstantClock {
    /// A clock that starts now.
    pub fn new() -> Self {
        InstantClock(Instant::now())
    }
}

impl Default for InstantClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for InstantClock {
    fn now_nanos(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}
