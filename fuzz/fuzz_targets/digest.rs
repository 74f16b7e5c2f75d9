#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sstable_engine_fuzz::digest_target(data));
