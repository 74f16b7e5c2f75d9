//! The generated legacy fixture tables (MANIFEST.md §3: `legacy_<v>_{simple,clust}[_counter]`
//! and, before `nb`, their `_compact` variants) and the 2.x dump the tests compare with.

use sstable_engine::clock::NoClock;
use sstable_engine::component::data::DecodeOptions;
use sstable_engine::component::legacy_data::{
    LegacyDataFileReader, LegacyLayout, LegacyStep, RowGrouper,
};
use sstable_engine::component::ComponentType;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::{SliceSource, SyncDriver};

/// The four generated kinds of table with their CQL body (MANIFEST §3), without `WITH COMPACT
/// STORAGE`.
pub const LEGACY_SCHEMAS: [(&str, &str); 4] = [
    ("simple", "(pk text PRIMARY KEY, val text)"),
    ("simple_counter", "(pk text PRIMARY KEY, val counter)"),
    (
        "clust",
        "(pk text, ck text, val text, PRIMARY KEY (pk, ck))",
    ),
    (
        "clust_counter",
        "(pk text, ck text, val counter, PRIMARY KEY (pk, ck))",
    ),
];

/// The generated legacy tables of version `v`: the four kinds, and their `_compact` variants
/// for the versions before `nb` (5.0 writes no COMPACT STORAGE table).
pub fn legacy_tables(v: &str) -> Vec<String> {
    let mut names: Vec<String> = LEGACY_SCHEMAS
        .iter()
        .map(|(t, _)| format!("legacy_{v}_{t}"))
        .collect();
    if !["nb", "nc", "oa", "da"].contains(&v) {
        for (t, _) in LEGACY_SCHEMAS {
            names.push(format!("legacy_{v}_{t}_compact"));
        }
    }
    names
}

/// `first + LONG` (MANIFEST §3: LONG = "0123456789" × 120), a `_clust` table's clustering value.
pub fn long_value(first: &str) -> Vec<u8> {
    let mut v = first.as_bytes().to_vec();
    for _ in 0..120 {
        v.extend_from_slice(b"0123456789");
    }
    v
}

/// 3.0's dump (as sstabledump) leaves out a cell's timestamp when it is the row's
/// (`USE_ROW_TIMESTAMP`); the 2.x dump shows every cell's, as 2.x stores them: this removes
/// those from a 2.x partition's JSON.
pub fn without_row_timestamps(partition: &mut serde_json::Value) {
    for row in partition["rows"].as_array_mut().into_iter().flatten() {
        let row_ts = row["liveness_info"]["tstamp"].clone();
        for cell in row["cells"].as_array_mut().into_iter().flatten() {
            if !row_ts.is_null() && cell["tstamp"] == row_ts {
                cell.as_object_mut().unwrap().remove("tstamp");
            }
        }
    }
}

/// Every `position` field removed from a dump's JSON (Data.db positions move on a rewrite).
pub fn strip_positions(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(o) => {
            o.remove("position");
            o.values_mut().for_each(strip_positions);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_positions),
        _ => {}
    }
}

/// A 2.x SSTable as `dump --schema` shows it (the atoms grouped into rows by `layout`), read at
/// `now` (`None`: no clock, nothing expires), each partition's JSON without the cell timestamps
/// that equal their row's ([`without_row_timestamps`]).
pub fn legacy_dump(
    metadata: &SSTableMetadata,
    files: &[(ComponentType, &[u8])],
    layout: &LegacyLayout,
    now: Option<i64>,
) -> Vec<serde_json::Value> {
    let options = DecodeOptions {
        now_seconds: now,
        ..DecodeOptions::default()
    };
    let mut reader = LegacyDataFileReader::for_sstable(metadata, options).unwrap();
    let mut driver = SyncDriver::new(SliceSource { files });
    let mut grouper = RowGrouper::new(layout.clone(), now);
    let mut out = Vec::new();
    loop {
        let (done, p) = driver
            .with_next_step(&mut reader, &NoClock, |step| match step {
                LegacyStep::Item(item) => (false, grouper.push(&item)),
                _ => (true, None),
            })
            .unwrap();
        if let Some(p) = p {
            let mut v = serde_json::to_value(&p).unwrap();
            without_row_timestamps(&mut v);
            out.push(v);
        }
        if done {
            return out;
        }
    }
}
