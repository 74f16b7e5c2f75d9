//! "Now" for the commands that classify expiring cells (dump, atoms, export): one source, so
//! tests pin it once.

/// "Now" for expiry: `$SSTABLE_INSPECT_NOW_SECONDS` when set (tests pin it so their output does
/// not age), else the system clock.
pub(crate) fn now_seconds() -> Option<i64> {
    if let Some(s) = std::env::var_os("SSTABLE_INSPECT_NOW_SECONDS") {
        return s.to_str().and_then(|s| s.parse().ok());
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .ok()
}
