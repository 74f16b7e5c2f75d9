//! Exact renderings for every type, parsing, round trips (`parse_value(format_value(x)) == x`)
//! and robustness against truncated and corrupted values. Expected strings were worked out by
//! hand or with Python (`struct`, `decimal`, `socket.inet_ntop`, `datetime`, `uuid`), not with
//! this code.

use super::num::{
    decimal_to_twos_complement, twos_complement_to_decimal, write_signed_vint, write_unsigned_vint,
};
use super::*;
use crate::types::{parse_type, AbstractType};

type Element = Option<Vec<u8>>;

fn ty(s: &str) -> AbstractType {
    parse_type(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// The rendering of a well-formed value (asserts there is no note).
fn show(t: &str, bytes: &[u8]) -> String {
    let v = format_value(&ty(t), bytes);
    assert_eq!(v.note, None, "{t} {bytes:02x?} → {}", v.text);
    v.text
}

/// The rendering and note of a value that gets a note.
fn noted(t: &str, bytes: &[u8]) -> (String, String) {
    let v = format_value(&ty(t), bytes);
    let note = v
        .note
        .unwrap_or_else(|| panic!("{t} {bytes:02x?} → {} has no note", v.text));
    (v.text, note)
}

fn be32(v: i32) -> Vec<u8> {
    v.to_be_bytes().to_vec()
}

fn be64(v: i64) -> Vec<u8> {
    v.to_be_bytes().to_vec()
}

/// Collection serialization: i32 count, then i32 length + bytes per element (-1 = null).
fn coll(items: &[Option<Vec<u8>>]) -> Vec<u8> {
    let mut out = be32(items.len() as i32);
    out.extend(fields(items));
    out
}

/// Tuple / UDT serialization: i32 length + bytes per field (-1 = null).
fn fields(items: &[Option<Vec<u8>>]) -> Vec<u8> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Some(b) => {
                out.extend(be32(b.len() as i32));
                out.extend(b);
            }
            None => out.extend(be32(-1)),
        }
    }
    out
}

/// Map serialization: i32 entry count, then key and value as collection elements.
fn map_bytes(entries: &[(Element, Element)]) -> Vec<u8> {
    let mut out = be32(entries.len() as i32);
    for (k, v) in entries {
        out.extend(fields(&[k.clone(), v.clone()]));
    }
    out
}

fn txt(s: &str) -> Option<Vec<u8>> {
    Some(s.as_bytes().to_vec())
}

fn int(v: i32) -> Option<Vec<u8>> {
    Some(be32(v))
}

/// CompositeType serialization: per component u16 length, bytes, end-of-component byte.
fn comp(parts: &[(&[u8], u8)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (b, eoc) in parts {
        out.extend((b.len() as u16).to_be_bytes());
        out.extend(*b);
        out.push(*eoc);
    }
    out
}

fn duration_bytes(months: i64, days: i64, nanos: i64) -> Vec<u8> {
    let mut out = Vec::new();
    for v in [months, days, nanos] {
        write_signed_vint(v, &mut out);
    }
    out
}

const UDT: &str = "UserType(ks,61646472657373,737472656574:UTF8Type,6e756d:Int32Type)";

#[test]
fn text_types() {
    assert_eq!(show("UTF8Type", b"0"), "0");
    assert_eq!(show("UTF8Type", "héllo 😀".as_bytes()), "héllo 😀");
    assert_eq!(show("UTF8Type", b"it's"), "it's");
    assert_eq!(show("UTF8Type", b""), "");
    assert_eq!(show("UTF8Type", b"a\\b\n\x01"), "a\\\\b\\n\\x01");
    assert_eq!(
        noted("UTF8Type", &[0x61, 0xff]),
        ("0x61ff".into(), "invalid UTF-8 at byte 1".into())
    );
    assert_eq!(show("AsciiType", b"abc"), "abc");
    assert_eq!(
        noted("AsciiType", "é".as_bytes()),
        ("é".into(), "ascii value holds non-ASCII characters".into())
    );
    assert_eq!(noted("AsciiType", &[0x61, 0x80]).0, "0x6180");
    // Quoted, with '' for a quote, inside collections.
    assert_eq!(
        show(
            "FrozenType(SetType(UTF8Type))",
            &coll(&[txt("a"), txt("it's")])
        ),
        "{'a', 'it''s'}"
    );
    assert_eq!(
        show("FrozenType(ListType(UTF8Type))", &coll(&[txt("")])),
        "['']"
    );
}

#[test]
fn blob_boolean_and_integers() {
    assert_eq!(show("BytesType", &[0xca, 0xfe]), "0xcafe");
    assert_eq!(show("BytesType", &[]), "0x");
    assert_eq!(show("BooleanType", &[1]), "True");
    assert_eq!(show("BooleanType", &[0]), "False");
    assert_eq!(
        noted("BooleanType", &[2]),
        ("True".into(), "boolean byte 0x02 is not 0 or 1".into())
    );
    assert_eq!(noted("BooleanType", &[0, 1]).0, "0x0001");
    assert_eq!(show("ByteType", &[0xff]), "-1");
    assert_eq!(show("ShortType", &[0x80, 0x00]), "-32768");
    assert_eq!(show("Int32Type", &[0, 0, 0, 0x64]), "100");
    assert_eq!(show("Int32Type", &be32(i32::MIN)), "-2147483648");
    assert_eq!(show("LongType", &be64(i64::MIN)), "-9223372036854775808");
    assert_eq!(show("LongType", &be64(i64::MAX)), "9223372036854775807");
    assert_eq!(
        noted("Int32Type", &[0, 0, 1]),
        (
            "0x000001".into(),
            "int value has 3 bytes, expected 4".into()
        )
    );
    assert_eq!(
        noted("Int32Type", &[]),
        (String::new(), "empty value (0 bytes)".into())
    );
    assert_eq!(noted("ShortType", &[1, 2, 3, 4]).0, "0x01020304");
    assert_eq!(noted("ByteType", &[]).1, "empty value (0 bytes)");
    assert_eq!(
        noted("LongType", &[0; 4]).1,
        "bigint value has 4 bytes, expected 8"
    );
}

#[test]
fn counters() {
    assert_eq!(show("CounterColumnType", &be64(5)), "5");
    assert_eq!(show("CounterColumnType", &be64(-7)), "-7");
    // MANIFEST §3: one global shard (header 0001 8000), counter id, clock, count 1.
    let mut ctx = vec![0x00, 0x01, 0x80, 0x00];
    ctx.extend([0x11; 16]);
    ctx.extend(be64(1));
    ctx.extend(be64(1));
    assert_eq!(ctx.len(), 36);
    assert_eq!(show("CounterColumnType", &ctx), "1");
    // Two shards (one global, one remote): counts 3 and -1 add up to 2.
    let mut two = vec![0x00, 0x01, 0x80, 0x00];
    for (clock, count) in [(9, 3), (4, -1)] {
        two.extend([0x22; 16]);
        two.extend(be64(clock));
        two.extend(be64(count));
    }
    assert_eq!(show("CounterColumnType", &two), "2");
    let (text, note) = noted("CounterColumnType", &ctx[..35]);
    assert!(text.starts_with("0x00018000"));
    assert!(note.contains("not a multiple of 32"), "{note}");
    assert!(noted("CounterColumnType", &[0x7f, 0xff, 0])
        .1
        .contains("header lists 32767"));
    assert!(noted("CounterColumnType", &[1])
        .1
        .contains("neither 8 bytes"));
}

#[test]
fn varint_and_decimal() {
    assert_eq!(show("IntegerType", &[0x00]), "0");
    assert_eq!(show("IntegerType", &[0xff, 0x00]), "-256");
    assert_eq!(show("IntegerType", &[0x80]), "-128");
    assert_eq!(
        show(
            "IntegerType",
            &[0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        ),
        "340282366920938463463374607431768211456"
    );
    assert_eq!(noted("IntegerType", &[]).1, "empty value (0 bytes)");
    let huge = vec![0x11; MAX_BIGNUM_BYTES + 1];
    assert!(noted("IntegerType", &huge).1.contains("longer than"));

    let dec = |scale: i32, unscaled: &[u8]| {
        let mut b = be32(scale);
        b.extend(unscaled);
        b
    };
    assert_eq!(show("DecimalType", &dec(2, &[0x00, 0x96])), "1.50");
    assert_eq!(show("DecimalType", &dec(2, &[0x96])), "-1.06");
    assert_eq!(show("DecimalType", &dec(-3, &[1])), "1E+3");
    assert_eq!(show("DecimalType", &dec(7, &[1])), "1E-7");
    assert_eq!(show("DecimalType", &dec(6, &[1])), "0.000001");
    // -12345 = 0xcfc7.
    assert_eq!(show("DecimalType", &dec(3, &[0xcf, 0xc7])), "-12.345");
    assert_eq!(show("DecimalType", &dec(-2, &[0])), "0E+2");
    assert_eq!(show("DecimalType", &dec(i32::MIN, &[1])), "1E+2147483648");
    assert_eq!(
        noted("DecimalType", &be32(2)).1,
        "decimal value has a scale but no unscaled value"
    );
    assert_eq!(noted("DecimalType", &[0, 1]).0, "0x0001");
}

#[test]
fn floating_point() {
    let d = |v: f64| v.to_be_bytes().to_vec();
    let f = |v: f32| v.to_be_bytes().to_vec();
    assert_eq!(show("DoubleType", &d(1.5)), "1.5");
    assert_eq!(show("DoubleType", &d(f64::NAN)), "NaN");
    assert_eq!(show("DoubleType", &d(f64::INFINITY)), "Infinity");
    assert_eq!(show("DoubleType", &d(f64::NEG_INFINITY)), "-Infinity");
    assert_eq!(show("DoubleType", &d(1e20)), "1e+20");
    assert_eq!(show("DoubleType", &d(-0.0)), "-0");
    assert_eq!(show("DoubleType", &d(0.1)), "0.1");
    assert_eq!(show("DoubleType", &d(2.0)), "2");
    assert_eq!(show("DoubleType", &d(1.5e-7)), "1.5e-07");
    assert_eq!(show("FloatType", &f(0.1)), "0.1");
    assert_eq!(show("FloatType", &f(1e20)), "1e+20");
    assert_eq!(show("FloatType", &f(f32::NAN)), "NaN");
    assert_eq!(show("FloatType", &f(-3.25)), "-3.25");
    assert_eq!(
        noted("FloatType", &[0; 3]).1,
        "float value has 3 bytes, expected 4"
    );
    assert_eq!(
        noted("DoubleType", &[0; 4]).1,
        "double value has 4 bytes, expected 8"
    );
}

#[test]
fn timestamps_dates_times() {
    assert_eq!(
        show("TimestampType", &be64(1_620_986_780_251)),
        "2021-05-14T10:06:20.251Z"
    );
    assert_eq!(
        show("DateType", &be64(1_620_986_780_251)),
        "2021-05-14T10:06:20.251Z"
    );
    assert_eq!(show("TimestampType", &be64(-1)), "1969-12-31T23:59:59.999Z");
    assert_eq!(
        show("TimestampType", &be64(-2_208_988_800_000)),
        "1900-01-01T00:00:00.000Z"
    );
    let (text, note) = noted("TimestampType", &be64(253_402_300_800_000));
    assert_eq!(text, "+10000-01-01T00:00:00.000Z");
    assert!(note.contains("outside 0001-9999"), "{note}");
    let (text, _) = noted("TimestampType", &be64(-62_135_596_800_001));
    assert_eq!(text, "0000-12-31T23:59:59.999Z");
    assert_eq!(
        noted("TimestampType", &[0; 7]).1,
        "timestamp value has 7 bytes, expected 8"
    );
    // Quoted inside collections, as cqlsh does.
    assert_eq!(
        show(
            "FrozenType(ListType(TimestampType))",
            &coll(&[Some(be64(0))])
        ),
        "['1970-01-01T00:00:00.000Z']"
    );

    assert_eq!(
        show("SimpleDateType", &(1u32 << 31).to_be_bytes()),
        "1970-01-01"
    );
    assert_eq!(
        show("SimpleDateType", &((1u32 << 31) + 18_761).to_be_bytes()),
        "2021-05-14"
    );
    assert_eq!(
        show("SimpleDateType", &((1u32 << 31) - 1).to_be_bytes()),
        "1969-12-31"
    );
    assert_eq!(
        noted("SimpleDateType", &0u32.to_be_bytes()).0,
        "-5877641-06-23"
    );

    assert_eq!(show("TimeType", &be64(0)), "00:00:00.000000000");
    assert_eq!(
        show("TimeType", &be64(36_380_123_456_789)),
        "10:06:20.123456789"
    );
    assert_eq!(
        noted("TimeType", &be64(86_400_000_000_000)).1,
        "time value 86400000000000 ns is outside one day"
    );
    assert!(noted("TimeType", &be64(-1)).0.starts_with("0xffff"));
}

#[test]
fn durations() {
    assert_eq!(
        show("DurationType", &duration_bytes(1, 2, 3_723_004_005_006)),
        "1mo2d1h2m3s4ms5us6ns"
    );
    assert_eq!(show("DurationType", &duration_bytes(14, 0, 0)), "1y2mo");
    assert_eq!(show("DurationType", &duration_bytes(-1, -2, 0)), "-1mo2d");
    assert_eq!(show("DurationType", &duration_bytes(0, 0, 0)), "0s");
    assert_eq!(
        noted("DurationType", &duration_bytes(1, -1, 0)).1,
        "duration parts have different signs (1, -1, 0)"
    );
    assert!(noted("DurationType", &duration_bytes(1 << 40, 0, 0))
        .1
        .contains("do not fit in 32 bits"));
    assert!(noted("DurationType", &[0x02, 0x02])
        .1
        .starts_with("duration: unexpected end"));
    let mut extra = duration_bytes(1, 1, 1);
    extra.push(0);
    assert_eq!(
        noted("DurationType", &extra).1,
        "1 bytes after the duration"
    );
}

#[test]
fn inet_and_uuids() {
    assert_eq!(show("InetAddressType", &[127, 0, 0, 1]), "127.0.0.1");
    let v6 = |s: &str| s.parse::<std::net::Ipv6Addr>().unwrap().octets();
    // Compressed as RFC 5952 / socket.inet_ntop (checked with Python).
    for (addr, shown) in [
        ("0:0:0:0:0:0:0:1", "::1"),
        ("0:0:0:0:0:0:0:0", "::"),
        ("2001:db8:0:0:0:0:0:1", "2001:db8::1"),
        ("1:0:0:1:0:0:0:1", "1:0:0:1::1"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("0:0:0:0:0:ffff:102:304", "::ffff:1.2.3.4"),
        ("0:0:1:0:0:0:0:0", "0:0:1::"),
    ] {
        assert_eq!(show("InetAddressType", &v6(addr)), shown, "{addr}");
    }
    assert_eq!(
        noted("InetAddressType", &[1, 2, 3, 4, 5]).1,
        "inet value has 5 bytes, expected 4 or 16"
    );
    assert_eq!(
        show(
            "FrozenType(SetType(InetAddressType))",
            &coll(&[Some(vec![10, 0, 0, 1])])
        ),
        "{'10.0.0.1'}"
    );

    let bytes: Vec<u8> = (0..16).collect();
    assert_eq!(
        show("UUIDType", &bytes),
        "00010203-0405-0607-0809-0a0b0c0d0e0f"
    );
    assert_eq!(
        show("LexicalUUIDType", &bytes),
        "00010203-0405-0607-0809-0a0b0c0d0e0f"
    );
    let mut v1 = bytes.clone();
    v1[6] = 0x11;
    assert_eq!(
        show("TimeUUIDType", &v1),
        "00010203-0405-1107-0809-0a0b0c0d0e0f"
    );
    assert_eq!(
        noted("TimeUUIDType", &bytes).1,
        "a timeuuid must be version 1, this is version 0"
    );
    assert_eq!(
        noted("UUIDType", &bytes[..15]).1,
        "uuid value has 15 bytes, expected 16"
    );
}

#[test]
fn collections() {
    assert_eq!(
        show(
            "FrozenType(ListType(Int32Type))",
            &coll(&[int(1), int(2), None])
        ),
        "[1, 2, null]"
    );
    assert_eq!(show("ListType(Int32Type)", &coll(&[])), "[]");
    assert_eq!(
        show(
            "FrozenType(MapType(UTF8Type,Int32Type))",
            &map_bytes(&[(txt("a"), int(1)), (txt("b:c"), int(2))])
        ),
        "{'a': 1, 'b:c': 2}"
    );
    let inner = coll(&[int(1), int(2)]);
    assert_eq!(
        show(
            "MapType(UTF8Type,FrozenType(ListType(Int32Type)))",
            &map_bytes(&[(txt("k"), Some(inner))])
        ),
        "{'k': [1, 2]}"
    );
    assert_eq!(
        show(
            "FrozenType(ListType(SetType(BooleanType)))",
            &coll(&[Some(coll(&[Some(vec![0]), Some(vec![1])])), Some(coll(&[]))])
        ),
        "[{False, True}, {}]"
    );
    // A count of 2^31 - 1 with nothing after it: refused before anything is read.
    let (text, note) = noted("FrozenType(ListType(Int32Type))", &be32(i32::MAX));
    assert_eq!(text, "0x7fffffff");
    assert_eq!(
        note,
        "list claims 2147483647 elements but only 0 bytes follow"
    );
    assert_eq!(
        noted("FrozenType(SetType(Int32Type))", &be32(-1)).1,
        "set has a negative element count -1"
    );
    assert_eq!(
        noted("FrozenType(MapType(Int32Type,Int32Type))", &be32(1)).1,
        "map claims 1 elements but only 0 bytes follow"
    );
    let mut trailing = coll(&[int(1)]);
    trailing.push(9);
    assert_eq!(
        noted("FrozenType(ListType(Int32Type))", &trailing).1,
        "1 bytes after the last list element"
    );
    let mut truncated = coll(&[int(1), int(2)]);
    truncated.truncate(truncated.len() - 1);
    let note = noted("FrozenType(ListType(Int32Type))", &truncated).1;
    assert!(
        note.starts_with("list element 1: length 4 exceeds the 3 bytes available"),
        "{note}"
    );
    let note = noted("FrozenType(ListType(Int32Type))", &[0, 0]).1;
    assert!(note.starts_with("list: unexpected end"), "{note}");
    // A malformed element is shown in hex in place; its note is passed up.
    assert_eq!(
        noted(
            "FrozenType(ListType(Int32Type))",
            &coll(&[int(1), Some(vec![0, 0, 1])])
        ),
        (
            "[1, 0x000001]".into(),
            "element 1: int value has 3 bytes, expected 4".into()
        )
    );
    assert_eq!(
        noted(
            "FrozenType(MapType(UTF8Type,FrozenType(ListType(Int32Type))))",
            &map_bytes(&[(txt("k"), Some(coll(&[Some(vec![7])])))])
        ),
        (
            "{'k': [0x07]}".into(),
            "map entry 0: value: element 0: int value has 1 bytes, expected 4".into()
        )
    );
}

#[test]
fn tuples_and_user_types() {
    let tuple = "TupleType(Int32Type,UTF8Type,BooleanType)";
    assert_eq!(
        show(tuple, &fields(&[int(1), txt("x"), Some(vec![1])])),
        "(1, 'x', True)"
    );
    // Missing trailing fields and null fields are null.
    assert_eq!(show(tuple, &fields(&[int(1), txt("x")])), "(1, 'x', null)");
    assert_eq!(
        show(tuple, &fields(&[None, None, None])),
        "(null, null, null)"
    );
    assert_eq!(
        noted(tuple, &fields(&[int(1), txt("x"), Some(vec![1]), int(4)])).1,
        "tuple value has more than its 3 fields (8 bytes left)"
    );

    let udt = ty(UDT);
    assert!(matches!(&udt, AbstractType::UserType { name, .. } if name == "address"));
    assert_eq!(
        show(UDT, &fields(&[txt("Main St"), int(5)])),
        "{street: 'Main St', num: 5}"
    );
    assert_eq!(show(UDT, &fields(&[txt("x")])), "{street: 'x', num: null}");
    assert_eq!(
        show(
            &format!("FrozenType(ListType({UDT}))"),
            &coll(&[Some(fields(&[txt("a"), int(1)]))])
        ),
        "[{street: 'a', num: 1}]"
    );
}

#[test]
fn vectors() {
    let floats: Vec<u8> = [1.5f32, 2.5, -1.0]
        .iter()
        .flat_map(|f| f.to_be_bytes())
        .collect();
    assert_eq!(show("VectorType(FloatType , 3)", &floats), "[1.5, 2.5, -1]");
    assert_eq!(
        noted("VectorType(FloatType , 3)", &floats[..8]).1,
        "vector value has 8 bytes, expected 3 × 4 = 12"
    );
    // Variable-length elements: an unsigned vint length before each.
    let texts = [&[0x01, b'a'][..], &[0x02, b'b', b'c']].concat();
    assert_eq!(show("VectorType(UTF8Type , 2)", &texts), "['a', 'bc']");
    assert_eq!(
        noted("VectorType(UTF8Type , 6)", &texts).1,
        "vector of 6 elements cannot fit in 5 bytes"
    );
    assert_eq!(
        noted("VectorType(UTF8Type , 3)", &texts).1,
        "vector element 2: unexpected end of data (needed 1 bytes, 0 available) at 0x5 \
         (reading vector element)"
    );
    assert!(noted("VectorType(UTF8Type , 1)", &texts)
        .1
        .contains("bytes after the last vector element"));
    // parse_type caps dimensions at i32::MAX; a hand-built type may go further.
    let huge = AbstractType::Vector {
        element: Box::new(AbstractType::Utf8),
        dimension: 4_000_000_000,
    };
    assert_eq!(
        format_value(&huge, &texts).note.unwrap(),
        "vector of 4000000000 elements cannot fit in 5 bytes"
    );
    let huge_fixed = AbstractType::Vector {
        element: Box::new(AbstractType::Long),
        dimension: u32::MAX,
    };
    assert!(format_value(&huge_fixed, &texts)
        .note
        .unwrap()
        .contains("expected 4294967295 × 8"));
    assert!(noted("VectorType(EmptyType , 3)", &[1])
        .1
        .contains("zero-length"));
}

#[test]
fn composites() {
    let t = "CompositeType(UTF8Type,Int32Type)";
    let key = comp(&[(b"a:b", 0), (&be32(5), 0)]);
    assert_eq!(show(t, &key), "a\\:b:5");
    // Text `x\` is shown `x\\` by cqlsh; CompositeType.escape adds `!` after a trailing `\`.
    assert_eq!(show(t, &comp(&[(b"x\\", 0), (&be32(1), 0)])), "x\\\\!:1");
    assert_eq!(show(t, &comp(&[(b"hi!", 0)])), "hi!!");
    assert_eq!(show(t, &comp(&[(b"a", 1)])), "a:!");
    assert_eq!(show(t, &comp(&[(b"a", 0xff)])), "a:_");
    assert_eq!(show(t, &[]), "");
    assert_eq!(
        show(
            "ReversedType(CompositeType(Int32Type))",
            &comp(&[(&be32(-3), 0)])
        ),
        "-3"
    );
    let (text, note) = noted(t, &comp(&[(b"a", 0), (&be32(1), 0), (b"c", 0)]));
    assert!(text.starts_with("0x0001"));
    assert!(note.contains("more components than the 2 types"), "{note}");
    assert!(noted(t, &comp(&[(b"a", 1), (&be32(1), 0)]))
        .1
        .contains("non-zero end-of-component"));
    assert!(noted(t, &key[..key.len() - 1])
        .1
        .contains("end-of-component"));
    let mut with_static = vec![0xff, 0xff];
    with_static.extend(comp(&[(b"s", 0)]));
    assert_eq!(
        noted(t, &with_static),
        ("s".into(), "static composite (FFFF prefix)".into())
    );
    // A malformed component is shown in hex in place.
    assert_eq!(
        noted(t, &comp(&[(b"a", 0), (&[1, 2], 0)])),
        (
            "a:0x0102".into(),
            "component 1: int value has 2 bytes, expected 4".into()
        )
    );

    // DynamicCompositeType: alias header 0x80xx, or a class-name length and the name.
    let dt = "DynamicCompositeType(a=>Int32Type,b=>UTF8Type)";
    let mut dynamic = vec![0x80, b'a'];
    dynamic.extend(comp(&[(&be32(1), 0)]));
    let class = b"org.apache.cassandra.db.marshal.UTF8Type";
    dynamic.extend((class.len() as u16).to_be_bytes());
    dynamic.extend(class);
    dynamic.extend(comp(&[(b"x:y", 0)]));
    assert_eq!(
        show(dt, &dynamic),
        "a@1:org.apache.cassandra.db.marshal.UTF8Type@x\\:y"
    );
    let mut unknown = vec![0x80, b'z'];
    unknown.extend(comp(&[(b"q", 0)]));
    assert_eq!(
        noted(dt, &unknown),
        ("z@0x71".into(), "component 0: unknown alias 'z'".into())
    );
}

#[test]
fn other_types() {
    assert_eq!(show("EmptyType", &[]), "");
    assert_eq!(noted("EmptyType", &[1]).1, "EmptyType value has 1 bytes");
    assert_eq!(
        noted("com.example.GeoType", &[1, 2]),
        (
            "0x0102".into(),
            "custom type com.example.GeoType: raw bytes".into()
        )
    );
    assert_eq!(show("ReversedType(LongType)", &be64(42)), "42");
    assert_eq!(
        noted(
            "PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner)",
            &[1]
        )
        .0,
        "0x01"
    );
    assert_eq!(
        show(
            "PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner:Int32Type)",
            &be32(7)
        ),
        "7"
    );
    assert_eq!(FormattedValue::plain("x").to_string(), "x");
}

#[test]
fn cell_paths() {
    let uuid: Vec<u8> = (0..16).collect();
    assert_eq!(
        format_cell_path(&ty("ListType(Int32Type)"), &uuid),
        "00010203-0405-0607-0809-0a0b0c0d0e0f"
    );
    assert_eq!(
        format_cell_path(&ty("ListType(Int32Type)"), &[1, 2]),
        "0x0102"
    );
    assert_eq!(
        format_cell_path(&ty("SetType(UTF8Type)"), b"it's"),
        "'it''s'"
    );
    assert_eq!(
        format_cell_path(&ty("MapType(Int32Type,UTF8Type)"), &be32(5)),
        "5"
    );
    assert_eq!(format_cell_path(&ty(UDT), &[0, 1]), "num");
    assert_eq!(format_cell_path(&ty(UDT), &[0, 9]), "field #9");
    assert_eq!(format_cell_path(&ty(UDT), &[0]), "0x00");
    assert_eq!(format_cell_path(&ty("Int32Type"), &[7]), "0x07");
}

#[test]
fn split_keys() {
    let t = ty("CompositeType(UTF8Type,Int32Type)");
    let key = comp(&[(b"k", 0), (&be32(7), 0)]);
    let parts = split_composite_key(&t, &key).unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].span, crate::Span::new(0, 4));
    assert_eq!(parts[0].value_span, crate::Span::new(2, 3));
    assert_eq!(parts[0].value, FormattedValue::plain("k"));
    assert_eq!(parts[1].span, crate::Span::new(4, 11));
    assert_eq!(parts[1].value_span, crate::Span::new(6, 10));
    assert_eq!(parts[1].value.text, "7");
    assert_eq!(parts[1].end_of_component, 0);
    let e = split_composite_key(&t, &key[..9]).unwrap_err();
    assert_eq!(e.offset(), 6);
    assert!(e.to_string().contains("component value"), "{e}");
    let single = split_composite_key(&ty("Int32Type"), &be32(100)).unwrap();
    assert_eq!(single.len(), 1);
    assert_eq!(single[0].value.text, "100");
    assert_eq!(single[0].span, crate::Span::new(0, 4));
}

#[test]
fn parsing_simple_types() {
    let p = |t: &str, s: &str| parse_value(&ty(t), s);
    assert_eq!(p("UTF8Type", " spaced "), Ok(b" spaced ".to_vec()));
    // Backslash escapes, as format_value writes them, are undone.
    assert_eq!(p("UTF8Type", "a\\\\b\\n"), Ok(b"a\\b\n".to_vec()));
    assert_eq!(p("UTF8Type", "tab\\there"), Ok(b"tab\there".to_vec()));
    assert_eq!(p("UTF8Type", "keep\\q"), Ok(b"keep\\q".to_vec()));
    assert!(p("AsciiType", "é").is_err());
    assert!(p("AsciiType", "\\xe9").is_err());
    assert_eq!(p("Int32Type", " 100 "), Ok(be32(100)));
    assert_eq!(p("Int32Type", "+7"), Ok(be32(7)));
    let e = p("Int32Type", "2147483648").unwrap_err();
    assert_eq!(
        e.message,
        "expected an int (-2147483648..2147483647), found '2147483648'"
    );
    assert_eq!(e.to_string(), format!("{} (at offset 0)", e.message));
    assert_eq!(p("Int32Type", "  x").unwrap_err().position, 2);
    assert_eq!(p("ByteType", "-128"), Ok(vec![0x80]));
    assert_eq!(p("ShortType", "-2"), Ok(vec![0xff, 0xfe]));
    assert_eq!(p("LongType", "-1"), Ok(be64(-1)));
    assert_eq!(p("BooleanType", "TRUE"), Ok(vec![1]));
    assert_eq!(p("BooleanType", "False"), Ok(vec![0]));
    assert!(p("BooleanType", "yes").is_err());
    assert_eq!(p("BytesType", "0xCAFE"), Ok(vec![0xca, 0xfe]));
    assert_eq!(p("BytesType", "cafe"), Ok(vec![0xca, 0xfe]));
    assert_eq!(p("BytesType", "0x"), Ok(vec![]));
    assert!(p("BytesType", "0xabc").is_err());
    assert_eq!(p("IntegerType", "-256"), Ok(vec![0xff, 0x00]));
    assert_eq!(p("IntegerType", "128"), Ok(vec![0x00, 0x80]));
    assert!(p("IntegerType", "1.5").is_err());
    assert_eq!(
        p("DecimalType", "1.50"),
        Ok([be32(2), vec![0x00, 0x96]].concat())
    );
    assert_eq!(
        p("DecimalType", "-1E+3"),
        Ok([be32(-3), vec![0xff]].concat())
    );
    assert_eq!(p("DoubleType", "1e+20"), Ok(1e20f64.to_be_bytes().to_vec()));
    assert_eq!(
        p("DoubleType", "-Infinity"),
        Ok(f64::NEG_INFINITY.to_be_bytes().to_vec())
    );
    assert_eq!(p("DoubleType", "NaN"), Ok(f64::NAN.to_be_bytes().to_vec()));
    assert!(p("DoubleType", "inf").is_err());
    assert!(p("DoubleType", "-NaN").is_err());
    assert_eq!(p("FloatType", "0.1"), Ok(0.1f32.to_be_bytes().to_vec()));
    assert_eq!(
        p("FloatType", "1e39"),
        Ok(f32::INFINITY.to_be_bytes().to_vec())
    );
    assert_eq!(
        p("TimestampType", "2021-05-14T10:06:20.251Z"),
        Ok(be64(1_620_986_780_251))
    );
    assert_eq!(
        p("TimestampType", "1620986780251"),
        Ok(be64(1_620_986_780_251))
    );
    assert_eq!(
        p("SimpleDateType", "1970-01-01"),
        Ok((1u32 << 31).to_be_bytes().to_vec())
    );
    assert_eq!(p("TimeType", "00:00:01"), Ok(be64(1_000_000_000)));
    assert_eq!(p("DurationType", "1mo2d"), Ok(duration_bytes(1, 2, 0)));
    assert_eq!(
        p("InetAddressType", "0:0:0:0:0:0:0:1"),
        p("InetAddressType", "::1")
    );
    assert_eq!(p("InetAddressType", "10.0.0.1"), Ok(vec![10, 0, 0, 1]));
    assert!(p("InetAddressType", "10.0.0.256").is_err());
    let uuid: Vec<u8> = (0..16).collect();
    assert_eq!(
        p("UUIDType", "00010203-0405-0607-0809-0A0B0C0D0E0F"),
        Ok(uuid)
    );
    assert!(p("UUIDType", "000102030405060708090a0b0c0d0e0f").is_err());
    assert!(p("TimeUUIDType", "00010203-0405-0607-0809-0a0b0c0d0e0f")
        .unwrap_err()
        .message
        .contains("version 1"));
    assert_eq!(p("EmptyType", ""), Ok(vec![]));
    assert!(p("DynamicCompositeType(a=>Int32Type)", "a@1").is_err());
}

#[test]
fn parsing_literals() {
    let p = |t: &str, s: &str| parse_value(&ty(t), s);
    assert_eq!(
        p("FrozenType(ListType(Int32Type))", "[1, 2,null ]"),
        Ok(coll(&[int(1), int(2), None]))
    );
    assert_eq!(p("FrozenType(ListType(Int32Type))", " [ ] "), Ok(coll(&[])));
    assert_eq!(
        p(
            "FrozenType(MapType(UTF8Type,Int32Type))",
            "{'a': 1, 'it''s': 2}"
        ),
        Ok(map_bytes(&[(txt("a"), int(1)), (txt("it's"), int(2))]))
    );
    assert_eq!(
        p(
            "FrozenType(MapType(TimeType,SimpleDateType))",
            "{10:06:20.5: 2021-05-14}"
        ),
        Ok(map_bytes(&[(
            Some(be64(36_380_500_000_000)),
            Some(((1u32 << 31) + 18_761).to_be_bytes().to_vec())
        )]))
    );
    assert_eq!(
        p("TupleType(Int32Type,UTF8Type,BooleanType)", "(1, bare)"),
        Ok(fields(&[int(1), txt("bare"), None]))
    );
    assert!(p("TupleType(Int32Type)", "(1, 2)")
        .unwrap_err()
        .message
        .contains("only 1 fields"));
    assert_eq!(
        p(UDT, "{num: 5, street: 'x'}"),
        Ok(fields(&[txt("x"), int(5)]))
    );
    assert_eq!(p(UDT, "{\"NUM\": 5}"), Ok(fields(&[None, int(5)])));
    assert!(p(UDT, "{nope: 1}")
        .unwrap_err()
        .message
        .contains("no field 'nope'"));
    assert!(p(UDT, "{num: 1, num: 2}")
        .unwrap_err()
        .message
        .contains("twice"));
    assert_eq!(
        p("VectorType(UTF8Type , 2)", "['a', 'bc']"),
        Ok([&[0x01, b'a'][..], &[0x02, b'b', b'c']].concat())
    );
    assert!(p("VectorType(FloatType , 2)", "[1]")
        .unwrap_err()
        .message
        .contains("needs 2"));
    assert!(p("VectorType(FloatType , 1)", "[null]").is_err());
    let e = p("FrozenType(ListType(Int32Type))", "[1, x]").unwrap_err();
    assert_eq!(e.position, 4);
    let e = p("FrozenType(ListType(Int32Type))", "[1, 2] tail").unwrap_err();
    assert_eq!(e.position, 7);
    assert!(p("FrozenType(ListType(Int32Type))", "[1 2]").is_err());
    assert!(p("FrozenType(ListType(UTF8Type))", "['open").is_err());
    assert!(p("FrozenType(ListType(Int32Type))", "null").is_err());
}

#[test]
fn partition_keys() {
    let t = ty("CompositeType(UTF8Type,Int32Type)");
    assert_eq!(
        parse_partition_key(&t, "a\\:b:5"),
        Ok(comp(&[(b"a:b", 0), (&be32(5), 0)]))
    );
    assert_eq!(
        parse_partition_key(&t, "x\\\\!:1"),
        Ok(comp(&[(b"x\\", 0), (&be32(1), 0)]))
    );
    let e = parse_partition_key(&t, "a:b:5").unwrap_err();
    assert!(
        e.message
            .starts_with("expected 2 components separated by ':', found 3"),
        "{e}"
    );
    let e = parse_partition_key(&t, "a:x").unwrap_err();
    assert_eq!(e.position, 2);
    // Raw hex for any key type, when everything after 0x is hex.
    assert_eq!(parse_partition_key(&t, "0x0001"), Ok(vec![0, 1]));
    assert_eq!(parse_partition_key(&ty("UTF8Type"), "0xab"), Ok(vec![0xab]));
    assert_eq!(
        parse_partition_key(&ty("UTF8Type"), "0xyz"),
        Ok(b"0xyz".to_vec())
    );
    assert_eq!(parse_partition_key(&ty("Int32Type"), "100"), Ok(be32(100)));
    let blob_key = ty("CompositeType(BytesType,Int32Type)");
    assert_eq!(
        parse_partition_key(&blob_key, "0xab:1"),
        Ok(comp(&[(&[0xab], 0), (&be32(1), 0)]))
    );
    let long = "x".repeat(70_000);
    assert!(parse_partition_key(&ty("UTF8Type"), &long).is_err());
    assert!(parse_partition_key(&ty("CompositeType(UTF8Type)"), &long).is_err());
}

/// xorshift64*: a small deterministic generator for the round-trip and robustness tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    fn text(&mut self) -> String {
        const POOL: &[char] = &[
            'a', 'b', 'Z', ' ', ':', '\\', '!', '\'', '"', '\n', '\t', '\r', '\u{0}', '\u{7f}',
            '\u{85}', '\u{a0}', 'é', '😀', ',', '[', ']', '{', '}', '(', ')', '0', 'x', '@', 'n',
        ];
        let n = self.below(8) as usize;
        (0..n)
            .map(|_| POOL[self.below(POOL.len() as u64) as usize])
            .collect()
    }

    /// A minimal two's complement integer of up to `max_len` bytes.
    fn varint(&mut self, max_len: usize) -> Vec<u8> {
        let n = 1 + self.below(max_len as u64) as usize;
        let raw = self.bytes(n);
        let dec = twos_complement_to_decimal(&raw);
        let (neg, digits) = match dec.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, dec.as_str()),
        };
        decimal_to_twos_complement(digits, neg).unwrap()
    }
}

/// A value of `t` drawn at random (well-formed, canonical encodings).
fn random_value(rng: &mut Rng, t: &AbstractType) -> Vec<u8> {
    match t.base() {
        AbstractType::Utf8 => rng.text().into_bytes(),
        AbstractType::Ascii => rng
            .text()
            .chars()
            .filter(char::is_ascii)
            .collect::<String>()
            .into_bytes(),
        AbstractType::Bytes => {
            let n = rng.below(6) as usize;
            rng.bytes(n)
        }
        AbstractType::Boolean => vec![rng.below(2) as u8],
        AbstractType::Byte => rng.bytes(1),
        AbstractType::Short => rng.bytes(2),
        AbstractType::Int32 => rng.bytes(4),
        AbstractType::Long | AbstractType::Counter => rng.bytes(8),
        AbstractType::Integer => rng.varint(24),
        AbstractType::Decimal => {
            let scale = rng.below(80) as i32 - 30;
            [be32(scale), rng.varint(12)].concat()
        }
        AbstractType::Double => {
            let v = f64::from_bits(rng.next());
            let v = if v.is_nan() { f64::NAN } else { v };
            v.to_be_bytes().to_vec()
        }
        AbstractType::Float => {
            let v = f32::from_bits(rng.next() as u32);
            let v = if v.is_nan() { f32::NAN } else { v };
            v.to_be_bytes().to_vec()
        }
        AbstractType::Timestamp | AbstractType::Date => {
            let ms = match rng.below(3) {
                0 => rng.next() as i64,
                1 => rng.below(300_000_000_000_000) as i64 - 100_000_000_000_000,
                _ => rng.below(4_000_000_000_000) as i64,
            };
            be64(ms)
        }
        AbstractType::SimpleDate => (rng.next() as u32).to_be_bytes().to_vec(),
        AbstractType::Time => be64(rng.below(86_400_000_000_000) as i64),
        AbstractType::Duration => {
            let months = rng.below(1 << 31) as i64;
            let days = rng.below(1 << 31) as i64;
            let nanos = (rng.next() >> 1) as i64;
            let keep = rng.below(8);
            let pick = |bit: u64, v: i64| if keep & bit != 0 { v } else { 0 };
            let (m, d, n) = (pick(1, months), pick(2, days), pick(4, nanos));
            if rng.below(2) == 0 {
                duration_bytes(m, d, n)
            } else {
                duration_bytes(-m, -d, -n)
            }
        }
        AbstractType::Inet => {
            if rng.below(2) == 0 {
                rng.bytes(4)
            } else {
                let mut b = rng.bytes(16);
                // Runs of zero groups, to exercise `::`.
                for g in 0..8 {
                    if rng.below(2) == 0 {
                        b[2 * g] = 0;
                        b[2 * g + 1] = 0;
                    }
                }
                b
            }
        }
        AbstractType::Uuid | AbstractType::LexicalUuid => rng.bytes(16),
        AbstractType::TimeUuid => {
            let mut b = rng.bytes(16);
            b[6] = 0x10 | (b[6] & 0x0f);
            b
        }
        AbstractType::List { element, .. } | AbstractType::Set { element, .. } => {
            let n = rng.below(4);
            let items: Vec<_> = (0..n)
                .map(|_| {
                    if rng.below(8) == 0 {
                        None
                    } else {
                        Some(random_value(rng, element))
                    }
                })
                .collect();
            coll(&items)
        }
        AbstractType::Map { key, value, .. } => {
            let n = rng.below(4);
            let entries: Vec<_> = (0..n)
                .map(|_| (Some(random_value(rng, key)), Some(random_value(rng, value))))
                .collect();
            map_bytes(&entries)
        }
        AbstractType::Tuple(types) => {
            let items: Vec<_> = types
                .iter()
                .map(|t| {
                    if rng.below(6) == 0 {
                        None
                    } else {
                        Some(random_value(rng, t))
                    }
                })
                .collect();
            fields(&items)
        }
        AbstractType::UserType { fields: f, .. } => {
            let items: Vec<_> = f.iter().map(|(_, t)| Some(random_value(rng, t))).collect();
            fields(&items)
        }
        AbstractType::Vector { element, dimension } => {
            let mut out = Vec::new();
            for _ in 0..*dimension {
                let v = random_value(rng, element);
                if element.value_length_if_fixed().is_none() {
                    write_unsigned_vint(v.len() as u64, &mut out);
                }
                out.extend(v);
            }
            out
        }
        AbstractType::Composite(types) => {
            let mut out = Vec::new();
            for t in types {
                let v = random_value(rng, t);
                out.extend((v.len() as u16).to_be_bytes());
                out.extend(v);
                out.push(0);
            }
            out
        }
        other => panic!("no generator for {other:?}"),
    }
}

/// Every type that `parse_value` must read back from `format_value`.
const ROUND_TRIP_TYPES: &[&str] = &[
    "UTF8Type",
    "AsciiType",
    "BytesType",
    "BooleanType",
    "ByteType",
    "ShortType",
    "Int32Type",
    "LongType",
    "CounterColumnType",
    "IntegerType",
    "DecimalType",
    "DoubleType",
    "FloatType",
    "TimestampType",
    "DateType",
    "SimpleDateType",
    "TimeType",
    "DurationType",
    "InetAddressType",
    "UUIDType",
    "LexicalUUIDType",
    "TimeUUIDType",
    "ReversedType(Int32Type)",
    "FrozenType(ListType(Int32Type))",
    "FrozenType(ListType(UTF8Type))",
    "FrozenType(SetType(DoubleType))",
    "FrozenType(ListType(TimestampType))",
    "FrozenType(ListType(InetAddressType))",
    "FrozenType(ListType(TimeType))",
    "FrozenType(ListType(DurationType))",
    "FrozenType(ListType(BytesType))",
    "FrozenType(ListType(DecimalType))",
    "FrozenType(SetType(UUIDType))",
    "FrozenType(MapType(UTF8Type,Int32Type))",
    "FrozenType(MapType(TimeType,SimpleDateType))",
    "FrozenType(MapType(InetAddressType,FloatType))",
    "FrozenType(MapType(Int32Type,FrozenType(ListType(UTF8Type))))",
    "FrozenType(ListType(FrozenType(MapType(UTF8Type,FrozenType(SetType(BooleanType))))))",
    "TupleType(Int32Type,UTF8Type,DoubleType)",
    "TupleType(TimeType,FrozenType(ListType(UTF8Type)),TupleType(IntegerType,BytesType))",
    "UserType(ks,61646472657373,737472656574:UTF8Type,6e756d:Int32Type)",
    "FrozenType(ListType(UserType(ks,61,78:TimestampType,79:FrozenType(SetType(UTF8Type)))))",
    "VectorType(FloatType , 3)",
    "VectorType(UTF8Type , 2)",
    "VectorType(FrozenType(ListType(Int32Type)) , 2)",
    "CompositeType(UTF8Type,Int32Type,UTF8Type)",
    "CompositeType(TimestampType,InetAddressType,TimeType)",
    "CompositeType(BytesType,UUIDType)",
];

/// Whether `text` is `0x` followed only by hex digits (a raw key for `parse_partition_key`).
fn is_raw_hex(text: &str) -> bool {
    text.strip_prefix("0x")
        .is_some_and(|h| h.len() % 2 == 0 && h.chars().all(|c| c.is_ascii_hexdigit()))
}

#[test]
fn parse_reads_back_what_format_prints() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for type_string in ROUND_TRIP_TYPES {
        let t = ty(type_string);
        for i in 0..300 {
            let bytes = random_value(&mut rng, &t);
            let shown = format_value(&t, &bytes);
            if let Some(note) = &shown.note {
                // Only years outside 0001-9999 (still exact) and empty values carry a note.
                assert!(
                    note.contains("outside 0001-9999") || note.contains("empty value"),
                    "{type_string} #{i} {bytes:02x?} → {} ({note})",
                    shown.text
                );
                if note.contains("empty value") {
                    continue;
                }
            }
            let back = parse_value(&t, &shown.text)
                .unwrap_or_else(|e| panic!("{type_string} #{i} '{}': {e}", shown.text));
            assert_eq!(back, bytes, "{type_string} #{i} '{}'", shown.text);
            if !is_raw_hex(&shown.text) {
                let key = parse_partition_key(&t, &shown.text)
                    .unwrap_or_else(|e| panic!("{type_string} #{i} key '{}': {e}", shown.text));
                assert_eq!(key, bytes, "{type_string} #{i} key '{}'", shown.text);
            }
        }
    }
}

#[test]
fn fixed_values_round_trip() {
    let cases: &[(&str, &[&str])] = &[
        (
            "IntegerType",
            &[
                "0",
                "-1",
                "127",
                "128",
                "-129",
                "123456789012345678901234567890",
            ],
        ),
        (
            "DecimalType",
            &[
                "0",
                "1.50",
                "1E+3",
                "-1.2345E-11",
                "0.000001",
                "1E-7",
                "0E+2",
                "-0.5",
            ],
        ),
        (
            "DoubleType",
            &[
                "1.5",
                "NaN",
                "Infinity",
                "-Infinity",
                "1e+20",
                "-0",
                "5e-324",
            ],
        ),
        ("FloatType", &["0.1", "3.4028235e+38", "1e-45", "-Infinity"]),
        (
            "TimestampType",
            &[
                "2021-05-14T10:06:20.251Z",
                "-0001-01-01T00:00:00.000Z",
                "+10000-01-01T00:00:00.000Z",
            ],
        ),
        (
            "SimpleDateType",
            &["2021-05-14", "-5877641-06-23", "+5881580-07-11"],
        ),
        ("TimeType", &["00:00:00.000000000", "23:59:59.999999999"]),
        (
            "DurationType",
            &["1y2mo3d4h5m6s7ms8us9ns", "-1d", "0s", "25h"],
        ),
        (
            "InetAddressType",
            &[
                "::",
                "::1",
                "::ffff:1.2.3.4",
                "1:0:0:1::1",
                "255.255.255.255",
            ],
        ),
        (
            "UTF8Type",
            &["", "plain", "it's", "a\\\\b", "\\n\\x00", "a:b"],
        ),
        (
            "FrozenType(SetType(UTF8Type))",
            &["{}", "{'', 'it''s', 'x\\\\y'}"],
        ),
        (
            "CompositeType(UTF8Type,UTF8Type)",
            &[":", "a\\:b:c", "x\\\\!:!!", "\\x01:y"],
        ),
    ];
    for (t, texts) in cases {
        let t = ty(t);
        for text in *texts {
            let bytes = parse_value(&t, text).unwrap_or_else(|e| panic!("'{text}': {e}"));
            assert_eq!(format_value(&t, &bytes).text, *text);
        }
    }
}

/// Nested values whose every truncation and single-byte corruption must still format.
fn nested_samples() -> Vec<(AbstractType, Vec<u8>)> {
    let mut rng = Rng(42);
    let mut out = Vec::new();
    for t in [
        "FrozenType(MapType(UTF8Type,FrozenType(ListType(TupleType(Int32Type,UTF8Type)))))",
        "FrozenType(ListType(FrozenType(MapType(Int32Type,FrozenType(SetType(UTF8Type))))))",
        "FrozenType(ListType(UserType(ks,61,78:TimestampType,79:FrozenType(SetType(DecimalType)))))",
        "TupleType(DurationType,IntegerType,FrozenType(ListType(InetAddressType)),VectorType(UTF8Type , 2))",
        "VectorType(FrozenType(MapType(UTF8Type,DoubleType)) , 2)",
        "CompositeType(UTF8Type,FrozenType(ListType(Int32Type)),TimeUUIDType)",
    ] {
        let t = ty(t);
        let mut best = Vec::new();
        for _ in 0..20 {
            let v = random_value(&mut rng, &t);
            if v.len() > best.len() {
                best = v;
            }
        }
        out.push((t, best));
    }
    let dynamic = ty("DynamicCompositeType(a=>Int32Type,b=>FrozenType(ListType(UTF8Type)))");
    let mut d = vec![0x80, b'a'];
    d.extend(comp(&[(&be32(1), 0)]));
    d.extend([0x80, b'b']);
    d.extend(comp(&[(&coll(&[txt("x"), txt("y")]), 0)]));
    let name = b"DynamicCompositeType(a=>Int32Type)";
    d.extend((name.len() as u16).to_be_bytes());
    d.extend(name);
    let mut inner = vec![0x80, b'a'];
    inner.extend(comp(&[(&be32(2), 0)]));
    d.extend(comp(&[(&inner, 0)]));
    out.push((dynamic, d));
    out
}

fn exercise(t: &AbstractType, bytes: &[u8]) {
    let v = format_value(t, bytes);
    assert!(!v.text.is_empty() || v.note.is_some() || bytes.is_empty() || t.cql() == "text");
    let _ = split_composite_key(t, bytes);
    let _ = format_cell_path(t, bytes);
    if v.note.is_none() {
        // Whatever formats cleanly parses without panicking (equal bytes are not required:
        // a corrupted value need not be canonical).
        let _ = parse_value(t, &v.text);
    }
}

#[test]
fn truncated_and_corrupted_values_never_panic() {
    for (t, bytes) in nested_samples() {
        let clean = format_value(&t, &bytes);
        assert!(
            clean.note.is_none_or(|n| n.contains("outside 0001-9999")),
            "{}",
            t.cql()
        );
        for len in 0..bytes.len() {
            exercise(&t, &bytes[..len]);
        }
        for i in 0..bytes.len() {
            for flip in [0xff, 0x80, 0x01, 0x7f] {
                let mut corrupted = bytes.clone();
                corrupted[i] ^= flip;
                exercise(&t, &corrupted);
            }
        }
    }
}

#[test]
fn deeply_nested_dynamic_composites_are_cut_off() {
    // Each level names DynamicCompositeType by class name and nests the next level in its value.
    let name = b"DynamicCompositeType";
    let mut value = be32(1);
    for _ in 0..1000 {
        let mut level = (name.len() as u16).to_be_bytes().to_vec();
        level.extend(name);
        level.extend((value.len() as u16).to_be_bytes());
        level.extend(&value);
        level.push(0);
        if level.len() > 0xffff {
            break;
        }
        value = level;
    }
    let v = format_value(&ty("DynamicCompositeType(a=>Int32Type)"), &value);
    assert!(v.note.unwrap().contains("nests too deeply"));
}

#[test]
fn random_bytes_and_text_never_panic() {
    let mut rng = Rng(7);
    let types: Vec<AbstractType> = ROUND_TRIP_TYPES
        .iter()
        .map(|s| ty(s))
        .chain(nested_samples().into_iter().map(|(t, _)| t))
        .chain(
            ["EmptyType", "com.example.X", "VectorType(EmptyType , 3)"]
                .iter()
                .map(|s| ty(s)),
        )
        .collect();
    for t in &types {
        for _ in 0..200 {
            let n = rng.below(40) as usize;
            let bytes = rng.bytes(n);
            exercise(t, &bytes);
            let text = rng.text();
            let _ = parse_value(t, &text);
            let _ = parse_partition_key(t, &text);
        }
    }
}
