//! UI components, one per file.

pub mod app;
pub mod drop_zone;
pub mod sstable_card;
