//! `sstable-inspect lookup DIR KEY` over a whole table (`generate --overlapping 4`): the
//! SSTables that hold the key are the model's (`write::overlap`), each one's part is its
//! single-SSTable dump of the key, and the merged answer is `read --key`'s, with the model's
//! SSTable for every cell.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;
use sstable_engine::write::overlap::{generate_overlapping, OverlapOptions};
use sstable_engine::write::MemorySink;
use sstable_engine::{Format, Version};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .args(args)
        .output()
        .expect("run sstable-inspect")
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const PARTITIONS: u64 = 12;
const ROWS: u32 = 8;
const SEED: u64 = 44;

fn generated() -> (PathBuf, OverlapOptions) {
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-lookup-table-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    crate::read::generate_overlapping_table(&dir, "oa", (PARTITIONS, ROWS, SEED), &[]);
    let v = Version::parse(Format::Big, "oa").unwrap();
    (dir, OverlapOptions::new(v, 4, PARTITIONS, ROWS, SEED))
}

/// `v` without the members `read` adds to sstabledump's shape (SSTables, droppable, complex
/// deletions, explain) and positions (a merged partition has no one position).
fn plain(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| {
                    !k.contains("sstable")
                        && !["droppable", "complex_deletions", "explain", "position"]
                            .contains(&k.as_str())
                })
                .map(|(k, v)| (k.clone(), plain(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(plain).collect()),
        other => other.clone(),
    }
}

#[test]
fn table_lookup_names_the_holding_sstables_their_parts_and_the_merged_answer() {
    let (dir, options) = generated();
    let model = generate_overlapping(&options, |_| MemorySink::default())
        .unwrap()
        .expected;
    assert_eq!(model.len(), PARTITIONS as usize);
    let d = dir.to_string_lossy().into_owned();
    let now = options.now_secs.to_string();
    let name = |i: usize| format!("oa-{}-big", i + 1);
    let (mut several, mut cells) = (0, 0);
    for e in &model {
        let hex = format!("0x{}", sstable_engine::span::hex(&e.key));
        let r = json_of(&run(&["lookup", "--json", "--now", &now, &d, &hex]));
        let holding: Vec<String> = e.sstables.iter().map(|s| name(*s)).collect();
        assert_eq!(r["holding"], serde_json::json!(holding));
        assert_eq!(r["errors"], serde_json::json!([]));
        let listed = r["sstables"].as_array().unwrap();
        assert_eq!(listed.len(), 4);
        for (i, s) in listed.iter().enumerate() {
            assert_eq!(s["sstable"], name(i));
            assert_eq!(s["found"], e.sstables.contains(&i), "{hex} in {}", name(i));
            assert_eq!(s["partition"].is_null(), !e.sstables.contains(&i));
        }
        several += usize::from(e.sstables.len() > 1);
        // The merged answer is the merged read's (`read --key`).
        let read = json_of(&run(&["read", &d, "--json", "--now", &now, "--key", &hex]));
        assert_eq!(read.as_array().unwrap().len(), 1);
        assert_eq!(plain(&r["merged"]["partition"]), plain(&read[0]), "{hex}");
        // Each merged row's cells come from the model's SSTables.
        let rows: Vec<&Value> = r["merged"]["partition"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|row| row["type"] == "row")
            .collect();
        let cks: Vec<String> = rows
            .iter()
            .map(|row| row["clustering"][0].as_str().unwrap().to_owned())
            .collect();
        let want_cks: Vec<String> = e.rows.iter().map(|row| row.ck.to_string()).collect();
        assert_eq!(cks, want_cks, "{hex}");
        let want_sources: Vec<Vec<String>> = e
            .rows
            .iter()
            .map(|row| row.cells.iter().map(|c| name(c.sstable)).collect())
            .collect();
        assert_eq!(
            r["merged"]["row_cell_sstables"],
            serde_json::json!(want_sources),
            "{hex}"
        );
        cells += want_sources.iter().map(Vec::len).sum::<usize>();
    }
    assert!(several >= 6 && cells > 50, "{several} {cells}");

    // Each part is the SSTable's own dump of the key (both at the clock's now).
    let e = model.iter().find(|e| e.sstables.len() >= 3).unwrap();
    let hex = format!("0x{}", sstable_engine::span::hex(&e.key));
    let r = json_of(&run(&["lookup", "--json", &d, &hex]));
    for i in &e.sstables {
        let data = dir.join(format!("{}-Data.db", name(*i)));
        let dump = json_of(&run(&[
            "dump",
            &data.to_string_lossy(),
            "--json",
            "--key",
            &hex,
        ]));
        assert_eq!(r["sstables"][*i]["partition"], dump[0], "{}", name(*i));
    }
    // A key no SSTable holds: every SSTable says so, nothing merged, exit 0.
    let absent = run(&["lookup", "--json", &d, "0x00"]);
    let a = json_of(&absent);
    assert_eq!(a["holding"], serde_json::json!([]));
    assert!(a["merged"].is_null());
    let _ = std::fs::remove_dir_all(&dir);
}
