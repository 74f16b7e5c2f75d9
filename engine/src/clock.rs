//! Injected time. The engine never reads a clock itself (`Instant::now` panics on
//! `wasm32-unknown-unknown`); callers pass `performance.now()` in the browser or `Instant` natively.

/// A monotonic clock supplied by the caller.
pub trait Clock {
    /// Nanoseconds since an arbitrary fixed origin; never decreases.
    fn now_nanos(&self) -> u64;
}

/// A clock that always reads zero, for callers that do not want timings.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoClock;

impl Clock for NoClock {
    fn now_nanos(&self) -> u64 {
        0
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now_nanos(&self) -> u64 {
        (**self).now_nanos()
    }
}
