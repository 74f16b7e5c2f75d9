//! Type strings from real Statistics.db files, and a fuzz-style robustness test of the parser.
use crate::common;

use std::collections::BTreeSet;

use sstable_engine::types::{parse_type, AbstractType};

const MARSHAL: &str = "org.apache.cassandra.db.marshal.";

/// Every distinct type string in the fixtures' Statistics.db files, with the CQL type the
/// MANIFEST gives for it (`set<text>` is table3/table4's `b set<text>` in
/// `negative-local-expiration-test`, the same shape as legacy_ka_14912's `v1 set<text>`).
const FIXTURE_TYPES: &[(&str, &str)] = &[
    ("org.apache.cassandra.db.marshal.UTF8Type", "text"),
    (
        "org.apache.cassandra.db.marshal.CounterColumnType",
        "counter",
    ),
    ("org.apache.cassandra.db.marshal.Int32Type", "int"),
    (
        "org.apache.cassandra.db.marshal.SetType(org.apache.cassandra.db.marshal.UTF8Type)",
        "set<text>",
    ),
];

/// More type strings in the form Cassandra writes them, for the fuzz-style test.
const WRITTEN_FORMS: &[&str] = &[
    "org.apache.cassandra.db.marshal.CompositeType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.Int32Type)",
    "org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.TimeUUIDType)",
    "org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.UserType(ks,7574,61:org.apache.cassandra.db.marshal.Int32Type,62:org.apache.cassandra.db.marshal.Int32Type)))",
    "org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type)))",
    "org.apache.cassandra.db.marshal.TupleType(org.apache.cassandra.db.marshal.Int32Type,org.apache.cassandra.db.marshal.UTF8Type)",
    "org.apache.cassandra.db.marshal.DynamicCompositeType(a=>org.apache.cassandra.db.marshal.Int32Type,b=>org.apache.cassandra.db.marshal.UTF8Type)",
    "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)",
    "org.apache.cassandra.db.marshal.PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner)",
    "org.apache.cassandra.db.marshal.ColumnToCollectionType(6d:org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.Int32Type))",
    "com.example.GeoType(srid=4326,(1,2))",
    "Int32Type(reversed=true)",
];

/// The type strings in a Statistics.db: each top-level `org.apache.cassandra.db.marshal.`
/// occurrence is the start of a string whose unsigned-vint length (1 or 2 bytes) sits just
/// before it; occurrences inside a string already taken are its parameters.
fn type_strings(data: &[u8]) -> Vec<String> {
    let is_type_char = |b: &u8| b.is_ascii_graphic() || *b == b' ';
    let mut out = Vec::new();
    let mut taken_until = 0;
    let mut p = 0;
    while let Some(found) = find(data.get(p..).unwrap_or_default(), MARSHAL.as_bytes()) {
        let start = p + found;
        p = start + 1;
        if start < taken_until {
            continue;
        }
        let one = start
            .checked_sub(1)
            .and_then(|i| data.get(i))
            .filter(|&&b| b < 0x80)
            .map(|&b| usize::from(b));
        let two = start.checked_sub(2).and_then(|i| {
            let hi = *data.get(i)?;
            let lo = *data.get(i + 1)?;
            (hi & 0xc0 == 0x80).then(|| (usize::from(hi & 0x3f) << 8) | usize::from(lo))
        });
        let s = [one, two]
            .into_iter()
            .flatten()
            .filter_map(|len| data.get(start..start + len))
            .find(|s| s.iter().all(is_type_char))
            .unwrap_or_else(|| panic!("no length prefix before the type string at {start}"));
        taken_until = start + s.len();
        out.push(String::from_utf8(s.to_vec()).unwrap());
    }
    out
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// (CQL of every type but the last, CQL of the last) in a fixture's Statistics.db, from the
/// schemas in MANIFEST.md; `None` for files without a serialization header (before `ma`).
fn expected_cql(path: &str) -> Option<(&'static str, &'static str)> {
    if path.contains("/jb/") || path.contains("/ka/") || path.contains("/la/") {
        return None;
    }
    if path.contains("legacy_mc_inaccurate_min_max") {
        return Some(("int", "int"));
    }
    if path.contains("legacy_") && path.contains("_counter") {
        // pk text, [ck text,] val counter: the regular column comes last.
        return Some(("text", "counter"));
    }
    if path.contains("legacy_") {
        return Some(("text", "text"));
    }
    if path.contains("cf_with_duplicates_3_0") {
        return Some(("int", "int"));
    }
    if path.contains("negative-local-expiration-test/table3")
        || path.contains("negative-local-expiration-test/table4")
    {
        return Some(("int", "set<text>"));
    }
    if path.contains("negative-local-expiration-test") {
        return Some(("int", "int"));
    }
    if path.contains("negative-ldts-invalid-deletions-test") {
        return Some(("int", "text"));
    }
    None
}

#[test]
fn statistics_type_strings_parse_and_render() {
    let Some(fx) = common::cassandra_fixtures("types::statistics_type_strings_parse_and_render")
    else {
        return;
    };
    let mut seen = BTreeSet::new();
    let mut files_with_header = 0;
    let mut total = 0;
    for rel in common::files_under(&fx) {
        if !rel.ends_with("-Statistics.db") {
            continue;
        }
        let data = std::fs::read(fx.join(&rel)).unwrap();
        let strings = type_strings(&data);
        let rendered: Vec<String> = strings
            .iter()
            .map(|s| {
                let t = parse_type(s).unwrap_or_else(|e| panic!("{rel}: {s:?}: {e}"));
                // Cassandra wrote these with toString(): printing gives the same string back.
                assert_eq!(&t.to_type_string(), s, "{rel}");
                let (_, cql) = FIXTURE_TYPES
                    .iter()
                    .find(|(known, _)| known == s)
                    .unwrap_or_else(|| panic!("{rel}: type string {s:?} not in FIXTURE_TYPES"));
                assert_eq!(t.cql(), *cql, "{rel}: {s}");
                seen.insert(s.clone());
                t.cql()
            })
            .collect();
        total += rendered.len();
        match expected_cql(&rel) {
            None => assert!(rendered.is_empty(), "{rel}: unexpected types {rendered:?}"),
            Some((others, last)) => {
                files_with_header += 1;
                assert!(rendered.len() >= 2, "{rel}: {rendered:?}");
                let (tail, init) = rendered.split_last().unwrap();
                assert_eq!(tail, last, "{rel}: {rendered:?}");
                assert!(init.iter().all(|c| c == others), "{rel}: {rendered:?}");
            }
        }
    }
    let all: BTreeSet<String> = FIXTURE_TYPES.iter().map(|(s, _)| s.to_string()).collect();
    assert_eq!(
        seen, all,
        "every FIXTURE_TYPES entry occurs in the fixtures"
    );
    // ma..me × 8 + mc extra + na × 8 + nb, nc, oa, da × 4, plus 9 files under other/.
    assert_eq!(files_with_header, 5 * 8 + 1 + 8 + 4 * 4 + 9);
    assert!(total > 150, "{total}");
}

#[test]
fn fixture_type_details() {
    let set = parse_type(FIXTURE_TYPES[3].0).unwrap();
    assert_eq!(
        set,
        AbstractType::Set {
            element: Box::new(AbstractType::Utf8),
            multi_cell: true
        }
    );
    assert!(set.is_multi_cell() && set.is_collection() && !set.is_counter());
    let counter = parse_type(FIXTURE_TYPES[1].0).unwrap();
    assert!(counter.is_counter() && !counter.is_multi_cell());
    assert_eq!(counter.value_length_if_fixed(), None);
    assert_eq!(
        parse_type(FIXTURE_TYPES[2].0)
            .unwrap()
            .value_length_if_fixed(),
        Some(4)
    );
    assert_eq!(
        parse_type(FIXTURE_TYPES[0].0)
            .unwrap()
            .value_length_if_fixed(),
        None
    );
}

/// Parses `s`; an `Ok` type must print back to a string that parses to the same type, and
/// every accessor must work.
fn check(s: &str) {
    if let Ok(t) = parse_type(s) {
        let printed = t.to_type_string();
        assert_eq!(
            parse_type(&printed).as_ref(),
            Ok(&t),
            "{s:?} -> {printed:?}"
        );
        let _ = (t.cql(), t.value_length_if_fixed(), t.is_multi_cell());
        let _ = (
            t.is_counter(),
            t.is_collection(),
            t.base(),
            t.clone().freeze(),
        );
    }
}

#[test]
fn prefixes_and_single_byte_mutations_never_panic() {
    // Bytes worth trying at every position: the grammar's punctuation, blanks, identifier and
    // hex characters, NUL, DEL and UTF-8 lead/continuation bytes (invalid UTF-8 is replaced, as
    // a caller decoding lossily would).
    let replacements: Vec<u8> = b"()<>,:=.;'\" \t\n\r_-+&019afAFxzZ"
        .iter()
        .copied()
        .chain([0x00, 0x7f, 0x80, 0xc3, 0xff])
        .collect();
    let mut parsed = 0usize;
    for s in FIXTURE_TYPES
        .iter()
        .map(|(s, _)| *s)
        .chain(WRITTEN_FORMS.iter().copied())
    {
        assert!(parse_type(s).is_ok(), "{s}");
        for (i, _) in s.char_indices() {
            check(s.get(..i).unwrap());
        }
        let bytes = s.as_bytes();
        for i in 0..bytes.len() {
            for &b in &replacements {
                let mut m = bytes.to_vec();
                m[i] = b;
                let m = String::from_utf8_lossy(&m);
                check(&m);
                parsed += 1;
            }
        }
    }
    assert!(parsed > 50_000, "{parsed}");
}

#[test]
fn extraction_reads_one_and_two_byte_length_prefixes() {
    let long = format!(
        "{MARSHAL}CompositeType({})",
        ["org.apache.cassandra.db.marshal.Int32Type"; 4].join(",")
    );
    assert!(long.len() >= 128);
    let mut data = vec![0x00, 0x28];
    data.extend_from_slice(FIXTURE_TYPES[0].0.as_bytes());
    data.push(0x80 | u8::try_from(long.len() >> 8).unwrap());
    data.push(u8::try_from(long.len() & 0xff).unwrap());
    data.extend_from_slice(long.as_bytes());
    data.push(0x01);
    assert_eq!(
        type_strings(&data),
        vec![FIXTURE_TYPES[0].0.to_string(), long.clone()]
    );
    assert_eq!(
        parse_type(&long).unwrap().cql(),
        "composite<int, int, int, int>"
    );
}
