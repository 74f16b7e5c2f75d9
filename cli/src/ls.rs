//! `sstable-inspect ls`: the SSTables found, with their components checked against TOC.txt.

use serde::Serialize;
use sstable_engine::component::ComponentType;
use sstable_engine::toc::{ComponentCheck, Toc};

use crate::files::ComponentFiles;
use crate::{files, Outcome};

#[derive(Serialize)]
struct Listing {
    sstable: String,
    version: String,
    format: String,
    generation: String,
    components: ComponentCheck,
    sizes_bytes: Vec<(ComponentType, u64)>,
    errors: Vec<String>,
}

/// `sstable-inspect ls PATH... [--json]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// SSTable component files or directories
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<Outcome, String> {
    let paths: Vec<&str> = args.paths.iter().map(String::as_str).collect();
    let found = files::find(&paths)?;
    let mut listings = Vec::new();
    for sstable in &found.grouping.sstables {
        let mut files = ComponentFiles::new(&found, sstable);
        let sizes_bytes = files.sizes();
        // TOC.txt whole (a read is bounded by the file's length); a failed read is in io_errors.
        let toc = sstable
            .file(&ComponentType::Toc)
            .and_then(|_| files.read_at(&ComponentType::Toc, 0, u64::MAX).ok())
            .map(|bytes| Toc::parse(&bytes));
        let errors = std::mem::take(&mut files.io_errors);
        let components = ComponentCheck::new(&sstable.components(), toc.as_ref());
        listings.push(Listing {
            sstable: sstable.prefix.clone(),
            version: sstable.descriptor.version.to_string(),
            format: sstable.descriptor.format.to_string(),
            generation: sstable.descriptor.id.to_string(),
            components,
            sizes_bytes,
            errors,
        });
    }
    let any_errors = listings.iter().any(|l| !l.errors.is_empty());
    if args.json {
        let json = serde_json::to_string_pretty(&listings).map_err(|e| e.to_string())?;
        println!("{json}");
    } else {
        for l in &listings {
            println!(
                "{}  version {} format {} generation {}",
                l.sstable, l.version, l.format, l.generation
            );
            for (c, size) in &l.sizes_bytes {
                println!("    {:<20} {:>12} bytes", c.file_suffix(), size);
            }
            let names = |v: &[ComponentType]| {
                v.iter()
                    .map(|c| c.file_suffix().to_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if !l.components.missing.is_empty() {
                println!(
                    "    missing (listed in TOC.txt): {}",
                    names(&l.components.missing)
                );
            }
            if !l.components.unlisted.is_empty() {
                println!(
                    "    not listed in TOC.txt: {}",
                    names(&l.components.unlisted)
                );
            }
            if !l.components.unknown.is_empty() {
                println!("    unknown components: {}", names(&l.components.unknown));
            }
            for e in &l.errors {
                println!("    error: {e}");
            }
        }
        for i in &found.grouping.ignored {
            eprintln!("ignored {}: {}", i.path, i.reason);
        }
    }
    Ok(if any_errors {
        Outcome::Errors
    } else {
        Outcome::Clean
    })
}
