//! The engine inside headless Chromium (wasm-bindgen-test-runner): the same decoding as natively,
//! on `wasm32-unknown-unknown` where `usize` is 32 bits and there is no clock or file system.
#![cfg(target_arch = "wasm32")]

use sstable_engine::component::ComponentType;
use sstable_engine::descriptor::{parse_file_name, SSTableId};
use sstable_engine::reader::Reader;
use sstable_engine::sstable_set::group_files;
use sstable_engine::toc::{ComponentCheck, Toc};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn vints_and_lengths_behave_on_32_bit_usize() {
    let mut r = Reader::new(&[0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x81, 0x2c], 0);
    assert_eq!(r.unsigned_vint("v").unwrap(), 1 << 63);
    assert_eq!(r.unsigned_vint("v").unwrap(), 300);
    // A 2^63 length must be refused, not truncated to 32 bits.
    let mut r = Reader::new(&[0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2], 40);
    let e = r.vint_length_bytes("value").unwrap_err();
    assert_eq!(e.offset(), 49);
}

#[wasm_bindgen_test]
fn uuid_ids_decode_in_the_browser() {
    let (d, c) = parse_file_name("nb-3gsm_0lob_1zdg02we44my8dy25w-big-Data.db").unwrap();
    assert_eq!(c, ComponentType::Data);
    assert!(matches!(
        d.id,
        SSTableId::Uuid {
            unix_millis: 1_754_552_891_333,
            ..
        }
    ));
}

#[cfg(sstable_fixtures)]
#[wasm_bindgen_test]
fn real_nb_clust_toc_lists_eight_components() {
    const TOC: &[u8] = include_bytes!(concat!(
        env!("SSTABLE_FIXTURES_DIR"),
        "/legacy-sstables/nb/legacy_tables/legacy_nb_clust/nb-1-big-TOC.txt"
    ));
    let names = [
        "nb-1-big-CompressionInfo.db",
        "nb-1-big-Data.db",
        "nb-1-big-Digest.crc32",
        "nb-1-big-Filter.db",
        "nb-1-big-Index.db",
        "nb-1-big-Statistics.db",
        "nb-1-big-Summary.db",
        "nb-1-big-TOC.txt",
    ];
    let g = group_files(&names);
    assert_eq!(g.sstables.len(), 1);
    let s = &g.sstables[0];
    assert_eq!(
        (s.descriptor.version.as_str(), s.descriptor.format.name()),
        ("nb", "big")
    );
    let toc = Toc::parse(TOC);
    assert_eq!(toc.entries.len(), 8);
    let check = ComponentCheck::new(&s.components(), Some(&toc));
    assert!(
        check.missing.is_empty() && check.unlisted.is_empty(),
        "{check:?}"
    );
}
