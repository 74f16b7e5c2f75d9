//! UI components, one per file.

pub mod analytics_view;
pub mod app;
pub mod bloom_lab;
pub mod charts;
pub mod component_view;
pub mod data_browser;
pub mod drop_zone;
pub mod field_tree;
pub mod hex_view;
pub mod index_view;
pub mod job_run;
pub mod merged_view;
pub mod overview_table;
pub mod replica_pieces;
pub mod replicas_view;
pub mod salvage;
pub mod sstable_card;
pub mod table_schema;
pub mod verify_all;
pub mod verify_view;
pub mod why_panel;
pub mod zombies_view;

/// A count with its noun in the right number: `1 partition`, `2 partitions`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}
