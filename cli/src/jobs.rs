//! `--jobs N`: the split scan's thread runner is `sstable_native::jobs` (shared with the Python
//! package); this module re-exports it so the commands keep calling `crate::jobs::scan_split`.

pub use sstable_native::jobs::*;
