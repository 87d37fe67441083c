//! Fuzz target: any bytes as a script of `World` API calls (`tests/support/world_ops.rs`), with
//! the invariants checked after every call.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/world_ops.rs"]
mod world_ops;

fuzz_target!(|data: &[u8]| {
    world_ops::run_script(data);
});
