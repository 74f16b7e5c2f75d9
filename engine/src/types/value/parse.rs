//! Text → bytes: the inverse of [`super::format_value`] for values a user types (partition keys
//! for `dump --key` and `lookup`). Each type's `fromString` (`serializers/*Serializer.java`,
//! `cql3/Duration.java`, `AbstractCompositeType.fromString`) is the reference; the accepted
//! forms are listed in the parent module's docs.

use std::net::IpAddr;

use super::num::{
    decimal_to_twos_complement, parse_big_decimal, write_signed_vint, write_unsigned_vint,
};
use super::temporal::{parse_date, parse_duration, parse_time, parse_timestamp};
use super::text::{composite_split, composite_unescape, parse_hex_digits, unescape_text};
use super::{ValueParseError, MAX_BIGNUM_BYTES};
use crate::types::AbstractType;

/// Longest partition key Cassandra accepts (its length is stored as a u16).
const MAX_KEY_BYTES: usize = 0xffff;

/// Longest decimal digit string converted to a `varint` / `decimal` (about
/// [`MAX_BIGNUM_BYTES`] bytes of binary).
const MAX_BIGNUM_DIGITS: usize = MAX_BIGNUM_BYTES * 2;

/// Parses `text` as a value of type `t` into its serialized bytes (see the module docs for the
/// forms accepted). Text types take `text` as it is apart from backslash escapes (no trimming);
/// other types ignore surrounding blanks.
pub fn parse_value(t: &AbstractType, text: &str) -> Result<Vec<u8>, ValueParseError> {
    let t = t.base();
    if !is_literal_type(t) {
        return scalar(t, text);
    }
    let mut lit = Literal { s: text, pos: 0 };
    let value = lit.value(t)?;
    lit.skip_blanks();
    if !lit.rest().is_empty() {
        return Err(lit.err(format!("unexpected '{}' after the value", lit.rest())));
    }
    value.ok_or_else(|| ValueParseError::new(0, "null is not a value here"))
}

/// Parses a partition key typed by a user into the key's bytes: `0x` followed only by hex
/// digits is the raw key (any key type); a `CompositeType` key is its components separated by
/// `:` (escaped as [`super::format_value`] prints them); any other key is [`parse_value`] of
/// its type.
pub fn parse_partition_key(
    key_type: &AbstractType,
    text: &str,
) -> Result<Vec<u8>, ValueParseError> {
    let raw = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .and_then(parse_hex_digits);
    let key = match raw {
        Some(bytes) => bytes,
        None => parse_value(key_type, text)?,
    };
    if key.len() > MAX_KEY_BYTES {
        return Err(ValueParseError::new(
            0,
            format!(
                "a partition key is at most {MAX_KEY_BYTES} bytes, this one is {}",
                key.len()
            ),
        ));
    }
    Ok(key)
}

/// Types written as cqlsh literals (`[…]`, `{…}`, `(…)`).
fn is_literal_type(t: &AbstractType) -> bool {
    matches!(
        t,
        AbstractType::List { .. }
            | AbstractType::Set { .. }
            | AbstractType::Map { .. }
            | AbstractType::Tuple(_)
            | AbstractType::UserType { .. }
            | AbstractType::Vector { .. }
    )
}

/// A value of a non-literal type, from all of `raw`.
fn scalar(t: &AbstractType, raw: &str) -> Result<Vec<u8>, ValueParseError> {
    match t.base() {
        AbstractType::Utf8 => text_value(raw, false),
        AbstractType::Ascii => text_value(raw, true),
        AbstractType::Composite(types) => composite(types, raw),
        AbstractType::PartitionerDefinedOrder {
            base: Some(base), ..
        } => parse_value(base, raw),
        other => {
            let lead = raw.len().saturating_sub(raw.trim_start().len());
            simple(other, raw.trim()).map_err(|m| ValueParseError::new(lead, m))
        }
    }
}

fn text_value(raw: &str, ascii: bool) -> Result<Vec<u8>, ValueParseError> {
    let s = unescape_text(raw).map_err(|(at, m)| ValueParseError::new(at, m))?;
    if ascii {
        if let Some((at, c)) = raw.char_indices().find(|(_, c)| !c.is_ascii()) {
            return Err(ValueParseError::new(
                at,
                format!("'{c}' is not an ASCII character"),
            ));
        }
        if let Some(c) = s.chars().find(|c| !c.is_ascii()) {
            return Err(ValueParseError::new(
                0,
                format!("'{c}' is not an ASCII character"),
            ));
        }
    }
    Ok(s.into_bytes())
}

fn expected(what: &str, s: &str) -> String {
    format!("expected {what}, found '{s}'")
}

/// Every non-text, non-literal type, from trimmed text `s`. Err: the message.
fn simple(t: &AbstractType, s: &str) -> Result<Vec<u8>, String> {
    Ok(match t {
        AbstractType::Bytes
        | AbstractType::Custom(_)
        | AbstractType::ColumnToCollection(_)
        | AbstractType::PartitionerDefinedOrder { .. } => blob(s)?,
        AbstractType::Boolean => {
            if s.eq_ignore_ascii_case("true") {
                vec![1]
            } else if s.eq_ignore_ascii_case("false") {
                vec![0]
            } else {
                return Err(expected("true or false", s));
            }
        }
        AbstractType::Byte => s
            .parse::<i8>()
            .map_err(|_| expected("a tinyint (-128..127)", s))?
            .to_be_bytes()
            .to_vec(),
        AbstractType::Short => s
            .parse::<i16>()
            .map_err(|_| expected("a smallint (-32768..32767)", s))?
            .to_be_bytes()
            .to_vec(),
        AbstractType::Int32 => s
            .parse::<i32>()
            .map_err(|_| expected("an int (-2147483648..2147483647)", s))?
            .to_be_bytes()
            .to_vec(),
        AbstractType::Long | AbstractType::Counter => s
            .parse::<i64>()
            .map_err(|_| expected("a 64-bit integer", s))?
            .to_be_bytes()
            .to_vec(),
        AbstractType::Integer => varint(s)?,
        AbstractType::Decimal => decimal(s)?,
        AbstractType::Double => parse_float(s)
            .ok_or_else(|| expected("a double", s))?
            .to_be_bytes()
            .to_vec(),
        AbstractType::Float => parse_float32(s)
            .ok_or_else(|| expected("a float", s))?
            .to_be_bytes()
            .to_vec(),
        AbstractType::Timestamp | AbstractType::Date => parse_timestamp(s)?.to_be_bytes().to_vec(),
        AbstractType::SimpleDate => parse_date(s)?.to_be_bytes().to_vec(),
        AbstractType::Time => parse_time(s)?.to_be_bytes().to_vec(),
        AbstractType::Duration => {
            let (months, days, nanos) = parse_duration(s)?;
            let mut out = Vec::with_capacity(12);
            write_signed_vint(i64::from(months), &mut out);
            write_signed_vint(i64::from(days), &mut out);
            write_signed_vint(nanos, &mut out);
            out
        }
        AbstractType::Inet => match s.parse::<IpAddr>() {
            Ok(IpAddr::V4(a)) => a.octets().to_vec(),
            Ok(IpAddr::V6(a)) => a.octets().to_vec(),
            Err(_) => return Err(expected("an IPv4 or IPv6 address", s)),
        },
        AbstractType::Uuid | AbstractType::LexicalUuid => uuid(s)?,
        AbstractType::TimeUuid => {
            let bytes = uuid(s)?;
            let version = bytes.get(6).map_or(0, |b| b >> 4);
            if version != 1 {
                return Err(format!(
                    "a timeuuid must be a version 1 UUID, '{s}' is version {version}"
                ));
            }
            bytes
        }
        AbstractType::Empty => {
            if !s.is_empty() {
                return Err(expected("nothing (EmptyType)", s));
            }
            Vec::new()
        }
        AbstractType::DynamicComposite(_) => {
            return Err(
                "DynamicCompositeType values cannot be typed in; give the key in hex (0x…)".into(),
            )
        }
        other => {
            return Err(format!(
                "cannot parse a {} from this text; give it in hex (0x…)",
                other.cql()
            ))
        }
    })
}

/// `0x…` or bare hex digits (`BytesType.fromString` takes them without the prefix).
fn blob(s: &str) -> Result<Vec<u8>, String> {
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    parse_hex_digits(digits).ok_or_else(|| expected("hex bytes such as 0x00ff", s))
}

/// An optional sign and decimal digits.
fn sign_and_digits(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..).unwrap_or("")),
        Some(b'+') => (false, s.get(1..).unwrap_or("")),
        _ => (false, s),
    }
}

fn varint(s: &str) -> Result<Vec<u8>, String> {
    let (negative, digits) = sign_and_digits(s);
    if digits.len() > MAX_BIGNUM_DIGITS {
        return Err(format!(
            "varint of {} digits is longer than the {MAX_BIGNUM_DIGITS} accepted",
            digits.len()
        ));
    }
    decimal_to_twos_complement(digits, negative).ok_or_else(|| expected("an integer", s))
}

fn decimal(s: &str) -> Result<Vec<u8>, String> {
    let (negative, digits, scale) = parse_big_decimal(s)?;
    if digits.len() > MAX_BIGNUM_DIGITS {
        return Err(format!(
            "decimal of {} digits is longer than the {MAX_BIGNUM_DIGITS} accepted",
            digits.len()
        ));
    }
    let unscaled =
        decimal_to_twos_complement(&digits, negative).ok_or_else(|| expected("a decimal", s))?;
    let mut out = Vec::with_capacity(unscaled.len().saturating_add(4));
    out.extend_from_slice(&scale.to_be_bytes());
    out.extend_from_slice(&unscaled);
    Ok(out)
}

/// `NaN`, `Infinity`, `-Infinity` (any case) or a decimal / exponent number.
fn parse_float(s: &str) -> Option<f64> {
    let (negative, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if body.eq_ignore_ascii_case("nan") {
        return (!negative).then_some(f64::NAN);
    }
    if body.eq_ignore_ascii_case("infinity") {
        return Some(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    // Rust's parser also takes "inf" and "nan" words; only numbers get here.
    if !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    s.parse::<f64>().ok()
}

/// As [`parse_float`], rounded once to the nearest `f32`.
fn parse_float32(s: &str) -> Option<f32> {
    let v = parse_float(s)?;
    if v.is_nan() {
        return Some(f32::NAN);
    }
    if v.is_infinite() {
        return Some(if v > 0.0 {
            f32::INFINITY
        } else {
            f32::NEG_INFINITY
        });
    }
    s.parse::<f32>().ok()
}

/// `8-4-4-4-12` hex (`UUID.fromString`'s canonical form).
fn uuid(s: &str) -> Result<Vec<u8>, String> {
    let well_formed = s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    let digits: String = s.chars().filter(|c| *c != '-').collect();
    match parse_hex_digits(&digits) {
        Some(bytes) if well_formed => Ok(bytes),
        _ => Err(expected(
            "a UUID such as 123e4567-e89b-12d3-a456-426614174000",
            s,
        )),
    }
}

/// `AbstractCompositeType.fromString` for a `CompositeType`: one component per type, separated
/// by unescaped `:`, each unescaped then parsed by its type and written as u16 length, bytes,
/// end-of-component `00`.
fn composite(types: &[AbstractType], s: &str) -> Result<Vec<u8>, ValueParseError> {
    let parts = composite_split(s);
    if parts.len() != types.len() {
        return Err(ValueParseError::new(
            0,
            format!(
                "expected {} components separated by ':', found {} (write ':' inside a value as '\\:')",
                types.len(),
                parts.len()
            ),
        ));
    }
    let mut out = Vec::new();
    for ((at, part), t) in parts.into_iter().zip(types) {
        let value = parse_value(t, &composite_unescape(part)).map_err(|e| e.shifted(at))?;
        let len = u16::try_from(value.len()).map_err(|_| {
            ValueParseError::new(
                at,
                format!(
                    "a composite component is at most 65535 bytes, this one is {}",
                    value.len()
                ),
            )
        })?;
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&value);
        out.push(0);
    }
    Ok(out)
}

/// One parsed collection element or field: its bytes, or `None` for `null`.
type Element = Option<Vec<u8>>;

/// A cqlsh literal, parsed by recursive descent following the type (so its depth is the
/// type's, which [`crate::types::parse_type`] bounds).
struct Literal<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Literal<'a> {
    /// Moves the cursor `n` bytes on; it never passes the end of the text, so this cannot
    /// saturate.
    fn advance(&mut self, n: usize) {
        self.pos = self.pos.saturating_add(n);
    }

    fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or("")
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn err(&self, msg: impl Into<String>) -> ValueParseError {
        ValueParseError::new(self.pos, msg)
    }

    fn skip_blanks(&mut self) {
        let rest = self.rest();
        self.advance(rest.len().saturating_sub(rest.trim_start().len()));
    }

    /// Skips blanks, then consumes `c` if it is next.
    fn eat(&mut self, c: char) -> bool {
        self.skip_blanks();
        if self.peek() == Some(c) {
            self.advance(c.len_utf8());
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char, context: &str) -> Result<(), ValueParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            let found = self
                .peek()
                .map_or("the end".to_owned(), |f| format!("'{f}'"));
            Err(self.err(format!("expected '{c}' {context}, found {found}")))
        }
    }

    /// Consumes the word `null` (any case) if it stands alone next.
    fn eat_null(&mut self) -> bool {
        let rest = self.rest();
        let is_null = rest
            .get(..4)
            .is_some_and(|w| w.eq_ignore_ascii_case("null"))
            && !rest
                .get(4..)
                .and_then(|r| r.chars().next())
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if is_null {
            self.advance(4);
        }
        is_null
    }

    /// A value of `t` (`None` for `null`).
    fn value(&mut self, t: &AbstractType) -> Result<Option<Vec<u8>>, ValueParseError> {
        self.skip_blanks();
        if self.eat_null() {
            return Ok(None);
        }
        let t = t.base();
        let bytes = match t {
            AbstractType::List { element, .. } => {
                let items = self.sequence(element, '[', ']')?;
                self.encode_collection(&items)?
            }
            AbstractType::Set { element, .. } => {
                let items = self.sequence(element, '{', '}')?;
                self.encode_collection(&items)?
            }
            AbstractType::Map { key, value, .. } => self.map(key, value)?,
            AbstractType::Tuple(types) => self.tuple(types)?,
            AbstractType::UserType { fields, .. } => self.user_type(fields)?,
            AbstractType::Vector { element, dimension } => self.vector(element, *dimension)?,
            _ => self.scalar_token(t)?,
        };
        Ok(Some(bytes))
    }

    /// `open` values separated by `,` `close`.
    fn sequence(
        &mut self,
        element: &AbstractType,
        open: char,
        close: char,
    ) -> Result<Vec<Option<Vec<u8>>>, ValueParseError> {
        self.expect(open, "to open the collection")?;
        let mut items = Vec::new();
        if self.eat(close) {
            return Ok(items);
        }
        loop {
            items.push(self.value(element)?);
            if self.eat(close) {
                return Ok(items);
            }
            self.expect(',', "between elements")?;
        }
    }

    /// i32 count, then per element i32 length + bytes (-1 for null).
    fn encode_collection(&self, items: &[Option<Vec<u8>>]) -> Result<Vec<u8>, ValueParseError> {
        let mut out = Vec::new();
        let count = i32::try_from(items.len()).map_err(|_| self.err("too many elements"))?;
        out.extend_from_slice(&count.to_be_bytes());
        for item in items {
            self.write_element(item.as_deref(), &mut out)?;
        }
        Ok(out)
    }

    fn write_element(&self, item: Option<&[u8]>, out: &mut Vec<u8>) -> Result<(), ValueParseError> {
        match item {
            Some(b) => {
                let len = i32::try_from(b.len()).map_err(|_| self.err("element too large"))?;
                out.extend_from_slice(&len.to_be_bytes());
                out.extend_from_slice(b);
            }
            None => out.extend_from_slice(&(-1i32).to_be_bytes()),
        }
        Ok(())
    }

    fn map(
        &mut self,
        key: &AbstractType,
        value: &AbstractType,
    ) -> Result<Vec<u8>, ValueParseError> {
        self.expect('{', "to open the map")?;
        let mut entries: Vec<(Element, Element)> = Vec::new();
        if !self.eat('}') {
            loop {
                let k = self.value(key)?;
                self.expect(':', "between a map key and its value")?;
                let v = self.value(value)?;
                entries.push((k, v));
                if self.eat('}') {
                    break;
                }
                self.expect(',', "between map entries")?;
            }
        }
        let mut out = Vec::new();
        let count = i32::try_from(entries.len()).map_err(|_| self.err("too many entries"))?;
        out.extend_from_slice(&count.to_be_bytes());
        for (k, v) in &entries {
            self.write_element(k.as_deref(), &mut out)?;
            self.write_element(v.as_deref(), &mut out)?;
        }
        Ok(out)
    }

    /// `(a, b, …)`: at most one value per type; missing trailing fields are written as null.
    fn tuple(&mut self, types: &[AbstractType]) -> Result<Vec<u8>, ValueParseError> {
        self.expect('(', "to open the tuple")?;
        let mut values = Vec::new();
        if !self.eat(')') {
            loop {
                let Some(t) = types.get(values.len()) else {
                    return Err(self.err(format!("the tuple has only {} fields", types.len())));
                };
                values.push(self.value(t)?);
                if self.eat(')') {
                    break;
                }
                self.expect(',', "between tuple fields")?;
            }
        }
        values.resize(types.len(), None);
        let mut out = Vec::new();
        for v in &values {
            self.write_element(v.as_deref(), &mut out)?;
        }
        Ok(out)
    }

    /// `{field: value, …}` in any order; fields not given are null.
    fn user_type(&mut self, fields: &[(String, AbstractType)]) -> Result<Vec<u8>, ValueParseError> {
        self.expect('{', "to open the user type value")?;
        let mut values: Vec<Option<Vec<u8>>> = vec![None; fields.len()];
        let mut seen = vec![false; fields.len()];
        if !self.eat('}') {
            loop {
                self.skip_blanks();
                let at = self.pos;
                let name = self.field_name()?;
                let index = fields
                    .iter()
                    .position(|(f, _)| *f == name)
                    .or_else(|| {
                        let mut matches = fields
                            .iter()
                            .enumerate()
                            .filter(|(_, (f, _))| f.eq_ignore_ascii_case(&name));
                        match (matches.next(), matches.next()) {
                            (Some((i, _)), None) => Some(i),
                            _ => None,
                        }
                    })
                    .ok_or_else(|| {
                        ValueParseError::new(at, format!("no field '{name}' in the user type"))
                    })?;
                if seen.get(index).copied().unwrap_or(true) {
                    return Err(ValueParseError::new(
                        at,
                        format!("field '{name}' is given twice"),
                    ));
                }
                if let Some(s) = seen.get_mut(index) {
                    *s = true;
                }
                self.expect(':', "after the field name")?;
                let t = fields
                    .get(index)
                    .map(|(_, t)| t)
                    .unwrap_or(&AbstractType::Bytes);
                let v = self.value(t)?;
                if let Some(slot) = values.get_mut(index) {
                    *slot = v;
                }
                if self.eat('}') {
                    break;
                }
                self.expect(',', "between fields")?;
            }
        }
        let mut out = Vec::new();
        for v in &values {
            self.write_element(v.as_deref(), &mut out)?;
        }
        Ok(out)
    }

    /// A field name: a bare word, or `"…"` with `""` for a quote.
    fn field_name(&mut self) -> Result<String, ValueParseError> {
        if self.peek() == Some('"') {
            self.advance(1);
            let mut name = String::new();
            loop {
                let Some(c) = self.peek() else {
                    return Err(self.err("unterminated quoted field name"));
                };
                self.advance(c.len_utf8());
                if c == '"' {
                    if self.peek() == Some('"') {
                        self.advance(1);
                        name.push('"');
                        continue;
                    }
                    return Ok(name);
                }
                name.push(c);
            }
        }
        let rest = self.rest();
        let len = rest
            .find(|c: char| c == ':' || c == ',' || c == '}' || c.is_whitespace())
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(self.err("expected a field name"));
        }
        self.advance(len);
        Ok(rest.get(..len).unwrap_or("").to_owned())
    }

    /// `[a, b, …]` with exactly `dimension` non-null elements, written back to back (fixed-length
    /// element type) or each after an unsigned vint length.
    fn vector(
        &mut self,
        element: &AbstractType,
        dimension: u32,
    ) -> Result<Vec<u8>, ValueParseError> {
        let start = self.pos;
        let items = self.sequence(element, '[', ']')?;
        if items.len() as u64 != u64::from(dimension) {
            return Err(ValueParseError::new(
                start,
                format!(
                    "the vector needs {dimension} elements, found {}",
                    items.len()
                ),
            ));
        }
        let fixed = element.value_length_if_fixed();
        let mut out = Vec::new();
        for item in items {
            let Some(b) = item else {
                return Err(ValueParseError::new(
                    start,
                    "vector elements cannot be null",
                ));
            };
            if fixed.is_none() {
                write_unsigned_vint(b.len() as u64, &mut out);
            }
            out.extend_from_slice(&b);
        }
        Ok(out)
    }

    /// A quoted string (`'…'`, `''` for a quote) or a bare word, parsed as `t`.
    fn scalar_token(&mut self, t: &AbstractType) -> Result<Vec<u8>, ValueParseError> {
        let start = self.pos;
        if self.peek() == Some('\'') {
            self.advance(1);
            let mut content = String::new();
            loop {
                let Some(c) = self.peek() else {
                    return Err(ValueParseError::new(start, "unterminated quoted string"));
                };
                self.advance(c.len_utf8());
                if c == '\'' {
                    if self.peek() == Some('\'') {
                        self.advance(1);
                        content.push('\'');
                        continue;
                    }
                    break;
                }
                content.push(c);
            }
            return scalar(t, &content).map_err(|e| e.shifted(start.saturating_add(1)));
        }
        let word = self.bare_word(t);
        if word.is_empty() {
            return Err(self.err(format!("expected a value of type {}", t.cql())));
        }
        scalar(t, word).map_err(|e| e.shifted(start))
    }

    /// The bare word at the cursor: up to a blank, `,`, a bracket, or a `:` (which a `time`,
    /// `timestamp`, `date` or `inet` word keeps when a letter or digit follows it).
    fn bare_word(&mut self, t: &AbstractType) -> &'a str {
        let colon_inside = matches!(
            t,
            AbstractType::Time | AbstractType::Timestamp | AbstractType::Date | AbstractType::Inet
        );
        let rest = self.rest();
        let mut end = rest.len();
        let mut chars = rest.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let stop = match c {
                ',' | '[' | ']' | '{' | '}' | '(' | ')' => true,
                ':' => {
                    !(colon_inside && chars.peek().is_some_and(|(_, n)| n.is_ascii_alphanumeric()))
                }
                c => c.is_whitespace(),
            };
            if stop {
                end = i;
                break;
            }
        }
        self.advance(end);
        rest.get(..end).unwrap_or("")
    }
}
