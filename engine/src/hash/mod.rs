//! Hash functions Cassandra writes into its files.
//!
//! [`murmur3`]: `MurmurHash.hash3_x64_128` with Cassandra's sign-extension quirk, used by the
//! Murmur3Partitioner (tokens), by every bloom filter (Filter.db, whatever the partitioner) and by
//! the BTI partition index (hash byte).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

pub mod murmur3;

pub use murmur3::{murmur3_token, murmur3_x64_128, murmur3_x64_128_reference, MINIMUM_TOKEN};
