//! Pre-3.0 cell names.
//!
//! | comparator | name bytes |
//! |---|---|
//! | `CompositeType` (CQL3 tables, compound dense tables) | per component: u16 length, bytes, end-of-component byte (`0x00`; `0xFF` / `0x01` in slice and range-tombstone bounds) |
//! | `CompositeType`, static cell | `0xFFFF`, then the components (empty clustering values, the column name) |
//! | any other type (COMPACT STORAGE with one clustering column, Thrift) | the value itself |
//!
//! In a CQL3 table the components are the clustering values, then the column name (empty for
//! the row marker), then for a collection cell the element key (map key, set element, list
//! timeuuid).
//!
//! Src: `db/marshal/CompositeType.java` (`STATIC_MARKER`, `build`), `db/composites/
//! CompoundSparseCellNameType.java`, `db/composites/Composite.java` (`EOC`).

use serde::Serialize;

use crate::reader::Reader;
use crate::span::{hex, Span};

/// The first two bytes of a static cell's composite name (`CompositeType.STATIC_MARKER`).
pub const STATIC_MARKER: u16 = 0xFFFF;

/// One component of a composite name.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct NameComponent<'w> {
    #[serde(skip)]
    pub value: &'w [u8],
    /// `Composite.EOC`: 0 in cell names; −1 (start) or 1 (end) in bounds.
    pub end_of_component: i8,
    /// The component's bytes (after its length).
    pub span: Span,
}

/// A cell name, split as its comparator would.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub enum CellName<'w> {
    /// A `CompositeType` name.
    Composite {
        is_static: bool,
        components: Vec<NameComponent<'w>>,
    },
    /// A name of a non-composite comparator, kept as one value.
    Simple(#[serde(skip)] &'w [u8]),
}

impl<'w> CellName<'w> {
    /// Splits `bytes` (whose first byte is at absolute `base`): as a composite when `compound`
    /// is `Some(true)`, as one value when `Some(false)`, and when `None` as a composite if the
    /// bytes have exactly that shape. A name that should be composite but is not shaped like one
    /// comes back simple.
    pub fn parse(bytes: &'w [u8], base: u64, compound: Option<bool>) -> CellName<'w> {
        if compound == Some(false) || bytes.is_empty() {
            return CellName::Simple(bytes);
        }
        split_composite(bytes, base).unwrap_or(CellName::Simple(bytes))
    }

    pub fn is_static(&self) -> bool {
        matches!(
            self,
            CellName::Composite {
                is_static: true,
                ..
            }
        )
    }

    /// The component values (a simple name is one value).
    pub fn values(&self) -> Vec<&'w [u8]> {
        match self {
            CellName::Composite { components, .. } => components.iter().map(|c| c.value).collect(),
            CellName::Simple(b) => vec![*b],
        }
    }

    /// The components as the engine prints them without a schema (the CLI's `dump --atoms` and
    /// the page): `static` first for a static name, then each value as text when valid UTF-8,
    /// else `0x…` hex.
    pub fn untyped_values(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.is_static() {
            out.push("static".to_owned());
        }
        out.extend(self.values().iter().map(|v| untyped(v).0));
        out
    }

    /// The end-of-component byte of the last component (0 for simple names).
    pub fn last_end_of_component(&self) -> i8 {
        match self {
            CellName::Composite { components, .. } => {
                components.last().map_or(0, |c| c.end_of_component)
            }
            CellName::Simple(_) => 0,
        }
    }
}

/// A value without a type: text when valid UTF-8 without control characters, else `0x…` hex
/// with a note saying so (2.x keys and values, and keys of any SSTable without a key type).
pub fn untyped(bytes: &[u8]) -> (String, Option<String>) {
    match core::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(char::is_control) => (s.to_owned(), None),
        _ => (
            format!("0x{}", hex(bytes)),
            Some("no schema: not UTF-8 text, shown as hex".to_owned()),
        ),
    }
}

/// `CompositeType` components consuming all of `bytes`, or `None`.
fn split_composite(bytes: &[u8], base: u64) -> Option<CellName<'_>> {
    let mut r = Reader::new(bytes, base);
    let is_static = bytes.starts_with(&STATIC_MARKER.to_be_bytes());
    if is_static {
        r.skip(2, "static marker").ok()?;
    }
    let mut components = Vec::new();
    while !r.is_empty() {
        let len = r.u16("composite component length").ok()?;
        let start = r.offset();
        let value = r.bytes(usize::from(len), "composite component").ok()?;
        let span = r.span_from(start);
        let eoc = r.u8("end of component").ok()? as i8;
        components.push(NameComponent {
            value,
            end_of_component: eoc,
            span,
        });
    }
    if components.is_empty() {
        return None;
    }
    Some(CellName::Composite {
        is_static,
        components,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composite_static_and_simple_names() {
        // ["0", "val"]
        let name = [0, 1, b'0', 0, 0, 3, b'v', b'a', b'l', 0];
        let n = CellName::parse(&name, 10, None);
        assert_eq!(n.values(), vec![&b"0"[..], &b"val"[..]]);
        assert!(!n.is_static());
        match &n {
            CellName::Composite { components, .. } => {
                assert_eq!(components[1].span, Span::new(16, 19))
            }
            CellName::Simple(_) => panic!("not split"),
        }
        // Row marker: ["0", ""].
        let marker = [0, 1, b'0', 0, 0, 0, 0];
        assert_eq!(
            CellName::parse(&marker, 0, None).values(),
            vec![&b"0"[..], &b""[..]]
        );
        // Static: 0xFFFF, [""], ["s"].
        let st = [0xff, 0xff, 0, 0, 0, 0, 1, b's', 0];
        let n = CellName::parse(&st, 0, None);
        assert!(n.is_static());
        assert_eq!(n.values(), vec![&b""[..], &b"s"[..]]);
        assert_eq!(n.untyped_values(), vec!["static", "", "s"]);
        assert_eq!(
            CellName::parse(&[0, 2, 0xff, 0x01, 0], 0, None).untyped_values(),
            vec!["0xff01"]
        );
        // Not composite-shaped: kept whole.
        assert_eq!(
            CellName::parse(b"val", 0, None),
            CellName::Simple(&b"val"[..])
        );
        assert_eq!(
            CellName::parse(&name, 0, Some(false)),
            CellName::Simple(&name[..])
        );
        // Bounds: end-of-component bytes kept.
        let bound = [0, 1, b'a', 0xff];
        assert_eq!(CellName::parse(&bound, 0, None).last_end_of_component(), -1);
    }
}
