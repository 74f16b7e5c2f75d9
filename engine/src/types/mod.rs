//! Cassandra type strings (`AbstractType` names) → a type tree → CQL.
//!
//! Every type in an SSTable's SerializationHeader (Statistics.db, `ma` and later) and in Scylla's
//! metadata is stored as the `toString()` of a Cassandra `AbstractType`: a class name, optionally
//! followed by parameters in parentheses. This module parses those strings into an [`AbstractType`]
//! tree, prints them back ([`AbstractType::to_type_string`]) and renders them as CQL
//! ([`AbstractType::cql`]).
//!
//! Src (the truth): `src/java/org/apache/cassandra/db/marshal/TypeParser.java` (the grammar),
//! each `db/marshal/*Type.java` (`getInstance(TypeParser)`, `toString`, `freeze`,
//! `valueLengthIfFixed`), `db/marshal/PartitionerDefinedOrder.java`, `cql3/CQL3Type.java` (CQL
//! names), `cql3/ColumnIdentifier.java` (`maybeQuote`) and `resources/.../reserved_keywords.txt`.
//!
//! # Grammar
//!
//! | form | example |
//! |---|---|
//! | simple class, short or fully qualified | `Int32Type`, `org.apache.cassandra.db.marshal.Int32Type` |
//! | type parameters | `CompositeType(T1,T2,…)`, `ReversedType(T)`, `FrozenType(T)`, `ListType(T)`, `SetType(T)`, `MapType(K,V)`, `TupleType(T1,…)` |
//! | user type | `UserType(<keyspace>,<hex name>,<hex field>:<T>,…)` |
//! | aliases | `DynamicCompositeType(a=>T1,b=>T2)` |
//! | vector (5.0) | `VectorType(<T> , <dimension>)` |
//! | 2i ordering | `PartitionerDefinedOrder(<partitioner class>)`, 5.0 may add `:<key type>` |
//! | legacy | `ColumnToCollectionType(<hex column>:<collection>,…)` |
//! | legacy key-value parameters on a simple type | `Int32Type(reversed=true)` = `ReversedType(Int32Type)` |
//!
//! A name without a `.` is in `org.apache.cassandra.db.marshal`. Blanks (space, tab, CR, LF) are
//! skipped between tokens. A class this module does not know becomes [`AbstractType::Custom`]
//! with its raw parameters, never an error. Parsing is stricter than Cassandra in three ways: an
//! empty string is an error (Cassandra reads it as `BytesType`), characters after the type are
//! an error, and parameters must be separated by exactly one comma. Nesting is capped at
//! [`MAX_NESTING_DEPTH`].
//!
//! # Freezing
//!
//! `FrozenType` is not a type of its own: like Cassandra's `FrozenType.getInstance`, it makes its
//! parameter frozen, so the tree holds only `multi_cell` flags. A frozen value is one cell;
//! everything inside it is frozen too ([`AbstractType::freeze`]). A bare collection or UDT is
//! multi-cell (one cell per element/field). Elements of collections, tuple members, vector
//! elements and UDT fields are always frozen: Cassandra freezes them when parsing (its
//! `ListType`/`SetType`/`MapType`/`TupleType`/`VectorType.getInstance`), and CQL rejects non-frozen
//! collections or UDTs inside a UDT's fields. When printing, a frozen collection/UDT gets a
//! `FrozenType(...)` wrapper unless it is inside a frozen collection or UDT already; tuple members
//! never get one, vector elements do (both as in Cassandra). Parsing the printed string gives back
//! an equal tree.
//!
//! **CASSANDRA-15035:** Cassandra 3.0.x had only frozen UDTs and printed them *without*
//! `FrozenType`. A bare top-level `UserType(...)` therefore parses as multi-cell (the 3.6+
//! meaning, [`AbstractType::is_multi_cell`] is true), but from a 3.0.x writer it is really
//! frozen: a simple column, sorted with the simple ones. The string does not say which; a caller
//! whose rows fail to decode should retry with [`AbstractType::freeze`]d column types.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

mod cql;
mod parser;
pub mod value;

use serde::Serialize;

pub use parser::{parse_type, TypeParseError, TypeParseErrorKind, MAX_NESTING_DEPTH};

/// The package of Cassandra's built-in types, prepended to names without a `.`.
pub const MARSHAL_PACKAGE: &str = "org.apache.cassandra.db.marshal.";

/// A Cassandra type (`org.apache.cassandra.db.marshal.AbstractType` and its subclasses).
///
/// Simple variants are named after their class without the `Type` suffix; the CQL name is in
/// each doc comment. Build one with [`parse_type`].
#[derive(Serialize, Debug, Clone, PartialEq, Eq, Hash)]
pub enum AbstractType {
    /// `AsciiType`: CQL `ascii`.
    Ascii,
    /// `BooleanType`: CQL `boolean`.
    Boolean,
    /// `BytesType`: CQL `blob`.
    Bytes,
    /// `CounterColumnType`: CQL `counter` (the value is a CounterContext).
    Counter,
    /// `DateType`: the pre-2.0 timestamp type, CQL `timestamp` (8 bytes, ms since the epoch).
    Date,
    /// `DecimalType`: CQL `decimal`.
    Decimal,
    /// `DoubleType`: CQL `double`.
    Double,
    /// `DurationType`: CQL `duration`.
    Duration,
    /// `EmptyType`: values are always empty (COMPACT STORAGE tables without a regular column).
    Empty,
    /// `FloatType`: CQL `float`.
    Float,
    /// `InetAddressType`: CQL `inet`.
    Inet,
    /// `Int32Type`: CQL `int`.
    Int32,
    /// `IntegerType`: CQL `varint`.
    Integer,
    /// `LexicalUUIDType`: no CQL equivalent (a custom type in CQL).
    LexicalUuid,
    /// `LongType`: CQL `bigint`.
    Long,
    /// `ShortType`: CQL `smallint`.
    Short,
    /// `ByteType`: CQL `tinyint`.
    Byte,
    /// `SimpleDateType`: CQL `date`.
    SimpleDate,
    /// `TimeType`: CQL `time`.
    Time,
    /// `TimestampType`: CQL `timestamp`.
    Timestamp,
    /// `TimeUUIDType`: CQL `timeuuid`.
    TimeUuid,
    /// `UTF8Type`: CQL `text`.
    Utf8,
    /// `UUIDType`: CQL `uuid`.
    Uuid,
    /// `CompositeType(T1,…)`: multi-column partition keys and pre-3.0 cell names.
    Composite(Vec<AbstractType>),
    /// `DynamicCompositeType(a=>T1,…)`: components with one-character aliases.
    DynamicComposite(Vec<(char, AbstractType)>),
    /// `ReversedType(T)`: a clustering column in DESC order; values are encoded as `T`.
    Reversed(Box<AbstractType>),
    /// `ListType(T)`; `multi_cell` is false when frozen.
    List {
        element: Box<AbstractType>,
        multi_cell: bool,
    },
    /// `SetType(T)`; `multi_cell` is false when frozen.
    Set {
        element: Box<AbstractType>,
        multi_cell: bool,
    },
    /// `MapType(K,V)`; `multi_cell` is false when frozen.
    Map {
        key: Box<AbstractType>,
        value: Box<AbstractType>,
        multi_cell: bool,
    },
    /// `TupleType(T1,…)`: always frozen.
    Tuple(Vec<AbstractType>),
    /// `UserType(ks,name,field:T,…)` with the hex-encoded names decoded; `multi_cell` is false
    /// when frozen (but see CASSANDRA-15035 in the module docs).
    UserType {
        keyspace: String,
        name: String,
        fields: Vec<(String, AbstractType)>,
        multi_cell: bool,
    },
    /// `VectorType(T , dimension)` (5.0): always frozen.
    Vector {
        element: Box<AbstractType>,
        dimension: u32,
    },
    /// `PartitionerDefinedOrder(partitioner[:base])`: keys of secondary-index tables, ordered by
    /// token. `base` is the partition key type that 5.0 may append.
    PartitionerDefinedOrder {
        partitioner: String,
        base: Option<Box<AbstractType>>,
    },
    /// `ColumnToCollectionType(name:collection,…)`: pre-3.0 (legacy) layout of collection
    /// columns, kept as (column name, collection type) entries.
    ColumnToCollection(Vec<(String, AbstractType)>),
    /// A class this module does not know: the fully qualified class name followed by its raw,
    /// unparsed parameters (if any), exactly as written.
    Custom(String),
}

impl AbstractType {
    /// The type with every `ReversedType` wrapper removed (the type its values are encoded as).
    pub fn base(&self) -> &AbstractType {
        let mut t = self;
        while let AbstractType::Reversed(inner) = t {
            t = inner;
        }
        t
    }

    /// Whether this is a `ReversedType` (a DESC clustering column).
    pub fn is_reversed(&self) -> bool {
        matches!(self, AbstractType::Reversed(_))
    }

    /// Whether a column of this type is complex (one cell per element/field): a non-frozen
    /// collection or UDT (`AbstractType.isMultiCell`). Looks through `ReversedType`.
    ///
    /// A bare `UserType(...)` written by Cassandra 3.0.x is frozen although this says true
    /// (CASSANDRA-15035, see the module docs).
    pub fn is_multi_cell(&self) -> bool {
        match self.base() {
            AbstractType::List { multi_cell, .. }
            | AbstractType::Set { multi_cell, .. }
            | AbstractType::Map { multi_cell, .. }
            | AbstractType::UserType { multi_cell, .. } => *multi_cell,
            _ => false,
        }
    }

    /// Whether this is `CounterColumnType` (looks through `ReversedType`).
    pub fn is_counter(&self) -> bool {
        matches!(self.base(), AbstractType::Counter)
    }

    /// Whether this is a list, set or map, frozen or not (`CollectionType`); looks through
    /// `ReversedType`.
    pub fn is_collection(&self) -> bool {
        matches!(
            self.base(),
            AbstractType::List { .. } | AbstractType::Set { .. } | AbstractType::Map { .. }
        )
    }

    /// The size of every value of this type if it is fixed, `None` if values carry a length
    /// (`AbstractType.valueLengthIfFixed`, format doc §4.8).
    ///
    /// Fixed: `EmptyType` 0, `BooleanType` 1, `Int32Type`/`FloatType` 4,
    /// `LongType`/`DoubleType`/`TimestampType`/`DateType` 8, `UUIDType`/`TimeUUIDType`/
    /// `LexicalUUIDType` 16, `ReversedType(T)` as `T`, and a vector of a fixed-size element
    /// (dimension × element size). Everything else is variable, including `ShortType`,
    /// `ByteType`, `SimpleDateType`, `TimeType`, `CounterColumnType`, `InetAddressType`,
    /// `DecimalType`, `IntegerType`, `DurationType` and [`AbstractType::Custom`]. A vector whose
    /// size would overflow `u32` (never produced by [`parse_type`]) is reported as `None`.
    pub fn value_length_if_fixed(&self) -> Option<u32> {
        match self.base() {
            AbstractType::Empty => Some(0),
            AbstractType::Boolean => Some(1),
            AbstractType::Int32 | AbstractType::Float => Some(4),
            AbstractType::Long
            | AbstractType::Double
            | AbstractType::Timestamp
            | AbstractType::Date => Some(8),
            AbstractType::Uuid | AbstractType::TimeUuid | AbstractType::LexicalUuid => Some(16),
            AbstractType::Vector { element, dimension } => element
                .value_length_if_fixed()
                .and_then(|len| len.checked_mul(*dimension)),
            _ => None,
        }
    }

    /// This type, frozen, with everything inside it frozen (what `FrozenType(...)` does).
    ///
    /// Collections and UDTs become single-cell; tuples, vectors and `ReversedType` pass the
    /// freezing on to their members. Composite types, like in Cassandra, are left as they are.
    pub fn freeze(self) -> AbstractType {
        match self {
            AbstractType::List { element, .. } => AbstractType::List {
                element: Box::new(element.freeze()),
                multi_cell: false,
            },
            AbstractType::Set { element, .. } => AbstractType::Set {
                element: Box::new(element.freeze()),
                multi_cell: false,
            },
            AbstractType::Map { key, value, .. } => AbstractType::Map {
                key: Box::new(key.freeze()),
                value: Box::new(value.freeze()),
                multi_cell: false,
            },
            AbstractType::UserType {
                keyspace,
                name,
                fields,
                ..
            } => AbstractType::UserType {
                keyspace,
                name,
                fields: fields.into_iter().map(|(n, t)| (n, t.freeze())).collect(),
                multi_cell: false,
            },
            AbstractType::Tuple(members) => {
                AbstractType::Tuple(members.into_iter().map(AbstractType::freeze).collect())
            }
            AbstractType::Vector { element, dimension } => AbstractType::Vector {
                element: Box::new(element.freeze()),
                dimension,
            },
            AbstractType::Reversed(inner) => AbstractType::Reversed(Box::new(inner.freeze())),
            other => other,
        }
    }

    /// The simple (parameterless) type for a class name without its package.
    fn simple_from_short_name(name: &str) -> Option<AbstractType> {
        Some(match name {
            "AsciiType" => AbstractType::Ascii,
            "BooleanType" => AbstractType::Boolean,
            "BytesType" => AbstractType::Bytes,
            "CounterColumnType" => AbstractType::Counter,
            "DateType" => AbstractType::Date,
            "DecimalType" => AbstractType::Decimal,
            "DoubleType" => AbstractType::Double,
            "DurationType" => AbstractType::Duration,
            "EmptyType" => AbstractType::Empty,
            "FloatType" => AbstractType::Float,
            "InetAddressType" => AbstractType::Inet,
            "Int32Type" => AbstractType::Int32,
            "IntegerType" => AbstractType::Integer,
            "LexicalUUIDType" => AbstractType::LexicalUuid,
            "LongType" => AbstractType::Long,
            "ShortType" => AbstractType::Short,
            "ByteType" => AbstractType::Byte,
            "SimpleDateType" => AbstractType::SimpleDate,
            "TimeType" => AbstractType::Time,
            "TimestampType" => AbstractType::Timestamp,
            "TimeUUIDType" => AbstractType::TimeUuid,
            "UTF8Type" => AbstractType::Utf8,
            "UUIDType" => AbstractType::Uuid,
            _ => return None,
        })
    }

    /// The class name (without package) of a simple type; `None` for parameterised ones.
    fn simple_short_name(&self) -> Option<&'static str> {
        Some(match self {
            AbstractType::Ascii => "AsciiType",
            AbstractType::Boolean => "BooleanType",
            AbstractType::Bytes => "BytesType",
            AbstractType::Counter => "CounterColumnType",
            AbstractType::Date => "DateType",
            AbstractType::Decimal => "DecimalType",
            AbstractType::Double => "DoubleType",
            AbstractType::Duration => "DurationType",
            AbstractType::Empty => "EmptyType",
            AbstractType::Float => "FloatType",
            AbstractType::Inet => "InetAddressType",
            AbstractType::Int32 => "Int32Type",
            AbstractType::Integer => "IntegerType",
            AbstractType::LexicalUuid => "LexicalUUIDType",
            AbstractType::Long => "LongType",
            AbstractType::Short => "ShortType",
            AbstractType::Byte => "ByteType",
            AbstractType::SimpleDate => "SimpleDateType",
            AbstractType::Time => "TimeType",
            AbstractType::Timestamp => "TimestampType",
            AbstractType::TimeUuid => "TimeUUIDType",
            AbstractType::Utf8 => "UTF8Type",
            AbstractType::Uuid => "UUIDType",
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every simple type: (short class name, CQL, fixed length).
    const SIMPLE: &[(&str, &str, Option<u32>)] = &[
        ("AsciiType", "ascii", None),
        ("BooleanType", "boolean", Some(1)),
        ("BytesType", "blob", None),
        ("CounterColumnType", "counter", None),
        ("DateType", "timestamp", Some(8)),
        ("DecimalType", "decimal", None),
        ("DoubleType", "double", Some(8)),
        ("DurationType", "duration", None),
        ("EmptyType", "empty", Some(0)),
        ("FloatType", "float", Some(4)),
        ("InetAddressType", "inet", None),
        ("Int32Type", "int", Some(4)),
        ("IntegerType", "varint", None),
        (
            "LexicalUUIDType",
            "'org.apache.cassandra.db.marshal.LexicalUUIDType'",
            Some(16),
        ),
        ("LongType", "bigint", Some(8)),
        ("ShortType", "smallint", None),
        ("ByteType", "tinyint", None),
        ("SimpleDateType", "date", None),
        ("TimeType", "time", None),
        ("TimestampType", "timestamp", Some(8)),
        ("TimeUUIDType", "timeuuid", Some(16)),
        ("UTF8Type", "text", None),
        ("UUIDType", "uuid", Some(16)),
    ];

    #[test]
    fn every_simple_type_short_and_qualified() {
        for &(short, cql, fixed) in SIMPLE {
            let t = parse_type(short).unwrap();
            assert_eq!(t.simple_short_name(), Some(short), "{short}");
            assert_eq!(AbstractType::simple_from_short_name(short), Some(t.clone()));
            let qualified = format!("{MARSHAL_PACKAGE}{short}");
            assert_eq!(parse_type(&qualified).unwrap(), t, "{qualified}");
            assert_eq!(parse_type(&format!(" \t{qualified}\n ")).unwrap(), t);
            assert_eq!(t.cql(), cql, "{short}");
            assert_eq!(t.to_type_string(), qualified);
            assert_eq!(t.value_length_if_fixed(), fixed, "{short}");
            assert!(!t.is_multi_cell() && !t.is_collection() && !t.is_reversed());
            assert_eq!(t.is_counter(), short == "CounterColumnType");
        }
        assert_eq!(SIMPLE.len(), 23);
    }

    #[test]
    fn fixed_lengths_follow_the_format_doc_table() {
        let p = |s: &str| parse_type(s).unwrap().value_length_if_fixed();
        assert_eq!(p("ReversedType(LongType)"), Some(8));
        assert_eq!(p("ReversedType(ReversedType(UUIDType))"), Some(16));
        assert_eq!(p("ReversedType(UTF8Type)"), None);
        assert_eq!(p("VectorType(FloatType , 3)"), Some(12));
        assert_eq!(p("VectorType(DoubleType,1000)"), Some(8000));
        assert_eq!(p("VectorType(UTF8Type , 3)"), None);
        assert_eq!(p("FrozenType(ListType(Int32Type))"), None);
        assert_eq!(p("TupleType(Int32Type,Int32Type)"), None);
        assert_eq!(p("CompositeType(Int32Type)"), None);
        assert_eq!(p("com.example.FixedType"), None);
        let huge = AbstractType::Vector {
            element: Box::new(AbstractType::Long),
            dimension: u32::MAX,
        };
        assert_eq!(huge.value_length_if_fixed(), None);
    }

    #[test]
    fn predicates_look_through_reversed() {
        let t = parse_type("ReversedType(CounterColumnType)").unwrap();
        assert!(t.is_counter() && t.is_reversed());
        assert_eq!(t.base(), &AbstractType::Counter);
        let t = parse_type("ReversedType(FrozenType(SetType(Int32Type)))").unwrap();
        assert!(t.is_collection() && !t.is_multi_cell());
        assert_eq!(t.cql(), "frozen<set<int>>");
        let t = parse_type("MapType(Int32Type,UTF8Type)").unwrap();
        assert!(t.is_collection() && t.is_multi_cell() && !t.is_reversed());
        let t = parse_type("TupleType(Int32Type)").unwrap();
        assert!(!t.is_collection() && !t.is_multi_cell());
    }

    #[test]
    fn freeze_is_deep() {
        let t = parse_type("UserType(ks,6e,61:MapType(Int32Type,ListType(Int32Type)))").unwrap();
        assert!(t.is_multi_cell());
        let frozen = t.clone().freeze();
        assert!(!frozen.is_multi_cell());
        assert_eq!(frozen.cql(), "frozen<n>");
        assert_eq!(frozen.clone().freeze(), frozen);
        assert_eq!(
            parse_type(&format!("FrozenType({})", t.to_type_string())).unwrap(),
            frozen
        );
    }
}
