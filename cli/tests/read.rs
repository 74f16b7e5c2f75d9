//! `sstable-inspect read` on a table generated as overlapping SSTables (`generate
//! --overlapping`), against the generator's model (`write::overlap`): every merged cell with the
//! SSTable it came from; `--key`, `--limit`, `--explain`; a corrupt SSTable is an error naming it.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;
use sstable_engine::datetime::iso8601_micros;
use sstable_engine::write::overlap::{generate_overlapping, OverlapOptions};
use sstable_engine::write::MemorySink;
use sstable_engine::{Format, Version};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run sstable-inspect")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-read-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

const PARTITIONS: u64 = 30;
const ROWS: u32 = 8;
const SEED: u64 = 21;

/// `generate --overlapping 4` of an `version` table into `dir` with `extra` flags, as the
/// read, lookup and zombies tests write their tables; its stdout, after asserting success.
pub(crate) fn generate_overlapping_table(
    dir: &std::path::Path,
    version: &str,
    (partitions, rows, seed): (u64, u32, u64),
    extra: &[&str],
) -> String {
    let d = dir.to_string_lossy().into_owned();
    let (p, r, s) = (partitions.to_string(), rows.to_string(), seed.to_string());
    let mut args = vec![
        "generate",
        "--out",
        &d,
        "--version",
        version,
        "--compression",
        "lz4",
        "--partitions",
        &p,
        "--rows-per-partition",
        &r,
        "--seed",
        &s,
        "--overlapping",
        "4",
    ];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes the table with the CLI and returns the directory and the model's options.
fn generated(name: &str) -> (PathBuf, OverlapOptions) {
    let dir = temp_dir(name);
    generate_overlapping_table(&dir, "oa", (PARTITIONS, ROWS, SEED), &[]);
    let v = Version::parse(Format::Big, "oa").unwrap();
    (dir, OverlapOptions::new(v, 4, PARTITIONS, ROWS, SEED))
}

fn read_json(args: &[&str]) -> Vec<Value> {
    let out = run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// (ck, column, path, value, tstamp, sstable) of every merged cell, and each row's liveness
/// SSTable.
type Cells = Vec<(
    String,
    String,
    Option<String>,
    Option<String>,
    String,
    String,
)>;

fn cells_of(p: &Value) -> Cells {
    let mut out = Vec::new();
    for r in p["rows"].as_array().unwrap() {
        if r["type"] != "row" {
            continue;
        }
        let ck = r["clustering"][0].as_str().unwrap().to_owned();
        for c in r["cells"].as_array().into_iter().flatten() {
            out.push((
                ck.clone(),
                c["name"].as_str().unwrap().to_owned(),
                c["path"][0].as_str().map(str::to_owned),
                if c["deletion_info"].is_object() {
                    None
                } else {
                    c["value"].as_str().map(str::to_owned)
                },
                c["tstamp"].as_str().unwrap().to_owned(),
                c["sstable"].as_str().unwrap().to_owned(),
            ));
        }
    }
    out
}

fn sstable_name(i: usize) -> String {
    format!("oa-{}-big", i + 1)
}

#[test]
fn read_json_gives_the_models_cells_with_their_sstables() {
    let (dir, options) = generated("model");
    let model = generate_overlapping(&options, |_| MemorySink::default())
        .unwrap()
        .expected;
    let now = options.now_secs.to_string();
    let d = dir.to_string_lossy().into_owned();
    let parts = read_json(&["read", &d, "--json", "--now", &now]);
    assert_eq!(parts.len(), model.len());
    let (mut total, mut complex) = (0, 0);
    for (p, e) in parts.iter().zip(&model) {
        assert_eq!(p["partition"]["key_hex"], sstable_engine::span::hex(&e.key));
        let sstables: Vec<String> = e.sstables.iter().map(|s| sstable_name(*s)).collect();
        assert_eq!(p["partition"]["sstables"], serde_json::json!(sstables));
        let mut want: Cells = Vec::new();
        for r in &e.rows {
            for c in &r.cells {
                let value = c.value.as_ref().map(|v| match c.column {
                    "n" => i32::from_be_bytes(v.as_slice().try_into().unwrap()).to_string(),
                    "v" => String::from_utf8(v.clone()).unwrap(),
                    _ => String::new(),
                });
                let path = c
                    .path
                    .as_ref()
                    .map(|p| format!("'{}'", String::from_utf8_lossy(p)));
                // Set elements carry no value in sstabledump's shape.
                let value = if c.column == "tags" { None } else { value };
                want.push((
                    r.ck.to_string(),
                    c.column.to_owned(),
                    path,
                    value,
                    iso8601_micros(c.timestamp_micros),
                    sstable_name(c.sstable),
                ));
            }
        }
        // The kept collection deletions, with their SSTables.
        let got_complex: Vec<(String, String, String)> = p["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["type"] == "row")
            .flat_map(|r| {
                let ck = r["clustering"][0].as_str().unwrap().to_owned();
                r["complex_deletions"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .map(move |d| {
                        assert_eq!(d["name"], "tags");
                        (
                            ck.clone(),
                            d["marked_deleted"].as_str().unwrap().to_owned(),
                            d["sstable"].as_str().unwrap().to_owned(),
                        )
                    })
            })
            .collect();
        let want_complex: Vec<(String, String, String)> = e
            .rows
            .iter()
            .filter_map(|r| {
                r.tags_deletion.map(|d| {
                    (
                        r.ck.to_string(),
                        iso8601_micros(d.value.marked_for_delete_at_micros),
                        sstable_name(d.sstable),
                    )
                })
            })
            .collect();
        assert_eq!(got_complex, want_complex);
        complex += got_complex.len();
        let got = cells_of(p);
        total += got.len();
        assert_eq!(got, want, "partition {}", p["partition"]["key_hex"]);
    }
    assert!(
        total > 100 && complex > 5,
        "{total} cells, {complex} collection deletions"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn read_key_limit_and_explain() {
    let (dir, options) = generated("key");
    let model = generate_overlapping(&options, |_| MemorySink::default())
        .unwrap()
        .expected;
    let now = options.now_secs.to_string();
    let d = dir.to_string_lossy().into_owned();
    let key = format!("0x{}", sstable_engine::span::hex(&model[3].key));
    let one = read_json(&[
        "read",
        &d,
        "--json",
        "--now",
        &now,
        "--key",
        &key,
        "--explain",
    ]);
    assert_eq!(one.len(), 1);
    assert_eq!(
        one[0]["partition"]["key_hex"],
        sstable_engine::span::hex(&model[3].key)
    );
    // The merge started at the key (each SSTable positioned through its index) gives the
    // partition the whole table's read gives.
    let all = read_json(&["read", &d, "--json", "--now", &now, "--explain"]);
    let whole = all
        .iter()
        .find(|p| p["partition"]["key_hex"] == one[0]["partition"]["key_hex"])
        .unwrap();
    assert_eq!(&one[0], whole);
    // A key no SSTable holds: nothing.
    let none = read_json(&["read", &d, "--json", "--now", &now, "--key", "0x00ff00ff"]);
    assert!(none.is_empty(), "{none:?}");
    // Every loss names its SSTable and what beat it.
    for l in one[0]["explain"].as_array().unwrap() {
        assert!(l["sstable"].as_str().unwrap().starts_with("oa-"), "{l}");
        assert!(l["beaten_by"].is_object(), "{l}");
    }
    // Two keys, asked in reverse: both, in token order.
    let other = format!("0x{}", sstable_engine::span::hex(&model[10].key));
    let two = read_json(&[
        "read", &d, "--json", "--now", &now, "--key", &other, "--key", &key,
    ]);
    let keys: Vec<&str> = two
        .iter()
        .map(|p| p["partition"]["key_hex"].as_str().unwrap())
        .collect();
    assert_eq!(keys, [&key[2..], &other[2..]]);
    let limited = read_json(&["read", &d, "--json", "--now", &now, "--limit", "2"]);
    assert_eq!(limited.len(), 2);
    let text = run(&["read", &d, "--now", &now, "--limit", "1", "--explain"]);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.starts_with("Partition "), "{text}");
    assert!(text.contains("[oa-"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn read_of_a_table_with_a_corrupt_sstable_is_an_error_naming_it() {
    let (dir, _) = generated("corrupt");
    let data = dir.join("oa-3-big-Data.db");
    let mut bytes = std::fs::read(&data).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0xff;
    std::fs::write(&data, bytes).unwrap();
    let out = run(&[
        "read",
        &dir.to_string_lossy(),
        "--json",
        "--now",
        "1700003600",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("oa-3-big: "), "{err}");
    assert!(err.contains("Data.db"), "{err}");
    assert!(err.contains(" at 0x"), "{err}");
    assert!(err.contains("reconciled"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every `droppable` flag in the output.
fn droppable_flags(v: &Value, out: &mut Vec<bool>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "droppable" {
                    out.push(x.as_bool().unwrap());
                } else {
                    droppable_flags(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| droppable_flags(x, out)),
        _ => {}
    }
}

#[test]
fn read_marks_tombstones_droppable_at_now_and_gc_grace() {
    let (dir, options) = generated("gc");
    let d = dir.to_string_lossy().into_owned();
    let now = options.now_secs.to_string();
    // The writes are an hour before `now`: past a gc grace of 0, within one of 10 days.
    let mut past = Vec::new();
    for p in read_json(&["read", &d, "--json", "--now", &now, "--gc-grace", "0"]) {
        droppable_flags(&p, &mut past);
    }
    let mut within = Vec::new();
    for p in read_json(&["read", &d, "--json", "--now", &now]) {
        droppable_flags(&p, &mut within);
    }
    assert!(past.len() > 20, "{} tombstones", past.len());
    assert_eq!(past.len(), within.len());
    assert!(past.iter().all(|d| *d));
    assert!(within.iter().all(|d| !*d));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn read_refuses_sstables_of_several_directories() {
    let (dir, _) = generated("two");
    let other = dir.join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    for f in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = f.file_name().to_string_lossy().into_owned();
        if name.starts_with("oa-4-big-") {
            std::fs::rename(f.path(), other.join(name)).unwrap();
        }
    }
    let out = run(&["read", &dir.to_string_lossy(), "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 directories"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
