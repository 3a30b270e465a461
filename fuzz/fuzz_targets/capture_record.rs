#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| shadowcl_fuzz_targets::capture_record(data));
