//! Tests of the type-string parser: every class, nesting, freezing and each error kind.

use super::*;

fn err(s: &str) -> TypeParseError {
    match parse_type(s) {
        Ok(t) => panic!("{s:?} parsed as {t:?}"),
        Err(e) => e,
    }
}

fn int() -> Box<AbstractType> {
    Box::new(AbstractType::Int32)
}

#[test]
fn composite() {
    let t = parse_type("CompositeType(UTF8Type,Int32Type)").unwrap();
    assert_eq!(
        t,
        AbstractType::Composite(vec![AbstractType::Utf8, AbstractType::Int32])
    );
    assert_eq!(t.cql(), "composite<text, int>");
    assert_eq!(
        parse_type("org.apache.cassandra.db.marshal.CompositeType( UTF8Type , Int32Type )")
            .unwrap(),
        t
    );
    assert_eq!(
        parse_type("CompositeType").unwrap(),
        AbstractType::Composite(vec![])
    );
}

#[test]
fn reversed() {
    let t = parse_type("ReversedType(Int32Type)").unwrap();
    assert_eq!(t, AbstractType::Reversed(int()));
    assert!(t.is_reversed());
    assert_eq!(t.base(), &AbstractType::Int32);
    assert_eq!(t.cql(), "int");
    assert_eq!(t.value_length_if_fixed(), Some(4));
    // The legacy key-value form means the same.
    assert_eq!(parse_type("Int32Type(reversed=true)").unwrap(), t);
    assert_eq!(parse_type("Int32Type(reversed)").unwrap(), t);
    assert_eq!(
        parse_type("Int32Type(reversed=false)").unwrap(),
        AbstractType::Int32
    );
}

#[test]
fn frozen_map() {
    let t = parse_type("FrozenType(MapType(UTF8Type,Int32Type))").unwrap();
    assert_eq!(
        t,
        AbstractType::Map {
            key: Box::new(AbstractType::Utf8),
            value: int(),
            multi_cell: false
        }
    );
    assert!(!t.is_multi_cell() && t.is_collection());
    assert_eq!(t.cql(), "frozen<map<text, int>>");
    let bare = parse_type("MapType(UTF8Type,Int32Type)").unwrap();
    assert!(bare.is_multi_cell());
    assert_eq!(bare.cql(), "map<text, int>");
}

#[test]
fn list_of_frozen_udt() {
    let s = "ListType(FrozenType(UserType(ks,7574,61:Int32Type,62:Int32Type)))";
    let t = parse_type(s).unwrap();
    let udt = AbstractType::UserType {
        keyspace: "ks".into(),
        name: "ut".into(),
        fields: vec![
            ("a".into(), AbstractType::Int32),
            ("b".into(), AbstractType::Int32),
        ],
        multi_cell: false,
    };
    assert_eq!(
        t,
        AbstractType::List {
            element: Box::new(udt),
            multi_cell: true
        }
    );
    assert!(t.is_multi_cell() && t.is_collection());
    assert_eq!(t.cql(), "list<frozen<ut>>");
    // Elements are frozen even without FrozenType (3.0.x wrote UDTs that way).
    assert_eq!(
        parse_type("ListType(UserType(ks,7574,61:Int32Type,62:Int32Type))").unwrap(),
        t
    );
}

#[test]
fn bare_udt_is_multi_cell() {
    let t = parse_type("UserType(ks,61646472657373,7a6970:Int32Type)").unwrap();
    assert!(t.is_multi_cell());
    assert_eq!(t.cql(), "address");
    assert_eq!(t.clone().freeze().cql(), "frozen<address>");
    let t = parse_type("UserType(ks,4164647220,78:Int32Type)").unwrap();
    assert_eq!(t.cql(), "\"Addr \"");
    // Reserved keywords are quoted too (`table`), other keywords are not (`key`).
    let t = parse_type("UserType(ks,7461626c65)").unwrap();
    assert_eq!(t.cql(), "\"table\"");
    let t = parse_type("UserType(ks,6b6579)").unwrap();
    assert_eq!(t.cql(), "key");
}

#[test]
fn tuple() {
    let t = parse_type("TupleType(Int32Type,UTF8Type)").unwrap();
    assert_eq!(
        t,
        AbstractType::Tuple(vec![AbstractType::Int32, AbstractType::Utf8])
    );
    assert!(!t.is_multi_cell() && !t.is_collection());
    assert_eq!(t.cql(), "tuple<int, text>");
    // Members are frozen.
    let t = parse_type("TupleType(ListType(Int32Type))").unwrap();
    assert_eq!(t.cql(), "tuple<frozen<list<int>>>");
    assert_eq!(
        parse_type("FrozenType(TupleType(Int32Type,UTF8Type))").unwrap(),
        AbstractType::Tuple(vec![AbstractType::Int32, AbstractType::Utf8])
    );
}

#[test]
fn dynamic_composite() {
    let t = parse_type("DynamicCompositeType(a=>Int32Type,b=>UTF8Type)").unwrap();
    assert_eq!(
        t,
        AbstractType::DynamicComposite(vec![('a', AbstractType::Int32), ('b', AbstractType::Utf8)])
    );
    assert_eq!(t.cql(), "dynamic_composite<a=>int, b=>text>");
    assert_eq!(
        parse_type("DynamicCompositeType( a => Int32Type , b=>UTF8Type )").unwrap(),
        t
    );
    let e = err("DynamicCompositeType(ab=>Int32Type)");
    assert_eq!(e.offset, 21);
    assert!(matches!(e.kind, TypeParseErrorKind::InvalidAlias { .. }));
    let e = err("DynamicCompositeType(a=Int32Type)");
    assert_eq!(e.offset, 23);
}

#[test]
fn vector() {
    let t = parse_type("VectorType(FloatType , 3)").unwrap();
    assert_eq!(
        t,
        AbstractType::Vector {
            element: Box::new(AbstractType::Float),
            dimension: 3
        }
    );
    assert_eq!(t.cql(), "vector<float, 3>");
    assert_eq!(t.value_length_if_fixed(), Some(12));
    assert_eq!(
        t.to_type_string(),
        "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)"
    );
    assert_eq!(parse_type("VectorType(FloatType,3)").unwrap(), t);
    let t = parse_type("VectorType(ListType(Int32Type) , 2)").unwrap();
    assert_eq!(t.cql(), "vector<frozen<list<int>>, 2>");
    for (s, at) in [
        ("VectorType(FloatType , 0)", 23),
        ("VectorType(FloatType , -3)", 23),
        ("VectorType(FloatType , x)", 23),
        ("VectorType(FloatType , 2147483648)", 23),
        ("VectorType(DoubleType , 268435456)", 24),
    ] {
        let e = err(s);
        assert!(
            matches!(e.kind, TypeParseErrorKind::InvalidDimension { .. }),
            "{s}: {e}"
        );
        assert_eq!(e.offset, at, "{s}");
    }
    assert_eq!(err("VectorType(FloatType)").offset, 20);
    assert_eq!(err("VectorType(FloatType , 3").offset, 24);
}

#[test]
fn partitioner_defined_order() {
    let t =
        parse_type("PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner)").unwrap();
    assert_eq!(
        t,
        AbstractType::PartitionerDefinedOrder {
            partitioner: "org.apache.cassandra.dht.Murmur3Partitioner".into(),
            base: None
        }
    );
    assert_eq!(
        t.cql(),
        "'org.apache.cassandra.db.marshal.PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner)'"
    );
    assert_eq!(t.value_length_if_fixed(), None);
    let t = parse_type("PartitionerDefinedOrder(Murmur3Partitioner:Int32Type)").unwrap();
    assert_eq!(
        t,
        AbstractType::PartitionerDefinedOrder {
            partitioner: "Murmur3Partitioner".into(),
            base: Some(int())
        }
    );
    assert_eq!(
        t.to_type_string(),
        "org.apache.cassandra.db.marshal.PartitionerDefinedOrder(Murmur3Partitioner:org.apache.cassandra.db.marshal.Int32Type)"
    );
    assert_eq!(err("PartitionerDefinedOrder").offset, 23);
}

#[test]
fn column_to_collection() {
    let t =
        parse_type("ColumnToCollectionType(6d:MapType(UTF8Type,Int32Type),73:SetType(Int32Type))")
            .unwrap();
    let AbstractType::ColumnToCollection(entries) = &t else {
        panic!("{t:?}")
    };
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].0, "m");
    assert_eq!(entries[0].1.cql(), "map<text, int>");
    assert_eq!(entries[1].0, "s");
    let e = err("ColumnToCollectionType(6d:Int32Type)");
    assert_eq!(e.offset, 26);
    assert!(matches!(e.kind, TypeParseErrorKind::NotACollection { .. }));
}

#[test]
fn unknown_classes_are_custom() {
    let t = parse_type("com.example.PointType").unwrap();
    assert_eq!(t, AbstractType::Custom("com.example.PointType".into()));
    assert_eq!(t.cql(), "'com.example.PointType'");
    let t = parse_type("FancyType").unwrap();
    assert_eq!(
        t,
        AbstractType::Custom("org.apache.cassandra.db.marshal.FancyType".into())
    );
    let t = parse_type("ListType(com.example.Geo(a=1, b=(2,3)))").unwrap();
    assert_eq!(t.cql(), "list<'com.example.Geo(a=1, b=(2,3))'>");
    assert_eq!(parse_type(&t.to_type_string()).unwrap(), t);
    assert!(!t.base().is_counter());
    assert_eq!(err("com.example.Geo(a=(1)").offset, 21);
}

#[test]
fn malformed_strings_have_offsets() {
    let cases: &[(&str, usize)] = &[
        ("", 0),
        ("   ", 3),
        ("ListType(Int32Type", 18),
        ("ListType(Int32Type))", 19),
        ("MapType(UTF8Type,Int32Type", 26),
        ("Int32Type junk", 10),
        ("Int32Type)", 9),
        ("(Int32Type)", 0),
        ("ListType()", 0),
        ("ListType", 0),
        ("MapType(Int32Type)", 0),
        ("ReversedType(Int32Type,Int32Type)", 0),
        ("FrozenType()", 0),
        ("ListType(,Int32Type)", 9),
        ("CompositeType(Int32Type,,Int32Type)", 24),
        ("CompositeType(Int32Type Int32Type)", 24),
        ("UserType", 8),
        ("UserType(ks,7g,61:Int32Type)", 12),
        ("UserType(ks,757,61:Int32Type)", 12),
        ("UserType(ks,ff,61:Int32Type)", 12),
        ("UserType(ks,7574,61 Int32Type)", 20),
        ("UserType(ks,7574,61:)", 20),
        ("UserType(,7574)", 9),
        ("Int32Type(reversed=true", 23),
        ("Int32Type(=true)", 10),
        ("List\u{e9}Type(Int32Type)", 4),
    ];
    for &(s, offset) in cases {
        let e = err(s);
        assert_eq!(e.offset, offset, "{s:?}: {e}");
        assert!(!e.to_string().is_empty());
    }
    assert_eq!(err("").kind, TypeParseErrorKind::Empty);
    let e = err("ListType(Int32Type");
    assert_eq!(
        e.to_string(),
        "expected ',' or ')', found end of string at char 18"
    );
    let e = err("Int32Type junk");
    assert_eq!(
        e.kind,
        TypeParseErrorKind::TrailingCharacters { found: 'j' }
    );
    let e = err("MapType(Int32Type)");
    assert_eq!(
        e.to_string(),
        "MapType takes 2 type parameter(s), found 1 at char 0"
    );
    // Character and byte offsets differ after non-ASCII text.
    let e = err("\u{e9}");
    assert_eq!((e.offset, e.byte_offset), (0, 0));
    let e = err("Int32Type\u{e9}\u{e9}");
    assert_eq!((e.offset, e.byte_offset), (9, 9));
    let e = err("com.x.T(\u{e9}");
    assert_eq!((e.offset, e.byte_offset), (9, 10));
    let engine = e.to_engine_error(100);
    assert_eq!(engine.offset(), 110);
}

#[test]
fn absurd_nesting_is_an_error() {
    let n = 100_000;
    let s = format!("{}Int32Type{}", "ListType(".repeat(n), ")".repeat(n));
    let e = err(&s);
    assert_eq!(
        e.kind,
        TypeParseErrorKind::TooDeep {
            limit: MAX_NESTING_DEPTH
        }
    );
    assert_eq!(e.offset, 9 * (MAX_NESTING_DEPTH + 1));
    // The limit itself is fine.
    let d = MAX_NESTING_DEPTH;
    let s = format!("{}Int32Type{}", "FrozenType(".repeat(d), ")".repeat(d));
    assert_eq!(parse_type(&s).unwrap(), AbstractType::Int32);
    // Deep unknown parameters are raw text, not recursion.
    let s = format!("com.x.T{}{}", "(".repeat(n), ")".repeat(n));
    assert!(parse_type(&s).is_ok());
}

#[test]
fn hex_decoding() {
    assert_eq!(decode_hex(""), Some(vec![]));
    assert_eq!(decode_hex("00ffA0"), Some(vec![0, 0xff, 0xa0]));
    assert_eq!(decode_hex("abc"), None);
    assert_eq!(decode_hex("zz"), None);
}
