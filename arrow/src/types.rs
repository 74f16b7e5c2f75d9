//! The CQL → Arrow type mapping.
//!
//! | CQL (`AbstractType`) | Arrow |
//! |---|---|
//! | `ascii`, `text` | `Utf8` |
//! | `boolean` | `Boolean` |
//! | `tinyint` `smallint` `int` `bigint` | `Int8` `Int16` `Int32` `Int64` |
//! | `counter` | `Int64` (the CounterContext's total) |
//! | `float`, `double` | `Float32`, `Float64` |
//! | `timestamp` (and the legacy `DateType`) | `Timestamp(Millisecond, "UTC")` |
//! | `date` | `Date32` (days since the epoch) |
//! | `time` | `Time64(Nanosecond)` |
//! | `uuid`, `timeuuid` | `FixedSizeBinary(16)`, field metadata `ARROW:extension:name` = `arrow.uuid` |
//! | `blob`, custom types, `CompositeType`, `EmptyType` | `Binary` (the raw bytes) |
//! | `varint`, `decimal`, `inet` | `Utf8`: the exact text `sstable-inspect dump` prints (no rounding; an `inet` as cqlsh shows it) |
//! | `duration` | `Struct{months: Int32, days: Int32, nanoseconds: Int64}` (`cql3/Duration.java`) |
//! | `list<T>`, `set<T>`, `vector<T, n>` | `List(T)` |
//! | `map<K, V>` | `Map(K, V)` |
//! | `tuple<…>` | `Struct` with fields `0`, `1`, … |
//! | UDT | `Struct` with the type's field names |
//! | `ReversedType(T)` | as `T` |
//!
//! With [`TypeMapping::Text`] (CSV) every value is `Utf8`: the text `sstable-inspect dump`
//! prints for it (cqlsh's rendering; collections, tuples and UDTs in cqlsh's literal syntax).
//!
//! Src: `db/marshal/*Type.java`, `serializers/*Serializer.java` (byte layouts).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, TimeUnit};
use sstable_engine::types::AbstractType;

/// The extension name of UUID columns (Arrow's canonical `arrow.uuid` extension type).
pub const UUID_EXTENSION_NAME: &str = "arrow.uuid";

/// Field metadata key of an Arrow extension type's name.
pub const EXTENSION_NAME_KEY: &str = "ARROW:extension:name";

/// The key under which each field's metadata records its Cassandra type string.
pub const CQL_TYPE_KEY: &str = "cassandra.type";

/// How nested CQL types are mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TypeMapping {
    /// `List`, `Map`, `Struct` (the table in the module docs).
    #[default]
    Nested,
    /// Every value as the text `dump` prints (for CSV).
    Text,
}

/// What the values of one CQL type become (the table in the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mapped {
    Boolean,
    Int8,
    Int16,
    Int32,
    Int64,
    /// `counter`: a CounterContext's total (or a plain 8-byte value).
    Counter,
    Float32,
    Float64,
    /// `ascii`, `text`: the UTF-8 bytes.
    Utf8,
    /// Rendered with the engine's `format_value` (varint, decimal, inet; everything in
    /// [`TypeMapping::Text`]).
    Text(AbstractType),
    Binary,
    Uuid,
    TimestampMs,
    Date32,
    Time64Ns,
    Duration,
    /// `list`, `set` (elements in cell values, or in cell paths for a non-frozen set).
    List {
        element: Box<Mapped>,
        is_set: bool,
    },
    /// `vector<T, n>`: `fixed_bytes` when `T` has a fixed length (elements back to back).
    Vector {
        element: Box<Mapped>,
        dimension: u32,
        fixed_bytes: Option<u32>,
    },
    Map {
        key: Box<Mapped>,
        value: Box<Mapped>,
    },
    /// Tuples and UDTs: (field name, mapping).
    Struct(Vec<(String, Mapped)>),
}

impl Mapped {
    pub(crate) fn of(t: &AbstractType, mapping: TypeMapping) -> Mapped {
        let t = t.base();
        match t {
            AbstractType::Ascii | AbstractType::Utf8 => Mapped::Utf8,
            _ if mapping == TypeMapping::Text => Mapped::Text(t.clone().freeze()),
            AbstractType::Boolean => Mapped::Boolean,
            AbstractType::Byte => Mapped::Int8,
            AbstractType::Short => Mapped::Int16,
            AbstractType::Int32 => Mapped::Int32,
            AbstractType::Long => Mapped::Int64,
            AbstractType::Counter => Mapped::Counter,
            AbstractType::Float => Mapped::Float32,
            AbstractType::Double => Mapped::Float64,
            AbstractType::Timestamp | AbstractType::Date => Mapped::TimestampMs,
            AbstractType::SimpleDate => Mapped::Date32,
            AbstractType::Time => Mapped::Time64Ns,
            AbstractType::Uuid | AbstractType::TimeUuid => Mapped::Uuid,
            AbstractType::LexicalUuid => Mapped::Binary,
            AbstractType::Integer | AbstractType::Decimal | AbstractType::Inet => {
                Mapped::Text(t.clone())
            }
            AbstractType::Duration => Mapped::Duration,
            AbstractType::List { element, .. } => Mapped::List {
                element: Box::new(Mapped::of(element, mapping)),
                is_set: false,
            },
            AbstractType::Set { element, .. } => Mapped::List {
                element: Box::new(Mapped::of(element, mapping)),
                is_set: true,
            },
            AbstractType::Vector { element, dimension } => Mapped::Vector {
                element: Box::new(Mapped::of(element, mapping)),
                dimension: *dimension,
                fixed_bytes: element.value_length_if_fixed(),
            },
            AbstractType::Map { key, value, .. } => Mapped::Map {
                key: Box::new(Mapped::of(key, mapping)),
                value: Box::new(Mapped::of(value, mapping)),
            },
            AbstractType::Tuple(members) => Mapped::Struct(
                members
                    .iter()
                    .enumerate()
                    .map(|(i, m)| (i.to_string(), Mapped::of(m, mapping)))
                    .collect(),
            ),
            AbstractType::UserType { fields, .. } => Mapped::Struct(
                fields
                    .iter()
                    .map(|(name, f)| (name.clone(), Mapped::of(f, mapping)))
                    .collect(),
            ),
            AbstractType::Bytes
            | AbstractType::Empty
            | AbstractType::Composite(_)
            | AbstractType::DynamicComposite(_)
            | AbstractType::Reversed(_)
            | AbstractType::PartitionerDefinedOrder { .. }
            | AbstractType::ColumnToCollection(_)
            | AbstractType::Custom(_) => Mapped::Binary,
        }
    }

    /// The Arrow type of the values.
    pub(crate) fn data_type(&self) -> DataType {
        match self {
            Mapped::Boolean => DataType::Boolean,
            Mapped::Int8 => DataType::Int8,
            Mapped::Int16 => DataType::Int16,
            Mapped::Int32 => DataType::Int32,
            Mapped::Int64 | Mapped::Counter => DataType::Int64,
            Mapped::Float32 => DataType::Float32,
            Mapped::Float64 => DataType::Float64,
            Mapped::Utf8 | Mapped::Text(_) => DataType::Utf8,
            Mapped::Binary => DataType::Binary,
            Mapped::Uuid => DataType::FixedSizeBinary(16),
            Mapped::TimestampMs => DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            Mapped::Date32 => DataType::Date32,
            Mapped::Time64Ns => DataType::Time64(TimeUnit::Nanosecond),
            Mapped::Duration => DataType::Struct(duration_fields()),
            Mapped::List { element, .. } | Mapped::Vector { element, .. } => {
                DataType::List(list_item_field(element))
            }
            Mapped::Map { key, value } => DataType::Map(map_entries_field(key, value), false),
            Mapped::Struct(fields) => DataType::Struct(struct_fields(fields)),
        }
    }

    /// A field of this type (UUIDs carry the extension name).
    pub(crate) fn field(&self, name: &str, nullable: bool) -> Field {
        let field = Field::new(name, self.data_type(), nullable);
        if *self == Mapped::Uuid {
            field.with_metadata(HashMap::from([(
                EXTENSION_NAME_KEY.to_owned(),
                UUID_EXTENSION_NAME.to_owned(),
            )]))
        } else {
            field
        }
    }
}

/// The Arrow type of a CQL type's values (the table in the module docs).
pub fn arrow_type(t: &AbstractType, mapping: TypeMapping) -> DataType {
    Mapped::of(t, mapping).data_type()
}

/// A nullable field for a column of CQL type `t`, with its Cassandra type string in the
/// field metadata (and `arrow.uuid` for UUIDs).
pub fn arrow_field(name: &str, t: &AbstractType, mapping: TypeMapping) -> Field {
    let field = Mapped::of(t, mapping).field(name, true);
    let mut metadata = field.metadata().clone();
    metadata.insert(CQL_TYPE_KEY.to_owned(), t.to_type_string());
    field.with_metadata(metadata)
}

pub(crate) fn duration_fields() -> Fields {
    Fields::from(vec![
        Field::new("months", DataType::Int32, false),
        Field::new("days", DataType::Int32, false),
        Field::new("nanoseconds", DataType::Int64, false),
    ])
}

pub(crate) fn list_item_field(element: &Mapped) -> Arc<Field> {
    Arc::new(element.field("item", true))
}

pub(crate) fn map_entries_field(key: &Mapped, value: &Mapped) -> Arc<Field> {
    Arc::new(Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![
            key.field("key", false),
            value.field("value", true),
        ])),
        false,
    ))
}

pub(crate) fn struct_fields(fields: &[(String, Mapped)]) -> Fields {
    fields.iter().map(|(name, m)| m.field(name, true)).collect()
}
