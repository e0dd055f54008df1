//! The LLVM major this build of mtpc is for, and what differs between the
//! majors on the Rust side: which LLVM-C bindings are linked (`llvm-sys`
//! 160, 191 or 221, named `llvm_sys` in the crate's root) and the layout of
//! the plugin's entry point. One Cargo feature picks the major: `llvm16`
//! (the default), `llvm19` or `llvm22`. The shim's differences between
//! majors are in `shim/llvm_compat.h`.

use std::ffi::c_void;
use std::os::raw::c_char;

/// The LLVM major this library is built for.
#[cfg(feature = "llvm16")]
pub const MAJOR: u32 = 16;
#[cfg(feature = "llvm19")]
pub const MAJOR: u32 = 19;
#[cfg(feature = "llvm22")]
pub const MAJOR: u32 = 22;

/// The plugin's version as its entry point gives it (NUL-terminated). It
/// names the major, which is how CMake's package tells what a libmtpc.so
/// was built for (`cmake/mtpcPlugin.cmake` reads it from the file).
#[cfg(feature = "llvm16")]
pub const PLUGIN_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " mtpc-for-llvm-16\0");
#[cfg(feature = "llvm19")]
pub const PLUGIN_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " mtpc-for-llvm-19\0");
#[cfg(feature = "llvm22")]
pub const PLUGIN_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " mtpc-for-llvm-22\0");

/// `LLVM_PLUGIN_API_VERSION` of that major: 2 from LLVM 22 (which added the
/// pre-codegen callback to the entry point's struct), 1 before.
pub const PLUGIN_API_VERSION: u32 = if MAJOR >= 22 { 2 } else { 1 };

/// `llvm::PassPluginLibraryInfo` of LLVM 16 and 19, and how LLVM 22's
/// begins: what `llvmGetPassPluginInfo` returns.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    pub api_version: u32,
    pub plugin_name: *const c_char,
    pub plugin_version: *const c_char,
    /// Called with the host's `llvm::PassBuilder&`.
    pub register_pass_builder_callbacks: Option<unsafe extern "C" fn(*mut c_void)>,
}

/// LLVM 22's `bool (*PreCodeGenCallback)(Module &, TargetMachine &,
/// CodeGenFileType, raw_pwrite_stream &)`, which clang calls just before
/// its code generation: true if the plugin wrote the output (then the host
/// does not generate code).
pub type PreCodeGenCallback = unsafe extern "C" fn(module: *mut c_void, target_machine: *mut c_void, file_type: i32, out: *mut c_void) -> bool;

/// LLVM 22's `llvm::PassPluginLibraryInfo`: the above, and the pre-codegen
/// callback.
#[cfg(feature = "llvm22")]
#[repr(C)]
struct PassPluginLibraryInfoV2 {
    common: PassPluginLibraryInfo,
    pre_codegen: Option<PreCodeGenCallback>,
}

/// Writes the plugin's info into `out`, the host's struct: all of this
/// major's if `accepted` (the host runs this major; from LLVM 22 with
/// `pre_codegen`), else only the fields every major has (a host of an older
/// major, whose struct is smaller, reads the API version and refuses the
/// plugin).
///
/// # Safety
/// `out` must point to the host's struct, writable, of this major's size if
/// `accepted` and of at least [`PassPluginLibraryInfo`]'s otherwise.
pub unsafe fn write_plugin_info(out: *mut PassPluginLibraryInfo, info: PassPluginLibraryInfo, accepted: bool, pre_codegen: PreCodeGenCallback) {
    // SAFETY: the caller's promise.
    unsafe { out.write(info) };
    #[cfg(feature = "llvm22")]
    if accepted {
        // SAFETY: as above: the host's struct is LLVM 22's.
        unsafe { std::ptr::addr_of_mut!((*out.cast::<PassPluginLibraryInfoV2>()).pre_codegen).write(Some(pre_codegen)) };
    }
    let _ = (accepted, pre_codegen);
}

/// The length of an array type: LLVM-C's `LLVMGetArrayLength`, which
/// LLVM 17 replaced with `LLVMGetArrayLength2` (64 bits).
///
/// # Safety
/// `ty` must be a live array type.
pub unsafe fn array_length(ty: llvm_sys::prelude::LLVMTypeRef) -> u64 {
    // SAFETY: the caller's.
    #[cfg(feature = "llvm16")]
    return u64::from(unsafe { llvm_sys::core::LLVMGetArrayLength(ty) });
    // SAFETY: the caller's.
    #[cfg(not(feature = "llvm16"))]
    return unsafe { llvm_sys::core::LLVMGetArrayLength2(ty) };
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shim_is_built_for_the_same_major() {
        assert_eq!(super::super::llvm_version_major(), super::MAJOR);
    }

    #[test]
    fn the_version_names_the_major() {
        assert!(super::PLUGIN_VERSION.ends_with(&format!(" mtpc-for-llvm-{}\0", super::MAJOR)));
    }
}
