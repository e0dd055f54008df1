//! Which LLVM the host process runs, and ending the process the way LLVM
//! does for a fatal error.

use std::ffi::{CStr, CString};

use llvm_sys::core::LLVMContextCreate;

use super::ffi::{mtpc_llvm_version_major, mtpc_report_fatal_error};

/// Ends the process as LLVM does for a fatal error in the user's request:
/// `LLVM ERROR: <message>` on stderr and exit code 1.
pub fn report_fatal_error(message: &str) -> ! {
    let c = CString::new(message.replace('\0', " ")).expect("no NUL left");
    // SAFETY: does not return; LLVM exits the process.
    unsafe { mtpc_report_fatal_error(c.as_ptr()) }
}

/// The LLVM major version the shim was compiled against.
pub fn llvm_version_major() -> u32 {
    // SAFETY: a constant returned by the shim.
    unsafe { mtpc_llvm_version_major() }
}

/// An LLVM in the host process other than the libLLVM this library links.
#[derive(Debug)]
pub struct ForeignLlvm {
    /// The file that holds it: a libLLVM of another version, or the host's
    /// executable if it links LLVM statically.
    pub file: String,
    /// Its major version, when it can be told.
    pub major: Option<u32>,
}

/// Finds which LLVM the host process runs. A host links its LLVM before it
/// loads plugins, so its copy comes first in the process's global symbol
/// lookup; if that copy is not the libLLVM this library was linked with,
/// two LLVMs share the process and mtpc cannot work with the host's
/// objects. Returns `None` when the host's LLVM is this library's, or when
/// the host exports no LLVM symbols to tell by.
pub fn foreign_host_llvm() -> Option<ForeignLlvm> {
    // Every LLVM that can host a plugin defines llvm::LLVMContext::LLVMContext().
    const CONTEXT_CONSTRUCTOR: &CStr = c"_ZN4llvm11LLVMContextC1Ev";
    // SAFETY: dlsym and dladdr only look symbols up; LLVMGetVersion (LLVM
    // 16 and later) writes three unsigned integers.
    unsafe {
        let ours = loaded_object(LLVMContextCreate as *const std::ffi::c_void)?;
        let host_symbol = libc::dlsym(libc::RTLD_DEFAULT, CONTEXT_CONSTRUCTOR.as_ptr());
        let host = loaded_object(host_symbol)?;
        if host.base == ours.base {
            return None;
        }
        let version_fn = libc::dlsym(libc::RTLD_DEFAULT, c"LLVMGetVersion".as_ptr());
        let major = match loaded_object(version_fn) {
            Some(o) if o.base == host.base => {
                let get: unsafe extern "C" fn(*mut u32, *mut u32, *mut u32) = std::mem::transmute(version_fn);
                let (mut major, mut minor, mut patch) = (0, 0, 0);
                get(&mut major, &mut minor, &mut patch);
                Some(major)
            }
            _ => major_from_library_name(&host.file),
        };
        Some(ForeignLlvm { file: host.file, major })
    }
}

struct LoadedObject {
    base: usize,
    file: String,
}

/// The loaded file that holds `address`.
///
/// # Safety
/// `address` must be null or point into a loaded object.
unsafe fn loaded_object(address: *const std::ffi::c_void) -> Option<LoadedObject> {
    if address.is_null() {
        return None;
    }
    // SAFETY: dladdr fills `info` for an address in a loaded object (the
    // caller's promise); the file name it gives lives as long as the object.
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(address, &mut info) == 0 || info.dli_fname.is_null() {
            return None;
        }
        let file = CStr::from_ptr(info.dli_fname).to_string_lossy().into_owned();
        Some(LoadedObject { base: info.dli_fbase as usize, file })
    }
}

/// `libLLVM-15.so.1` and `libLLVM.so.17` → the major version.
fn major_from_library_name(path: &str) -> Option<u32> {
    let name = path.rsplit('/').next()?;
    let rest = name.strip_prefix("libLLVM-").or_else(|| name.strip_prefix("libLLVM.so."))?;
    rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names_give_the_llvm_major_version() {
        assert_eq!(major_from_library_name("/usr/lib/llvm-15/lib/libLLVM-15.so.1"), Some(15));
        assert_eq!(major_from_library_name("/opt/llvm/lib/libLLVM.so.17"), Some(17));
        assert_eq!(major_from_library_name("/usr/lib/llvm-16/lib/libLLVM-16.so"), Some(16));
        assert_eq!(major_from_library_name("/usr/bin/clang-18"), None);
    }

    #[test]
    fn the_test_process_runs_the_llvm_mtpc_links() {
        assert!(foreign_host_llvm().is_none());
    }
}
