//! libmtpc.so: the pass plugin's entry point. Registration only; the
//! passes live in the `mtpc-passes` crate.
//!
//!   opt-16 -load-pass-plugin=target/release/libmtpc.so \
//!          -passes='mtpc-split<partitions=8;out=part>' in.bc -o out.bc
//!   clang-16 -O2 -fpass-plugin=target/release/libmtpc.so -c big.c
//!
//! (For LLVM 22: `cargo build-llvm22`, target/llvm-22/release/libmtpc.so,
//! with clang-22 and opt-22.) The entry point is written out by hand, for
//! every major: registration needs the raw `llvm::PassBuilder*`, and the
//! entry point's struct grew in LLVM 22 (`ir::llvm_version`).

use mtpc_passes::ir::llvm_version::{PassPluginLibraryInfo, PLUGIN_API_VERSION, PLUGIN_VERSION};

/// The plugin API version no host accepts: how a plugin declines to load.
const REFUSED_API_VERSION: u32 = 0;

#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    // In a host of another LLVM, decline to load (the host then fails with
    // its own "wrong API version" error) rather than crash in registration.
    let host_llvm = std::panic::catch_unwind(mtpc_passes::host::check_host_llvm)
        .unwrap_or_else(|_| Err("internal error while checking the host's LLVM".into()));
    let api_version = match host_llvm {
        Ok(()) => PLUGIN_API_VERSION,
        Err(message) => {
            eprintln!("mtpc: error: {message}");
            REFUSED_API_VERSION
        }
    };
    PassPluginLibraryInfo {
        api_version,
        plugin_name: c"mtpc".as_ptr(),
        plugin_version: PLUGIN_VERSION.as_ptr().cast(),
        register_pass_builder_callbacks: Some(plugin_registrar),
        #[cfg(feature = "llvm22")]
        pre_codegen: None,
    }
}

unsafe extern "C" fn plugin_registrar(pass_builder: *mut std::ffi::c_void) {
    // No panic may unwind into LLVM: without mtpc, the host compiles as usual.
    let registered = std::panic::catch_unwind(|| {
        // SAFETY: LLVM calls the registrar with its PassBuilder.
        unsafe { mtpc_passes::ir::host_pipeline::register(pass_builder) }
    });
    if registered.is_err() {
        eprintln!("mtpc: error: internal error while registering; mtpc is off for this compilation");
    }
}
