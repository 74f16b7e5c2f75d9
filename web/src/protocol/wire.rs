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
    let bytes = bincode::serialize(value);
    let handles = HANDLES.with(|h| std::mem::replace(&mut *h.borrow_mut(), outer));
    let bytes = bytes.map_err(|e| e.to_string())?;
    let array = js_sys::Array::new();
    array.push(&js_sys::Uint8Array::from(bytes.as_slice()));
    for handle in handles {
        array.push(&handle);
    }
    Ok(array.into())
}

/// The job of a reply message: every variant but `Ready` starts with it (after the variant's
/// `u32` index).
pub fn job(message: &JsValue) -> Option<u64> {
    let bytes = message
        .dyn_ref::<js_sys::Array>()?
        .get(0)
        .dyn_into::<js_sys::Uint8Array>()
        .ok()?
        .to_vec();
    Some(u64::from_le_bytes(bytes.get(4..12)?.try_into().ok()?))
}

/// A message read back.
pub fn from_message<T: DeserializeOwned>(message: &JsValue) -> Result<T, String> {
    let array = message
        .dyn_ref::<js_sys::Array>()
        .ok_or("the message is not an array")?;
    let bytes = array
        .get(0)
        .dyn_into::<js_sys::Uint8Array>()
        .map_err(|_| "the message has no bytes")?
        .to_vec();
    let handles: Vec<JsValue> = array.iter().skip(1).collect();
    let outer = HANDLES.with(|h| std::mem::replace(&mut *h.borrow_mut(), handles));
    let value = bincode::deserialize(&bytes);
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
