#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sstable_engine_fuzz::bti_rows_target(data));
