//! The web crate in headless Chromium: the loader over real `File` objects and the card rendering.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Uint8Array};
use sstable_web::components::sstable_card::{SSTableCard, SSTableCardProps};
use sstable_web::loader::{self, PickedFile};
use wasm_bindgen_test::*;
use web_sys::File;

wasm_bindgen_test_configure!(run_in_browser);

fn file(name: &str, bytes: &[u8]) -> PickedFile {
    let parts = Array::new();
    parts.push(&Uint8Array::from(bytes));
    let file = File::new_with_u8_array_sequence(&parts, name).unwrap();
    PickedFile {
        path: format!("legacy_nb_clust/{name}"),
        file,
    }
}

const NB_CLUST_TOC: &[u8] =
    b"CompressionInfo.db\nData.db\nSummary.db\nFilter.db\nDigest.crc32\nTOC.txt\nStatistics.db\nIndex.db\n";

fn nb_files() -> Vec<PickedFile> {
    let mut files: Vec<PickedFile> = [
        "CompressionInfo.db",
        "Data.db",
        "Summary.db",
        "Filter.db",
        "Digest.crc32",
        "Statistics.db",
        "Index.db",
    ]
    .iter()
    .map(|c| file(&format!("nb-1-big-{c}"), &[0u8; 3]))
    .collect();
    files.push(file("nb-1-big-TOC.txt", NB_CLUST_TOC));
    files.push(file("notes.txt", b"hello"));
    files
}

#[wasm_bindgen_test]
async fn loader_groups_files_and_reads_the_toc_through_blob_slices() {
    let (views, ignored) = sstable_web::loading::load_here(&nb_files()).await;
    assert_eq!(views.len(), 1);
    let v = &views[0];
    assert_eq!(
        (v.version.as_str(), v.format.as_str(), v.generation.as_str()),
        ("nb", "big", "1")
    );
    assert_eq!(v.components.len(), 8);
    assert!(v.summary.check.missing.is_empty() && v.summary.check.unlisted.is_empty());
    assert_eq!(ignored.len(), 1);
    assert_eq!(ignored[0].path, "legacy_nb_clust/notes.txt");
    // A ranged read returns exactly the requested bytes.
    let toc = &nb_files()[7];
    assert_eq!(
        loader::read_range(&toc.file, 19, 26).await.unwrap(),
        b"Data.db"
    );
}

#[wasm_bindgen_test]
async fn card_renders_version_format_generation_and_components() {
    let (views, _) = sstable_web::loading::load_here(&nb_files()).await;
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<SSTableCard>::with_root_and_props(
        root.clone(),
        SSTableCardProps {
            sstable: views[0].clone(),
            index: 0,
            on_inspect: yew::Callback::noop(),
            verified: None,
            verifying: false,
        },
    )
    .render();
    // Let Yew's scheduler render.
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(&wasm_bindgen::JsValue::NULL))
        .await
        .unwrap();
    let text = |sel: &str| {
        root.query_selector(sel)
            .unwrap()
            .and_then(|e| e.text_content())
            .unwrap_or_default()
    };
    assert_eq!(text("[data-testid=version]"), "nb");
    assert_eq!(text("[data-testid=format]"), "big");
    assert_eq!(text("[data-testid=generation]"), "1");
    assert_eq!(text("[data-testid=component-count]"), "8");
    assert_eq!(
        root.query_selector_all("[data-testid=component]")
            .unwrap()
            .length(),
        8
    );
}

#[wasm_bindgen_test]
async fn an_older_load_finishing_late_does_not_replace_a_newer_one() {
    use sstable_web::state::{next_tag, Action, State};
    use yew::Reducible;
    let (views, ignored) = sstable_web::loading::load_here(&nb_files()).await;
    let (older, newer) = (next_tag(), next_tag());
    let state = std::rc::Rc::new(State::default());
    let state = state.reduce(Action::LoadStarted(older));
    let state = state.reduce(Action::LoadStarted(newer));
    // The newer load finishes first, then the older one arrives: it must be dropped.
    let state = state.reduce(Action::Loaded {
        tag: newer,
        sstables: views.clone(),
        ignored: ignored.clone(),
        schema_files: Default::default(),
        millis: 1.0,
    });
    let state = state.reduce(Action::Loaded {
        tag: older,
        sstables: Vec::new(),
        ignored,
        schema_files: Default::default(),
        millis: 2.0,
    });
    assert_eq!(state.sstables.len(), 1);
    assert_eq!(state.load_millis, Some(1.0));
    assert_eq!(state.load_count, 1);
    assert!(!state.loading);
}

/// A generated `oa` SSTable in memory: 3 partitions of a static row and 1,000 rows each (the
/// generator's table), and its metadata read through the engine's loader.
fn generated_wide() -> (
    Vec<(sstable_engine::component::ComponentType, Vec<u8>)>,
    sstable_engine::info::SSTableMetadata,
) {
    use sstable_engine::descriptor::parse_file_name;
    use sstable_engine::load::MetadataLoader;
    use sstable_engine::range::{SliceSource, SyncDriver};
    use sstable_engine::write::{generate, GenerateOptions, MemorySink};
    use sstable_engine::{Format, Version};
    let mut o = GenerateOptions::new(Version::parse(Format::Big, "oa").unwrap(), 3, 1000);
    o.seed = 5;
    let files: Vec<_> = generate(&o, MemorySink::default())
        .unwrap()
        .sink
        .files
        .into_iter()
        .collect();
    let (descriptor, _) = parse_file_name("oa-1-big-Data.db").unwrap();
    let sizes = files
        .iter()
        .map(|(c, b)| (c.clone(), b.len() as u64))
        .collect();
    let mut loader = MetadataLoader::new(&descriptor, sizes);
    let slices: Vec<_> = files
        .iter()
        .map(|(c, b)| (c.clone(), b.as_slice()))
        .collect();
    SyncDriver::new(SliceSource { files: &slices })
        .run(&mut loader, &sstable_engine::clock::NoClock)
        .unwrap();
    let metadata = loader.finish();
    assert!(metadata.errors.is_empty(), "{:?}", metadata.errors);
    (files, metadata)
}

/// A data page with a row cap holds the first rows of each partition exactly as an uncapped page
/// does, builds no more, and counts every row (#12: a page caps what it materialises).
#[wasm_bindgen_test]
async fn a_data_page_builds_at_most_its_row_cap_and_counts_the_rest() {
    use sstable_engine::range::SliceSource;
    use sstable_web::protocol::pages::PageRequest;
    use sstable_web::worker::data_pages::decode_page;
    let (files, metadata) = generated_wide();
    let slices: Vec<_> = files
        .iter()
        .map(|(c, b)| (c.clone(), b.as_slice()))
        .collect();
    let page = |cap: Option<usize>| {
        let request = PageRequest {
            start: 0,
            max_partitions: 10,
            wanted_key: None,
            atoms: false,
            now_seconds: 1_700_000_000,
            max_rows_per_partition: cap,
            create_table: None,
            export: false,
        };
        let source = SliceSource { files: &slices };
        let metadata = &metadata;
        async move {
            decode_page(metadata, (None, None), source, &request, &|| false)
                .await
                .unwrap()
        }
    };
    let (capped, whole) = (page(Some(200)).await, page(None).await);
    // A page ends after the partition that brings it to 2,000 rows: two of 1,001.
    assert_eq!(whole.partitions.len(), 2);
    assert_eq!(capped.partitions.len(), 2);
    assert_eq!(whole.row_totals, vec![1001, 1001]);
    assert_eq!(capped.row_totals, vec![1001, 1001]);
    assert_eq!(capped.next_position, whole.next_position);
    for (c, w) in capped.partitions.iter().zip(&whole.partitions) {
        assert_eq!(w.rows.len(), 1001);
        assert_eq!(c.rows.len(), 200);
        assert_eq!(c.partition, w.partition);
        assert_eq!(c.rows[..], w.rows[..200]);
    }
    // The next page starts where the capped one said, at the third partition.
    let next = decode_page(
        &metadata,
        (None, None),
        SliceSource { files: &slices },
        &PageRequest {
            start: capped.next_position.unwrap(),
            max_partitions: 10,
            wanted_key: None,
            atoms: false,
            now_seconds: 1_700_000_000,
            max_rows_per_partition: Some(3),
            create_table: None,
            export: false,
        },
        &|| false,
    )
    .await
    .unwrap();
    assert_eq!(next.partitions.len(), 1);
    assert_eq!(next.row_totals, vec![1001]);
    assert_eq!(next.partitions[0].rows.len(), 3);
    assert_eq!(next.next_position, None);
}

/// What the cap saves: one partition of 50,000 rows, paged with a cap of 200, grows the wasm
/// memory by far less than its rows would take built (the rows past the cap are only counted).
#[wasm_bindgen_test]
async fn a_capped_page_of_a_wide_partition_stays_small_in_memory() {
    use sstable_engine::descriptor::parse_file_name;
    use sstable_engine::load::MetadataLoader;
    use sstable_engine::range::{SliceSource, SyncDriver};
    use sstable_engine::write::{generate, GenerateOptions, MemorySink};
    use sstable_engine::{Format, Version};
    use sstable_web::protocol::pages::PageRequest;
    use sstable_web::worker::data_pages::decode_page;
    let rows = 50_000u64;
    let mut o = GenerateOptions::new(Version::parse(Format::Big, "oa").unwrap(), 1, rows);
    o.seed = 9;
    let files: Vec<_> = generate(&o, MemorySink::default())
        .unwrap()
        .sink
        .files
        .into_iter()
        .collect();
    let slices: Vec<_> = files
        .iter()
        .map(|(c, b)| (c.clone(), b.as_slice()))
        .collect();
    let (descriptor, _) = parse_file_name("oa-1-big-Data.db").unwrap();
    let sizes = files
        .iter()
        .map(|(c, b)| (c.clone(), b.len() as u64))
        .collect();
    let mut loader = MetadataLoader::new(&descriptor, sizes);
    SyncDriver::new(SliceSource { files: &slices })
        .run(&mut loader, &sstable_engine::clock::NoClock)
        .unwrap();
    let metadata = loader.finish();
    let request = PageRequest {
        start: 0,
        max_partitions: 10,
        wanted_key: None,
        atoms: false,
        now_seconds: 1_700_000_000,
        max_rows_per_partition: Some(200),
        create_table: None,
        export: false,
    };
    let before = sstable_web::wasm_memory_bytes();
    let page = decode_page(
        &metadata,
        (None, None),
        SliceSource { files: &slices },
        &request,
        &|| false,
    )
    .await
    .unwrap();
    let grown_capped = sstable_web::wasm_memory_bytes() - before;
    assert_eq!(page.row_totals, vec![rows as usize + 1]);
    assert_eq!(page.partitions[0].rows.len(), 200);
    drop(page);
    // The same page with every row built (what each page did before the cap was applied while
    // decoding): memory grows past what the capped page ever held.
    let before = sstable_web::wasm_memory_bytes();
    let whole = decode_page(
        &metadata,
        (None, None),
        SliceSource { files: &slices },
        &PageRequest {
            max_rows_per_partition: None,
            ..request
        },
        &|| false,
    )
    .await
    .unwrap();
    let grown_whole = sstable_web::wasm_memory_bytes() - before;
    assert_eq!(whole.partitions[0].rows.len(), rows as usize + 1);
    assert!(
        grown_capped < f64::from(8u32 << 20) && grown_whole > 4.0 * grown_capped.max(1.0),
        "wasm memory grew by {grown_capped} bytes capped, {grown_whole} bytes with every row"
    );
}

/// The protocol's one rule for 64-bit integers: a reply holding values past 2^53 crosses exactly
/// (as BigInts), and a reply the page cannot decode still names its job, so the pool fails that
/// job instead of leaving it waiting.
#[wasm_bindgen_test]
fn replies_keep_64_bit_values_and_an_undecodable_reply_names_its_job() {
    use sstable_web::protocol::{decode_reply, encode_reply, Encoded, Reply};
    let sent = Reply::Progress {
        job: u64::MAX,
        done_bytes: i64::MAX as u64,
        total_bytes: (1 << 53) + 1,
    };
    match decode_reply(encode_reply(&sent)) {
        Ok(Reply::Progress {
            job,
            done_bytes,
            total_bytes,
        }) => {
            assert_eq!(job, u64::MAX);
            assert_eq!(done_bytes, 9_223_372_036_854_775_807);
            assert_eq!(total_bytes, 9_007_199_254_740_993);
        }
        other => panic!("{other:?}"),
    }
    // `{ Loaded: { job: 7n, summary: 3 } }`: a summary that is not one.
    let fields = js_sys::Object::new();
    js_sys::Reflect::set(&fields, &"job".into(), &js_sys::BigInt::from(7u64).into()).unwrap();
    js_sys::Reflect::set(&fields, &"summary".into(), &3.into()).unwrap();
    let value = js_sys::Object::new();
    js_sys::Reflect::set(&value, &"Loaded".into(), &fields).unwrap();
    let (job, message) = decode_reply(Encoded(value.into())).unwrap_err();
    assert_eq!(job, Some(7));
    assert!(
        message.starts_with("the page could not read the worker's answer"),
        "{message}"
    );
}

/// The worker's `ReadAhead` gives every range the bytes its inner source gives (fewer where the
/// file ends), reading Data.db a block at a time: chunk-sized reads in file order cost one
/// inner read per MiB, other components and long ranges go straight through.
#[wasm_bindgen_test]
fn read_ahead_serves_each_range_as_the_source_would_a_block_at_a_time() {
    use sstable_engine::byte_range::{FnSource, SliceSource};
    use sstable_engine::component::ComponentType;
    use sstable_engine::range::{ByteRange, RangeSource};
    use std::cell::Cell;
    const LEN: usize = 3 * (1 << 20) + 12_345;
    let data: Vec<u8> = (0..LEN as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let index = b"index bytes".to_vec();
    let files = [
        (ComponentType::Data, &data[..]),
        (ComponentType::PrimaryIndex, &index[..]),
    ];
    let reads = Cell::new(0u32);
    let inner = FnSource(|range: &ByteRange| {
        reads.set(reads.get() + 1);
        let mut buf = Vec::new();
        SliceSource { files: &files }.read_into(range, &mut buf)?;
        Ok(buf)
    });
    let mut ahead = sstable_web::worker::ReadAhead::new(inner);
    let expect = |range: &ByteRange| {
        let mut buf = Vec::new();
        SliceSource { files: &files }
            .read_into(range, &mut buf)
            .unwrap();
        buf
    };
    let mut got = Vec::new();
    // Chunk-sized ranges in file order, of changing lengths, to the end and past it.
    let mut offset = 0u64;
    let mut i = 0u64;
    while offset < LEN as u64 + 100 {
        let len = 9_000 + (i * 7_919) % 9_000;
        let range = ByteRange::new(ComponentType::Data, offset, len);
        ahead.read_into(&range, &mut got).unwrap();
        assert_eq!(got, expect(&range), "at {offset}+{len}");
        offset += len;
        i += 1;
    }
    assert!(i > 200, "{i} ranges");
    assert_eq!(reads.get(), 4, "one inner read per MiB block");
    // A jump back re-reads a block; a long range and another component go straight through.
    for range in [
        ByteRange::new(ComponentType::Data, 100, 500),
        ByteRange::new(ComponentType::Data, 5, 2 << 20),
        ByteRange::new(ComponentType::PrimaryIndex, 2, 5),
        ByteRange::new(ComponentType::Data, LEN as u64 - 10, 50),
    ] {
        ahead.read_into(&range, &mut got).unwrap();
        assert_eq!(got, expect(&range), "{range:?}");
    }
    assert_eq!(reads.get(), 8);
    // What the block holds is lent without a read.
    let range = ByteRange::new(ComponentType::Data, LEN as u64 - 8, 4);
    assert_eq!(ahead.borrow_range(&range), Some(&expect(&range)[..]));
    assert_eq!(reads.get(), 8);
}
