//! How every message crosses between the page and its workers: one JSON text (serde_json), and
//! beside it the JavaScript handles it carries (`File`s, the compiled `WebAssembly.Module`), as
//! one array `[text, handle0, handle1, …]` posted by structured clone. A handle field
//! (`#[serde(with = "wire::handle")]`) is its index in that array. One format both ways, so each
//! message type's `Deserialize` is compiled for serde_json only.

use std::cell::RefCell;

use serde::{de::DeserializeOwned, Deserialize, Deserializer, Serialize, Serializer};
use wasm_bindgen::{JsCast, JsValue};

thread_local! {
    /// The handles of the message being written or read.
    static HANDLES: RefCell<Vec<JsValue>> = const { RefCell::new(Vec::new()) };
}

/// `value` as a message: its JSON text and its handles.
pub fn to_message<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, String> {
    let outer = HANDLES.with(|h| std::mem::take(&mut *h.borrow_mut()));
    let text = serde_json::to_string(value);
    let handles = HANDLES.with(|h| std::mem::replace(&mut *h.borrow_mut(), outer));
    let text = text.map_err(|e| e.to_string())?;
    let array = js_sys::Array::new();
    array.push(&JsValue::from_str(&text));
    for handle in handles {
        array.push(&handle);
    }
    Ok(array.into())
}

/// The JSON text of a message, when it is one.
pub fn text(message: &JsValue) -> Option<String> {
    message.dyn_ref::<js_sys::Array>()?.get(0).as_string()
}

/// A message read back.
pub fn from_message<T: DeserializeOwned>(message: &JsValue) -> Result<T, String> {
    let array = message
        .dyn_ref::<js_sys::Array>()
        .ok_or("the message is not an array")?;
    let text = array.get(0).as_string().ok_or("the message has no text")?;
    let handles: Vec<JsValue> = array.iter().skip(1).collect();
    let outer = HANDLES.with(|h| std::mem::replace(&mut *h.borrow_mut(), handles));
    let value = serde_json::from_str(&text);
    HANDLES.with(|h| *h.borrow_mut() = outer);
    value.map_err(|e| e.to_string())
}

/// A JavaScript handle as its index among the message's handles.
pub mod handle {
    use super::*;

    pub fn serialize<T: AsRef<JsValue>, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        let index = HANDLES.with(|h| {
            let mut h = h.borrow_mut();
            h.push(value.as_ref().clone());
            h.len() - 1
        });
        s.serialize_u64(index as u64)
    }

    pub fn deserialize<'de, T: JsCast, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        let index = usize::deserialize(d)?;
        HANDLES
            .with(|h| h.borrow().get(index).cloned())
            .map(JsCast::unchecked_into)
            .ok_or_else(|| serde::de::Error::custom("a handle the message does not carry"))
    }
}

/// A float that may be NaN or infinite (JSON has neither): those as the strings `"NaN"`,
/// `"inf"`, `"-inf"`, finite ones as numbers.
pub mod float {
    use super::*;

    pub fn serialize<S: Serializer>(value: &f64, s: S) -> Result<S::Ok, S::Error> {
        if value.is_nan() {
            s.serialize_str("NaN")
        } else if value.is_infinite() {
            s.serialize_str(if *value > 0.0 { "inf" } else { "-inf" })
        } else {
            s.serialize_f64(*value)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        d.deserialize_any(Float)
    }

    /// Reads a number or one of the three strings.
    pub(super) struct Float;

    impl serde::de::Visitor<'_> for Float {
        type Value = f64;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number, \"NaN\", \"inf\" or \"-inf\"")
        }

        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<f64, E> {
            Ok(v)
        }

        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }

        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }

        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<f64, E> {
            match v {
                "NaN" => Ok(f64::NAN),
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
            }
        }
    }
}

/// [`float`] for an `Option<f64>`.
pub mod opt_float {
    use super::*;

    pub fn serialize<S: Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => float::serialize(v, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Option::<Finite>::deserialize(d).map(|v| v.map(|Finite(v)| v))
    }

    /// A [`float`] as a type, for `Option`.
    struct Finite(f64);

    impl<'de> Deserialize<'de> for Finite {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Finite, D::Error> {
            float::deserialize(d).map(Finite)
        }
    }
}
