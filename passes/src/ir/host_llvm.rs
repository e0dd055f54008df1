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
    // SAFETY: dlsym only looks symbols up; LLVMGetVersion (LLVM
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
    /// Its first mapped address: what tells two objects apart.
    base: usize,
    file: String,
}

/// The loaded file that holds `address`. Found from the program headers
/// (`dl_iterate_phdr`), not with `dladdr`, which also looks for the nearest
/// symbol: a walk over libLLVM's symbol table that cost every compile
/// about 3 million instructions (8 % of a small file's compile).
///
/// # Safety
/// `address` must be null or point into a loaded object.
unsafe fn loaded_object(address: *const std::ffi::c_void) -> Option<LoadedObject> {
    if address.is_null() {
        return None;
    }
    struct Search {
        address: usize,
        /// The object's first mapped address (unique to it, unlike its
        /// load bias, which is 0 for every object loaded where it was
        /// linked) and its name (empty for the executable).
        found: Option<(usize, String)>,
    }
    unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: libc::size_t, data: *mut libc::c_void) -> libc::c_int {
        // SAFETY: dl_iterate_phdr passes a valid `info` for each loaded
        // object, and `data` is the `Search` given below; the headers and
        // the name are read before this returns.
        unsafe {
            let (info, search) = (&*info, &mut *(data as *mut Search));
            let headers = std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum));
            let bias = info.dlpi_addr as usize;
            let mapped = |h: &libc::Elf64_Phdr| {
                let start = bias.wrapping_add(h.p_vaddr as usize);
                start..start.wrapping_add(h.p_memsz as usize)
            };
            let loads = || headers.iter().filter(|h| h.p_type == libc::PT_LOAD);
            if !loads().any(|h| mapped(h).contains(&search.address)) {
                return 0;
            }
            let first = loads().map(|h| mapped(h).start).min().unwrap_or(bias);
            let name = if info.dlpi_name.is_null() { String::new() } else { CStr::from_ptr(info.dlpi_name).to_string_lossy().into_owned() };
            search.found = Some((first, name));
            1
        }
    }
    let mut search = Search { address: address as usize, found: None };
    // SAFETY: `visit` only reads what dl_iterate_phdr gives it and writes
    // `search`, which outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(visit), &mut search as *mut Search as *mut libc::c_void) };
    let (base, name) = search.found?;
    // The executable has no name in its headers.
    let file = match name.is_empty() {
        true => std::env::current_exe().map_or_else(|_| "the host's executable".into(), |p| p.display().to_string()),
        false => name,
    };
    Some(LoadedObject { base, file })
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
