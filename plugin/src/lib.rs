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

use std::ffi::c_void;

use mtpc_passes::ir::llvm_version::{write_plugin_info, PassPluginLibraryInfo, PLUGIN_API_VERSION, PLUGIN_VERSION};

// The entry point below relies on how x86-64 System V returns a struct.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
compile_error!("mtpc is built for x86-64 Linux hosts only");

/// The plugin API version no host accepts: how a plugin declines to load.
const REFUSED_API_VERSION: u32 = 0;

/// The host's `PassPluginLibraryInfo llvmGetPassPluginInfo()`. The struct
/// (32 bytes; 40 in LLVM 22) is returned, as x86-64 System V returns any
/// struct over 16 bytes, through a pointer the caller passes (in rdi) and
/// gets back (in rax): taking that pointer, the plugin writes no more than
/// the host's struct holds when a host of an older major loads a newer
/// build only to be refused.
///
/// # Safety
/// Called by the host, as above.
#[no_mangle]
pub unsafe extern "C" fn llvmGetPassPluginInfo(out: *mut PassPluginLibraryInfo) -> *mut PassPluginLibraryInfo {
    // In a host of another LLVM, decline to load (the host then fails with
    // its own "wrong API version" error) rather than crash in registration.
    let host_llvm = std::panic::catch_unwind(mtpc_passes::host::check_host_llvm)
        .unwrap_or_else(|_| Err("internal error while checking the host's LLVM".into()));
    let accepted = match host_llvm {
        Ok(()) => true,
        Err(message) => {
            eprintln!("mtpc: error: {message}");
            false
        }
    };
    let info = PassPluginLibraryInfo {
        api_version: if accepted { PLUGIN_API_VERSION } else { REFUSED_API_VERSION },
        plugin_name: c"mtpc".as_ptr(),
        plugin_version: PLUGIN_VERSION.as_ptr().cast(),
        register_pass_builder_callbacks: Some(plugin_registrar),
    };
    // SAFETY: the host's struct (see above): its major's if it runs ours.
    unsafe { write_plugin_info(out, info, accepted, pre_codegen) };
    out
}

/// clang 22's pre-codegen callback: writes the object mtpc assembled for the
/// module, if it did (`mtpc_passes::object_writer`); false leaves the code
/// generation to the host.
unsafe extern "C" fn pre_codegen(module: *mut c_void, target_machine: *mut c_void, file_type: i32, out: *mut c_void) -> bool {
    // SAFETY: the host calls the callback with its module, target machine,
    // output kind and stream; no panic may unwind into it.
    std::panic::catch_unwind(|| {
        let outcome = unsafe { mtpc_passes::ir::host_pipeline::write_offered_object(module, target_machine, file_type, out) };
        mtpc_passes::host::report_offer(outcome)
    })
    .unwrap_or(false)
}

unsafe extern "C" fn plugin_registrar(pass_builder: *mut c_void) {
    // No panic may unwind into LLVM: without mtpc, the host compiles as usual.
    let registered = std::panic::catch_unwind(|| {
        // SAFETY: LLVM calls the registrar with its PassBuilder.
        unsafe { mtpc_passes::ir::host_pipeline::register(pass_builder) }
    });
    if registered.is_err() {
        eprintln!("mtpc: error: internal error while registering; mtpc is off for this compilation");
    }
}
