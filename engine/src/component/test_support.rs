//! Scaffolding the component tests share: versions by name, and Cassandra's length-prefixed
//! encodings through the writer's [`Out`] encoders (one encoder for the writer and the tests).

pub(crate) use crate::write::bytes::Out;

use crate::version::{Format, Version};

/// A big-format version by its letters (`"nb"`); panics on a name the parser refuses.
pub(crate) fn big(letters: &str) -> Version {
    Version::parse(Format::Big, letters).unwrap()
}
