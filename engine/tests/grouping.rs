//! File-name parsing, grouping and TOC checks over the whole real fixture tree (MANIFEST.md §2, §5).

use crate::common;

use sstable_engine::component::ComponentType;
use sstable_engine::descriptor::SSTableId;
use sstable_engine::sstable_set::group_files;
use sstable_engine::toc::{ComponentCheck, Toc};
use sstable_engine::Format;

#[test]
fn nb_clust_is_one_big_sstable_with_eight_components() {
    let Some(fx) = common::cassandra_fixtures("grouping::nb_clust") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "nb", "legacy_nb_clust");
    let files = common::files_under(&dir);
    let g = group_files(&files);
    assert!(g.ignored.is_empty(), "{:?}", g.ignored);
    assert_eq!(g.sstables.len(), 1);
    let s = &g.sstables[0];
    assert_eq!(s.descriptor.version.as_str(), "nb");
    assert_eq!(s.descriptor.format, Format::Big);
    assert_eq!(s.descriptor.id, SSTableId::Sequence { generation: 1 });
    let toc_bytes = std::fs::read(dir.join("nb-1-big-TOC.txt")).unwrap();
    let toc = Toc::parse(&toc_bytes);
    let check = ComponentCheck::new(&s.components(), Some(&toc));
    let names: Vec<&str> = check.present.iter().map(|c| c.file_suffix()).collect();
    assert_eq!(
        names,
        [
            "Data.db",
            "Index.db",
            "Summary.db",
            "Statistics.db",
            "Filter.db",
            "CompressionInfo.db",
            "Digest.crc32",
            "TOC.txt"
        ]
    );
    assert!(check.missing.is_empty() && check.unlisted.is_empty() && check.unknown.is_empty());
}

#[test]
fn whole_fixture_tree_groups_into_every_sstable() {
    let Some(fx) = common::cassandra_fixtures("grouping::whole_tree") else {
        return;
    };
    let files = common::files_under(&fx);
    let g = group_files(&files);
    // 120 TOC.txt files = 120 SSTables (MANIFEST §2 component counts); every SSTable has one.
    assert_eq!(g.sstables.len(), 120);
    let ignored: Vec<&str> = g.ignored.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(
        ignored,
        [
            "MANIFEST.md",
            "other/serialization/3.0/utils.BloomFilter1000.bin",
            "other/serialization/4.0/utils.BloomFilter1000.bin",
            "other/serialization/4.0/utils.EstimatedHistogram.bin",
            "other/serialization/5.0/utils.EstimatedHistogram.bin",
        ]
    );
    let mut missing = Vec::new();
    for s in &g.sstables {
        let toc_index = s
            .file(&ComponentType::Toc)
            .expect("every fixture has a TOC.txt");
        let toc = Toc::parse(&std::fs::read(fx.join(&files[toc_index])).unwrap());
        let check = ComponentCheck::new(&s.components(), Some(&toc));
        assert!(
            check.unlisted.is_empty() && check.unknown.is_empty(),
            "{}: {check:?}",
            s.prefix
        );
        for m in check.missing {
            missing.push(format!("{} {m}", s.prefix));
        }
        // Versions by directory: bti only for da; legacy names only below 2.2.
        let v = s.descriptor.version.as_str();
        assert_eq!(
            s.descriptor.format == Format::Bti,
            v == "da",
            "{}",
            s.prefix
        );
        assert_eq!(
            s.descriptor.keyspace.is_some(),
            matches!(v, "ic" | "jb" | "ka"),
            "{}",
            s.prefix
        );
    }
    // MANIFEST §5: two ka TOCs list a Summary.db that does not exist.
    assert_eq!(
        missing,
        [
            "legacy-sstables/ka/legacy_tables/legacy_ka_with_illegal_cell_names/legacy_tables-legacy_ka_with_illegal_cell_names-ka-2 Summary.db",
            "legacy-sstables/ka/legacy_tables/legacy_ka_with_illegal_cell_names_indexed/legacy_tables-legacy_ka_with_illegal_cell_names_indexed-ka-1 Summary.db",
        ]
    );
    let bti = g
        .sstables
        .iter()
        .filter(|s| s.descriptor.format == Format::Bti)
        .count();
    assert_eq!(bti, 4, "da has 4 tables");
}
