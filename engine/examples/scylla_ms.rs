//! Writes a ScyllaDB `ms`-like SSTable made of a big `me` one (`bti::write::ms_from_me`), for
//! the page's end-to-end tests: no ScyllaDB `ms` file is in the fixtures.
//!
//! `cargo run -p sstable-engine --example scylla_ms -- SRC_DIR OUT_DIR [GENERATION]`

use std::path::Path;
use std::process::ExitCode;

use sstable_engine::component::bti::write::ms_from_me;
use sstable_engine::component::ComponentType;
use sstable_engine::sstable_set::group_files;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [src, out, rest @ ..] = args.as_slice() else {
        eprintln!("usage: scylla_ms SRC_DIR OUT_DIR [GENERATION]");
        return ExitCode::from(2);
    };
    let generation = rest.first().and_then(|g| g.parse().ok()).unwrap_or(1);
    match build(Path::new(src), Path::new(out), generation) {
        Ok(names) => {
            println!("{out}: {}", names.join(", "));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("scylla_ms: {e}");
            ExitCode::FAILURE
        }
    }
}

fn build(src: &Path, out: &Path, generation: u64) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = std::fs::read_dir(src)
        .map_err(|e| format!("{}: {e}", src.display()))?
        .flatten()
        .map(|e| e.path().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let grouping = group_files(&names);
    let sstable = grouping.sstables.first().ok_or("no SSTable in SRC_DIR")?;
    let files: Vec<(ComponentType, Vec<u8>)> = sstable
        .files
        .iter()
        .map(|(c, i)| {
            Ok((
                c.clone(),
                std::fs::read(&names[*i]).map_err(|e| e.to_string())?,
            ))
        })
        .collect::<Result<_, String>>()?;
    let written = ms_from_me(&sstable.descriptor, &files, generation)?;
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    for (name, bytes) in &written {
        std::fs::write(out.join(name), bytes).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(written.into_iter().map(|(n, _)| n).collect())
}
