//! How the pool notices that a worker is gone (closed, crashed or killed: a closed worker fires
//! no event): each worker holds a Web Lock (`navigator.locks`) of its own name for its whole life
//! ([`hold_for_life`], named in its `Ready` reply), and the pool asks for the same lock
//! ([`when_released`]): the browser grants it when the worker's context ends.
//!
//! Where Web Locks are missing (an insecure context), neither side does anything: the pool then
//! hears only the worker's `error` events.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// `navigator.locks` of this context (window or worker), if there is one.
fn locks() -> Option<JsValue> {
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
    let locks = Reflect::get(&navigator, &"locks".into()).ok()?;
    (!locks.is_undefined() && !locks.is_null()).then_some(locks)
}

/// `locks.request(name, callback)`.
fn request(locks: &JsValue, name: &str, callback: &JsValue) -> Option<JsValue> {
    let request: Function = Reflect::get(locks, &"request".into())
        .ok()?
        .dyn_into()
        .ok()?;
    request.call2(locks, &name.into(), callback).ok()
}

/// Takes a lock of a fresh name and never lets it go (the browser releases it when this worker
/// ends); resolves to its name once it is held.
pub async fn hold_for_life() -> Option<String> {
    let locks = locks()?;
    let name = format!(
        "sstable-worker-{:x}-{:x}",
        (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64,
        js_sys::Date::now() as u64
    );
    let mut resolve = None;
    let granted = Promise::new(&mut |ok, _| resolve = Some(ok));
    let resolve = resolve?;
    let hold = Closure::once_into_js(move |_lock: JsValue| -> JsValue {
        let _ = resolve.call0(&JsValue::NULL);
        // Pending forever: the lock is held until this context ends.
        Promise::new(&mut |_, _| {}).into()
    });
    request(&locks, &name, &hold)?;
    wasm_bindgen_futures::JsFuture::from(granted).await.ok()?;
    Some(name)
}

/// Calls `released` once the lock `name` is free (its holder ended), and lets it go at once.
/// Returns whether the request was made.
pub fn when_released(name: &str, released: impl FnOnce() + 'static) -> bool {
    let Some(locks) = locks() else {
        return false;
    };
    let callback = Closure::once_into_js(move |_lock: JsValue| released());
    request(&locks, name, &callback).is_some()
}
