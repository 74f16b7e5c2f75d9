//! The protocol's encoding: every message as compact bytes (a serde format of our own, like
//! postcard's), with the JavaScript handles it carries (`File`s, the worker's
//! `WebAssembly.Module`) beside the bytes, in one array: `[Uint8Array, handle 0, handle 1, …]`.
//!
//! A format that names no field keeps each type's reader small: the derived readers only read
//! sequences, where serde-wasm-bindgen's walked JavaScript objects property by property (a
//! quarter of the page's WebAssembly was those readers; docs/performance.md, "Page bundle").
//!
//! The bytes: unsigned integers as LEB128 varints, signed ones zigzag-encoded first, `u8`/`i8`
//! and `bool` as one byte, floats as their little-endian bits, strings and sequences as their
//! length then their items, `Option` as a 0/1 tag, an enum as its variant's index then its
//! fields, a struct as its fields in order. A field skipped by `skip_serializing_if` is written
//! as one 0 byte, which reads back as `None`, an empty sequence or string, `false` or 0: the
//! engine's types skip only such fields (`Option::is_none`, `Vec::is_empty`, `Not::not`).
//! Every `u64`/`i64` crosses exactly (the rule the JavaScript values needed BigInts for).

use std::cell::RefCell;
use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde::ser::{self, Serialize};
use wasm_bindgen::{JsCast, JsValue};

/// Why a message could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

type Result<T> = std::result::Result<T, Error>;

thread_local! {
    /// The handles of the message being encoded (written by [`handle::serialize`]).
    static HANDLES_OUT: RefCell<Vec<JsValue>> = const { RefCell::new(Vec::new()) };
    /// The handles of the message being decoded (taken by [`handle::deserialize`]).
    static HANDLES_IN: RefCell<Vec<Option<JsValue>>> = const { RefCell::new(Vec::new()) };
}

/// `value` as bytes and the handles it holds.
pub fn to_bytes<T: Serialize + ?Sized>(value: &T) -> Result<(Vec<u8>, Vec<JsValue>)> {
    let outer = HANDLES_OUT.with(|h| std::mem::take(&mut *h.borrow_mut()));
    let mut out = Serializer { out: Vec::new() };
    let done = value.serialize(&mut out);
    let handles = HANDLES_OUT.with(|h| std::mem::replace(&mut *h.borrow_mut(), outer));
    done.map(|()| (out.out, handles))
}

/// A `T` read from `bytes` (with the handles it refers to); bytes left over are an error.
pub fn from_bytes<T: DeserializeOwned>(bytes: &[u8], handles: Vec<JsValue>) -> Result<T> {
    let (value, at) = read(bytes, handles)?;
    if at != bytes.len() {
        return Err(Error(format!(
            "{} bytes left over at byte {at}",
            bytes.len() - at
        )));
    }
    Ok(value)
}

/// A `T` read from the start of `bytes` (no handles), whatever follows.
pub fn from_bytes_prefix<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    read(bytes, Vec::new()).map(|(value, _)| value)
}

/// A `T` read from `bytes`, and where it ended.
fn read<T: DeserializeOwned>(bytes: &[u8], handles: Vec<JsValue>) -> Result<(T, usize)> {
    let outer = HANDLES_IN.with(|h| {
        std::mem::replace(
            &mut *h.borrow_mut(),
            handles.into_iter().map(Some).collect(),
        )
    });
    let mut input = Deserializer {
        input: bytes,
        at: 0,
    };
    let value = T::deserialize(&mut input);
    HANDLES_IN.with(|h| *h.borrow_mut() = outer);
    Ok((value?, input.at))
}

/// `value` as one JavaScript value: `[Uint8Array, handle 0, …]`.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue> {
    let (bytes, handles) = to_bytes(value)?;
    let array = js_sys::Array::new_with_length(1 + handles.len() as u32);
    array.set(0, js_sys::Uint8Array::from(bytes.as_slice()).into());
    for (i, h) in handles.into_iter().enumerate() {
        array.set(1 + i as u32, h);
    }
    Ok(array.into())
}

/// The bytes and handles of a value [`to_js`] made.
pub fn parts_of(value: &JsValue) -> Result<(Vec<u8>, Vec<JsValue>)> {
    let array = value
        .dyn_ref::<js_sys::Array>()
        .ok_or_else(|| Error("not an array of bytes and handles".to_owned()))?;
    let bytes = array
        .get(0)
        .dyn_into::<js_sys::Uint8Array>()
        .map_err(|_| Error("no bytes".to_owned()))?
        .to_vec();
    let handles = (1..array.length()).map(|i| array.get(i)).collect();
    Ok((bytes, handles))
}

/// A `T` read back from a value [`to_js`] made.
pub fn from_js<T: DeserializeOwned>(value: &JsValue) -> Result<T> {
    let (bytes, handles) = parts_of(value)?;
    from_bytes(&bytes, handles)
}

/// `#[serde(with = "wire::handle")]`: a JavaScript value (`File`, `WebAssembly.Module`, a nested
/// message) carried beside the bytes; the bytes hold its index.
pub mod handle {
    use super::{HANDLES_IN, HANDLES_OUT};
    use serde::{Deserialize, Deserializer, Serializer};
    use wasm_bindgen::{JsCast, JsValue};

    pub fn serialize<T: AsRef<JsValue>, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        let index = HANDLES_OUT.with(|h| {
            let mut h = h.borrow_mut();
            h.push(value.as_ref().clone());
            h.len() - 1
        });
        s.serialize_u32(index as u32)
    }

    pub fn deserialize<'de, T: JsCast, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        let index = u32::deserialize(d)? as usize;
        HANDLES_IN
            .with(|h| h.borrow_mut().get_mut(index).and_then(Option::take))
            .ok_or_else(|| serde::de::Error::custom(format!("no handle {index}")))?
            .dyn_into::<T>()
            .map_err(|_| serde::de::Error::custom(format!("handle {index} is of another type")))
    }
}

/// The encoder: bytes appended to `out`.
struct Serializer {
    out: Vec<u8>,
}

impl Serializer {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.out.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.out.push(v as u8);
    }

    fn signed(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    fn len(&mut self, len: Option<usize>) -> Result<()> {
        let len = len.ok_or_else(|| Error("a sequence of unknown length".to_owned()))?;
        self.varint(len as u64);
        Ok(())
    }
}

impl ser::Serializer for &mut Serializer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.out.push(u8::from(v));
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.out.push(v as u8);
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.signed(v.into());
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.signed(v.into());
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.signed(v);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        self.out.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.out.push(v);
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.varint(v.into());
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.varint(v.into());
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.varint(v);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        self.out.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.out.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.out.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.varint(u32::from(v).into());
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        self.serialize_bytes(v.as_bytes())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.varint(v.len() as u64);
        self.out.extend_from_slice(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<()> {
        self.out.push(0);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        self.out.push(1);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, index: u32, _: &'static str) -> Result<()> {
        self.varint(index.into());
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        self.varint(index.into());
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self> {
        self.len(len)?;
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self> {
        self.varint(index.into());
        Ok(self)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self> {
        self.len(len)?;
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self> {
        self.varint(index.into());
        Ok(self)
    }
}

impl ser::SerializeSeq for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTuple for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTupleVariant for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeMap for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeStruct for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    /// A field left out by `skip_serializing_if`: one 0 byte (`None`, empty, `false`, 0).
    fn skip_field(&mut self, _: &'static str) -> Result<()> {
        self.out.push(0);
        Ok(())
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeStructVariant for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn skip_field(&mut self, _: &'static str) -> Result<()> {
        self.out.push(0);
        Ok(())
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

/// The decoder: reads `input` from byte `at`.
struct Deserializer<'b> {
    input: &'b [u8],
    at: usize,
}

impl<'b> Deserializer<'b> {
    fn eof(&self) -> Error {
        Error(format!("the message ends early (byte {})", self.at))
    }

    fn byte(&mut self) -> Result<u8> {
        let b = *self.input.get(self.at).ok_or_else(|| self.eof())?;
        self.at += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'b [u8]> {
        let end = self.at.checked_add(n).ok_or_else(|| self.eof())?;
        let s = self.input.get(self.at..end).ok_or_else(|| self.eof())?;
        self.at = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(Error(format!("a varint too long at byte {}", self.at)))
    }

    fn signed(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn narrow<T: TryFrom<u64>>(&mut self) -> Result<T> {
        let at = self.at;
        let v = self.varint()?;
        T::try_from(v).map_err(|_| Error(format!("{v} out of range at byte {at}")))
    }

    fn narrow_signed<T: TryFrom<i64>>(&mut self) -> Result<T> {
        let at = self.at;
        let v = self.signed()?;
        T::try_from(v).map_err(|_| Error(format!("{v} out of range at byte {at}")))
    }

    fn len(&mut self) -> Result<usize> {
        let len: usize = self.narrow()?;
        // Every item takes at least a byte (a unit takes none, and none is sent in a list).
        if len > self.input.len() - self.at {
            return Err(Error(format!("a length of {len} at byte {}", self.at)));
        }
        Ok(len)
    }

    fn str(&mut self) -> Result<&'b str> {
        let len = self.len()?;
        let at = self.at;
        std::str::from_utf8(self.take(len)?)
            .map_err(|_| Error(format!("a string that is not UTF-8 at byte {at}")))
    }
}

/// `count` items read in turn (a sequence, a tuple, a struct's fields, a map's entries).
struct Items<'a, 'b> {
    de: &'a mut Deserializer<'b>,
    count: usize,
}

impl<'de, 'a, 'b> SeqAccess<'de> for Items<'a, 'b> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.count == 0 {
            return Ok(None);
        }
        self.count -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.count)
    }
}

impl<'de, 'a, 'b> MapAccess<'de> for Items<'a, 'b> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.count == 0 {
            return Ok(None);
        }
        self.count -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.de)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.count)
    }
}

impl<'de, 'a, 'b> EnumAccess<'de> for &'a mut Deserializer<'b> {
    type Error = Error;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let index: u32 = self.narrow()?;
        let value = seed.deserialize(index.into_deserializer())?;
        Ok((value, self))
    }
}

impl<'de, 'a, 'b> VariantAccess<'de> for &'a mut Deserializer<'b> {
    type Error = Error;
    fn unit_variant(self) -> Result<()> {
        Ok(())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(Items {
            de: self,
            count: len,
        })
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_seq(Items {
            de: self,
            count: fields.len(),
        })
    }
}

impl<'de, 'a, 'b> de::Deserializer<'de> for &'a mut Deserializer<'b> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        Err(Error(format!(
            "a value of no fixed type at byte {} (the wire format names no types)",
            self.at
        )))
    }
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.at;
        match self.byte()? {
            0 => visitor.visit_bool(false),
            1 => visitor.visit_bool(true),
            b => Err(Error(format!("a bool of {b} at byte {at}"))),
        }
    }
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_i8(self.byte()? as i8)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_i16(self.narrow_signed()?)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_i32(self.narrow_signed()?)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_i64(self.signed()?)
    }
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_i128(i128::from_le_bytes(self.array()?))
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_u8(self.byte()?)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_u16(self.narrow()?)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_u32(self.narrow()?)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_u64(self.varint()?)
    }
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_u128(u128::from_le_bytes(self.array()?))
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_f32(f32::from_le_bytes(self.array()?))
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_f64(f64::from_le_bytes(self.array()?))
    }
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.at;
        let v: u32 = self.narrow()?;
        let c = char::from_u32(v).ok_or_else(|| Error(format!("a char of {v} at byte {at}")))?;
        visitor.visit_char(c)
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_str(self.str()?)
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let len = self.len()?;
        visitor.visit_bytes(self.take(len)?)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.at;
        match self.byte()? {
            0 => visitor.visit_none(),
            1 => visitor.visit_some(self),
            b => Err(Error(format!("an option tag of {b} at byte {at}"))),
        }
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_unit()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let count = self.len()?;
        visitor.visit_seq(Items { de: self, count })
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(Items {
            de: self,
            count: len,
        })
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let count = self.len()?;
        visitor.visit_map(Items { de: self, count })
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(fields.len(), visitor)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(self)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_u32(self.narrow()?)
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }
    fn is_human_readable(&self) -> bool {
        true
    }
}
