//! Modules: borrowed from a host or owned by a context of mtpc's own;
//! verifying, serializing and loading them; the edits that may delete
//! globals ([`GlobalTable`]).

use std::ffi::{c_void, CString};
use std::os::raw::c_char;
use std::marker::PhantomData;
use std::path::Path;

use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMCreateTargetData, LLVMDisposeTargetData, LLVMTargetDataRef};
use llvm_sys::{LLVMDiagnosticSeverity, LLVMLinkage};

use super::ffi::*;
use super::values::{Global, GlobalKind, Value};

/// The module flag in which the host's last passes (LLVM's `CGProfilePass`,
/// where functions carry profile counts) record the call graph profile that
/// the code generator writes (`.llvm.call-graph-profile`).
pub const CALL_GRAPH_PROFILE_FLAG: &str = "CG Profile";

/// A module borrowed from its owner (a host's pass manager or an [`OwnedModule`]).
pub struct ModuleRef<'m> {
    pub(super) raw: LLVMModuleRef,
    _owner: PhantomData<&'m mut ()>,
}

/// A private copy of a module's data layout. Sizes are asked of it, not of
/// the module's own, whose cache of struct layouts would grow with every
/// type asked about.
pub struct DataLayout {
    pub(super) raw: LLVMTargetDataRef,
}

impl Drop for DataLayout {
    fn drop(&mut self) {
        // SAFETY: created by LLVMCreateTargetData and owned by this value.
        unsafe { LLVMDisposeTargetData(self.raw) }
    }
}

impl<'m> ModuleRef<'m> {
    /// Runs `f` on a module owned elsewhere (a host's pass manager): the
    /// handle cannot leave `f`.
    ///
    /// # Safety
    /// `raw` must be a valid module that nothing else uses while `f` runs.
    pub(super) unsafe fn with_raw<R>(raw: LLVMModuleRef, f: impl for<'a> FnOnce(&mut ModuleRef<'a>) -> R) -> R {
        f(&mut ModuleRef { raw, _owner: PhantomData })
    }

    fn context(&self) -> LLVMContextRef {
        // SAFETY: a live module has a context.
        unsafe { LLVMGetModuleContext(self.raw) }
    }

    /// The id of a metadata kind (e.g. "callees", "prof", "associated").
    pub fn md_kind(&self, name: &str) -> u32 {
        // SAFETY: LLVM copies the name.
        unsafe { LLVMGetMDKindIDInContext(self.context(), name.as_ptr().cast(), name.len() as u32) }
    }

    fn collect(&self, first: unsafe extern "C" fn(LLVMModuleRef) -> LLVMValueRef,
               next: unsafe extern "C" fn(LLVMValueRef) -> LLVMValueRef) -> Vec<Global<'_>> {
        let mut out = Vec::new();
        // SAFETY: standard LLVM-C iteration over a live module's list.
        unsafe {
            let mut v = first(self.raw);
            while !v.is_null() {
                out.push(Global::new(v));
                v = next(v);
            }
        }
        out
    }

    /// Every global value, by kind, each list in module order.
    pub fn globals(&self, kind: GlobalKind) -> Vec<Global<'_>> {
        match kind {
            GlobalKind::Function => self.collect(LLVMGetFirstFunction, LLVMGetNextFunction),
            GlobalKind::Variable => self.collect(LLVMGetFirstGlobal, LLVMGetNextGlobal),
            GlobalKind::Alias => self.collect(LLVMGetFirstGlobalAlias, LLVMGetNextGlobalAlias),
            GlobalKind::IFunc => self.collect(LLVMGetFirstGlobalIFunc, LLVMGetNextGlobalIFunc),
        }
    }

    /// For each of `globals` (this module's), whether its name is a
    /// library function's for the module's target, as LLVM's
    /// TargetLibraryInfo knows them: one the code generator or the
    /// optimizer may call by name (see the shim's
    /// `mtpc_library_function_names`).
    pub fn library_function_names(&self, globals: &[Global<'_>]) -> Vec<bool> {
        let raw: Vec<LLVMValueRef> = globals.iter().map(|g| g.raw).collect();
        let mut named = vec![false; raw.len()];
        // SAFETY: global values of this live module; `named` has one slot each.
        unsafe { mtpc_library_function_names(self.raw, raw.as_ptr(), raw.len(), named.as_mut_ptr()) };
        named
    }

    /// A function the module emits needs an entry in the unwind tables (it
    /// may throw, has a personality function or asks for tables), so that
    /// the code generator puts the call frame information of all its
    /// functions in `.eh_frame` rather than `.debug_frame`.
    pub fn needs_unwind_tables(&self) -> bool {
        // SAFETY: reads the module's functions' attributes.
        unsafe { mtpc_module_needs_unwind_tables(self.raw) }
    }

    /// Erases every module flag `name`; true if there was one.
    pub fn erase_flag(&mut self, name: &str) -> bool {
        // SAFETY: rebuilds the module's flag list without those entries.
        unsafe { mtpc_module_erase_flag(self.raw, name.as_ptr().cast(), name.len()) }
    }

    /// Keeps, of the call graph profile (the flag [`CALL_GRAPH_PROFILE_FLAG`]
    /// the host's last passes add), the edges from the functions the module
    /// defines (not `available_externally`), and returns how many; an error
    /// if the flag is not the list of edges LLVM writes.
    pub fn keep_call_graph_profile_of_definitions(&mut self) -> Result<usize, String> {
        // SAFETY: reads the module's functions and the flag, and replaces it.
        let kept = unsafe { mtpc_keep_call_graph_profile_of_definitions(self.raw) };
        usize::try_from(kept).map_err(|_| format!("the module's {CALL_GRAPH_PROFILE_FLAG} flag is not a list of call edges"))
    }

    /// Does the module have a flag `name`, whatever its value?
    pub fn has_flag(&self, name: &str) -> bool {
        // SAFETY: a lookup by name in the module's flags.
        unsafe { !LLVMGetModuleFlag(self.raw, name.as_ptr().cast(), name.len()).is_null() }
    }

    /// The integer value of module flag `name`, if present.
    pub fn flag(&self, name: &str) -> Option<i64> {
        let c = CString::new(name).expect("flag name without NUL");
        // SAFETY: reads the module's flags.
        let v = unsafe { mtpc_module_flag_int(self.raw, c.as_ptr()) };
        (v >= 0).then_some(v)
    }

    /// A private copy of the module's data layout (see [`DataLayout`]).
    pub fn data_layout(&self) -> DataLayout {
        // SAFETY: the layout string lives as long as the module; LLVM copies
        // it into a DataLayout of our own.
        unsafe { DataLayout { raw: LLVMCreateTargetData(LLVMGetDataLayoutStr(self.raw)) } }
    }

    pub fn source_filename(&self) -> String {
        // SAFETY: pointer/length pair valid while the module lives.
        unsafe {
            let mut len = 0usize;
            let p = LLVMGetSourceFileName(self.raw, &mut len);
            String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned()
        }
    }

    /// The directory of the module's compile units (debug info), if it has
    /// any and they agree on it.
    pub fn compile_unit_directory(&self) -> Option<String> {
        let mut len = 0usize;
        // SAFETY: pointer/length pair valid while the module lives, or null.
        unsafe {
            let p = mtpc_module_compile_unit_directory(self.raw, &mut len);
            (!p.is_null()).then(|| String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned())
        }
    }

    pub fn module_asm(&self) -> String {
        // SAFETY: pointer/length pair valid while the module lives.
        unsafe {
            let mut len = 0usize;
            let p = LLVMGetModuleInlineAsm(self.raw, &mut len);
            if p.is_null() {
                return String::new();
            }
            String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned()
        }
    }

    pub fn set_module_asm(&self, text: &str) {
        // SAFETY: LLVM copies the text.
        unsafe { LLVMSetModuleInlineAsm2(self.raw, text.as_ptr().cast(), text.len()) }
    }

    /// Attaches `!name !{i32 value}` to a global object.
    pub fn set_global_int_metadata(&self, global: Global<'_>, kind: u32, value: u64) {
        // SAFETY: builds a metadata node in the module's context and attaches it.
        unsafe {
            let ctx = self.context();
            let int = LLVMConstInt(LLVMInt32TypeInContext(ctx), value, 0);
            let md = LLVMValueAsMetadata(int);
            let node = LLVMMDNodeInContext2(ctx, [md].as_ptr() as *mut _, 1);
            LLVMGlobalSetMetadata(global.raw, kind, node);
        }
    }

    /// Adds `!name = !{!{i32 value}}` as named module metadata.
    pub fn add_named_int_metadata(&self, name: &str, value: u64) {
        let cname = CString::new(name).expect("metadata name without NUL");
        // SAFETY: builds a node in the module's context and appends it.
        unsafe {
            let ctx = self.context();
            let int = LLVMConstInt(LLVMInt32TypeInContext(ctx), value, 0);
            let md = LLVMValueAsMetadata(int);
            let node = LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, [md].as_ptr() as *mut _, 1));
            LLVMAddNamedMetadataOperand(self.raw, cname.as_ptr(), node);
        }
    }

    /// The module has named metadata `name` with at least one operand.
    pub fn has_named_metadata(&self, name: &str) -> bool {
        let cname = CString::new(name).expect("metadata name without NUL");
        // SAFETY: a lookup by name; an absent node counts 0 operands.
        unsafe { LLVMGetNamedMetadataNumOperands(self.raw, cname.as_ptr()) > 0 }
    }

    /// Erases the named metadata `name` (`!name = !{...}`), if present.
    pub fn erase_named_metadata(&self, name: &str) {
        // SAFETY: a lookup by name; the node is erased with its operand list.
        unsafe { mtpc_erase_named_metadata(self.raw, name.as_ptr().cast(), name.len()) }
    }

    /// What the debug information of the split's copies needs once the
    /// optimizer is done with them (see [`CopiesDebugInfo`]): `functions`
    /// names the `available_externally` copies the split made, `variables`
    /// the private copies of constants another partition owns.
    pub fn copies_debug_info(&self, functions: &[&str], variables: &[&str]) -> CopiesDebugInfo {
        let pointers = |names: &[&str]| names.iter().map(|c| c.as_ptr().cast()).collect::<Vec<*const c_char>>();
        let lengths = |names: &[&str]| names.iter().map(|c| c.len()).collect::<Vec<usize>>();
        let (function_names, function_lengths) = (pointers(functions), lengths(functions));
        let (variable_names, variable_lengths) = (pointers(variables), lengths(variables));
        // SAFETY: the names are passed with their lengths; the shim reads
        // the module's globals and makes uniqued metadata in its context;
        // what it returns is freed by the result.
        let raw = unsafe {
            mtpc_copies_debug_info(
                self.raw,
                function_names.as_ptr(),
                function_lengths.as_ptr(),
                functions.len(),
                variable_names.as_ptr(),
                variable_lengths.as_ptr(),
                variables.len(),
            )
        };
        CopiesDebugInfo { raw }
    }

    /// The module has compile units (debug info or line tables).
    pub fn has_debug_info(&self) -> bool {
        // SAFETY: a lookup by name; an absent node counts 0 operands.
        unsafe { LLVMGetNamedMetadataNumOperands(self.raw, c"llvm.dbg.cu".as_ptr()) > 0 }
    }

    pub fn verify(&self) -> Result<(), String> {
        let mut msg = std::ptr::null_mut();
        // SAFETY: ReturnStatus only reports, never aborts.
        let broken = unsafe {
            LLVMVerifyModule(self.raw, LLVMVerifierFailureAction::LLVMReturnStatusAction, &mut msg)
        };
        let text = take_message(msg);
        if broken != 0 {
            Err(text)
        } else {
            Ok(())
        }
    }

    /// Serializes the module to bitcode in memory (without the LTO symbol
    /// table, which only linkers read), as partitions are built from it:
    /// each shared C++ class (`shim/debug_types.cpp`) lists among its
    /// elements every member function declaration the module's code names,
    /// so that the partition describing the class describes them all, and,
    /// with full debug information, the module lists each function's
    /// declaration subprogram, which partitions give the functions they
    /// declare ([`GlobalTable::describe_declared_functions`]). The module
    /// is as it was once this returns.
    pub fn to_split_bitcode(&self, uses: UseListOrder) -> Bitcode {
        let mut data = std::ptr::null();
        let mut len = 0usize;
        let keep_uses = uses == UseListOrder::Kept;
        // SAFETY: the shim returns the writer's buffer, which holds `len`
        // bytes at `data` until it is disposed of.
        let buffer = unsafe { ShimBuffer::new(mtpc_split_bitcode_write(self.raw, keep_uses, &mut data, &mut len), data.cast(), len) };
        Bitcode { buffer, uses }
    }

    /// [`to_split_bitcode`](Self::to_split_bitcode), while `work` runs on a helper
    /// thread: what a thread may do while the module is being written.
    /// `work` is `Send`, so it holds no handle on this module or its
    /// context (those are neither `Send` nor `Sync`); the module is written
    /// on this thread, the only one to touch it. A panic in `work` resumes
    /// here once the module is written; without a thread to be had, `work`
    /// runs here, after the writing.
    pub fn to_split_bitcode_while<R: Send>(&self, uses: UseListOrder, work: impl FnOnce() -> R + Send) -> (Bitcode, R) {
        let mut work = Some(work);
        let (bitcode, done) = std::thread::scope(|scope| {
            let slot = &mut work;
            let helper = std::thread::Builder::new()
                .name("mtpc-plan".into())
                .stack_size(crate::worker::WORKER_STACK_BYTES)
                .spawn_scoped(scope, move || slot.take().map(|work| work()));
            let bitcode = self.to_split_bitcode(uses);
            match helper.map(|helper| helper.join()) {
                Ok(Ok(done)) => (bitcode, done),
                Ok(Err(panic)) => std::panic::resume_unwind(panic),
                Err(_) => (bitcode, None),
            }
        });
        (bitcode, done.unwrap_or_else(|| work.take().expect("the work, not started")()))
    }

    /// Writes the module as bitcode (without the LTO symbol table) to `path`.
    pub fn write_bitcode(&self, path: &Path) -> Result<(), String> {
        let cpath = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| format!("path {} contains a NUL byte", path.display()))?;
        let mut msg = std::ptr::null_mut();
        // SAFETY: the shim writes the file and reports errors by message.
        if unsafe { mtpc_write_bitcode_file(self.raw, cpath.as_ptr(), &mut msg) } {
            Ok(())
        } else {
            Err(format!("cannot write {}: {}", path.display(), take_malloc_message(msg)))
        }
    }

    /// Does the module define a global clang asks AddressSanitizer to
    /// treat as dynamically initialized (a C++ global with a constructor)?
    /// Whether ASan instruments it is known after the pipeline
    /// ([`ModuleRef::asan_describes_dynamic_init`]).
    pub fn has_asan_dynamic_init(&self) -> bool {
        // SAFETY: reads the module's globals' sanitizer metadata.
        unsafe { mtpc_module_has_asan_dynamic_init(self.raw) }
    }

    /// After AddressSanitizer: did it describe a global to its run time as
    /// dynamically initialized? From such a module, ASan (LLVM 16 and 19)
    /// brackets the global constructors
    /// ([`ModuleRef::bracket_dynamic_initializers`]).
    pub fn asan_describes_dynamic_init(&self) -> bool {
        // SAFETY: reads the initializer of the array ASan registers.
        unsafe { mtpc_module_asan_describes_dynamic_init(self.raw) }
    }

    /// After AddressSanitizer with `-fsanitize-address-globals-dead-stripping`:
    /// does its module constructor (`asan.module_ctor`, a COMDAT group)
    /// register the object's globals? LLVM 16's does only in a module with
    /// globals it instruments, 19's and 22's in every module. `None` where
    /// the module has no such constructor in a COMDAT group.
    pub fn asan_constructor_registers(&self) -> Option<bool> {
        // SAFETY: reads the constructor's body.
        match unsafe { mtpc_module_asan_constructor_registers(self.raw) } {
            1 => Some(true),
            0 => Some(false),
            _ => None,
        }
    }

    /// Erases ASan's module constructor of [`ModuleRef::asan_constructor_registers`]
    /// (and its entries in `llvm.global_ctors`, `llvm.used` and
    /// `llvm.compiler.used`): where another partition's registers the
    /// object's globals, the merge keeps that copy of the group. Returns
    /// whether it was erased.
    pub fn drop_asan_constructor(&mut self) -> bool {
        // SAFETY: raw is a live module, held mutably; the shim rebuilds the
        // appending arrays without the constructor before erasing it.
        unsafe { mtpc_module_drop_asan_constructor(self.raw) }
    }

    /// After AddressSanitizer, in a partition of a module whose ASan
    /// describes a dynamically initialized global (in any partition):
    /// brackets the global constructors the partition's pipeline created
    /// (not those named in `own`, the module's) by
    /// `__asan_before_dynamic_init` and `__asan_after_dynamic_init`, as
    /// ASan brackets the whole module's, unless it did so in this
    /// partition. Returns how many it bracketed.
    pub fn bracket_dynamic_initializers(&mut self, own: &[String]) -> usize {
        self.dynamic_initializers_to_bracket(own, true)
    }

    /// How many global constructors [`ModuleRef::bracket_dynamic_initializers`]
    /// would bracket (none if ASan bracketed them here).
    pub fn unbracketed_dynamic_initializers(&self, own: &[String]) -> usize {
        self.dynamic_initializers_to_bracket(own, false)
    }

    fn dynamic_initializers_to_bracket(&self, own: &[String], apply: bool) -> usize {
        let (names, lens): (Vec<*const c_char>, Vec<usize>) = own.iter().map(|n| (n.as_ptr().cast(), n.len())).unzip();
        // SAFETY: raw is a live module (held mutably by the public caller
        // that applies); the shim only adds calls, declarations and a
        // private string; the names outlive the call and are passed with
        // their lengths.
        unsafe { mtpc_module_bracket_dynamic_initializers(self.raw, names.as_ptr(), lens.as_ptr(), own.len(), apply) }
    }

    /// After AddressSanitizer: the globals renamed `(promoted, original)`
    /// (locals the split promoted) are described to its run time as the
    /// whole module's would describe the locals: by their own names, with
    /// no ODR indicator. Returns how many names were restored (0 without
    /// AddressSanitizer).
    pub fn restore_sanitized_local_names(&mut self, renamed: &[(&str, &str)]) -> usize {
        let (promoted, promoted_len): (Vec<*const c_char>, Vec<usize>) =
            renamed.iter().map(|(p, _)| (p.as_ptr().cast(), p.len())).unzip();
        let (original, original_len): (Vec<*const c_char>, Vec<usize>) =
            renamed.iter().map(|(_, o)| (o.as_ptr().cast(), o.len())).unzip();
        // SAFETY: raw is a live module, held mutably; the names outlive the call.
        unsafe {
            mtpc_module_restore_sanitized_local_names(
                self.raw,
                promoted.as_ptr(),
                promoted_len.as_ptr(),
                original.as_ptr(),
                original_len.as_ptr(),
                renamed.len(),
            )
        }
    }

    /// Replaces everything the module defines by `asm` as module-level
    /// inline asm (the module flags stay, and an empty list of linker
    /// directives: the shim's `keptByHost`), so that the host's own code
    /// generation assembles it into the object it writes.
    pub fn replace_with_asm(&mut self, asm: &[u8]) {
        // SAFETY: the text is copied by LLVM.
        unsafe { mtpc_replace_module_with_asm(self.raw, asm.as_ptr().cast(), asm.len()) }
    }

    /// True if no function of a lazily loaded module still waits for its
    /// body to be read.
    pub fn all_bodies_read(&self) -> bool {
        // SAFETY: raw is a live module.
        unsafe { mtpc_all_bodies_read(self.raw) }
    }
}

/// Bytes a buffer of the shim holds (bitcode, an object), read in place,
/// the buffer disposed of on drop.
pub struct ShimBuffer {
    raw: *mut std::ffi::c_void,
    data: *const u8,
    len: usize,
}

// SAFETY: the bytes are never changed after writing, and the buffer is
// freed only on drop (or by the shim, once handed back), by one thread.
unsafe impl Send for ShimBuffer {}
unsafe impl Sync for ShimBuffer {}

impl ShimBuffer {
    /// # Safety
    /// `raw` must be a buffer handle of the shim's (`mtpc_buffer_dispose`
    /// frees it) whose `len` bytes at `data` live as long as it does.
    pub(super) unsafe fn new(raw: *mut std::ffi::c_void, data: *const u8, len: usize) -> ShimBuffer {
        ShimBuffer { raw, data, len }
    }

    /// The handle, for a shim function that takes the buffer over.
    pub(super) fn into_raw(self) -> *mut std::ffi::c_void {
        std::mem::ManuallyDrop::new(self).raw
    }
}

impl std::ops::Deref for ShimBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `data` holds `len` bytes as long as `raw` lives.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }
}

impl Drop for ShimBuffer {
    fn drop(&mut self) {
        // SAFETY: `raw` is the shim's and is disposed of once.
        unsafe { mtpc_buffer_dispose(self.raw) }
    }
}

/// Whether bitcode records the order of each value's uses. LLVM's writer
/// drops it by default: a module read back lists uses in another order,
/// which some passes' and the code generator's choices follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UseListOrder {
    Dropped,
    Kept,
}

/// A module as bitcode, read in place in the buffer LLVM's writer filled.
pub struct Bitcode {
    buffer: ShimBuffer,
    uses: UseListOrder,
}

impl Bitcode {
    /// A digest of the module's content: LLVM's xxHash64 of its bitcode,
    /// or, where the bitcode records the order of each value's uses, of its
    /// records but those (a module the host's passes optimized may list
    /// some value's uses in another order from one run to the next, with
    /// the same content: the digest names promoted locals, which must not
    /// change with it).
    pub fn digest(&self) -> u64 {
        let (data, len) = (self.buffer.data.cast(), self.buffer.len);
        // SAFETY: the shim reads the bytes only.
        unsafe {
            match self.uses {
                UseListOrder::Dropped => mtpc_xxhash64(data, len),
                UseListOrder::Kept => mtpc_bitcode_digest_without_use_lists(data, len),
            }
        }
    }
}

impl std::ops::Deref for Bitcode {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buffer
    }
}

/// An LLVM context owned by one thread, with the modules loaded into it.
/// Errors LLVM reports in it are recorded (see [`OwnedContext::errors`]).
pub struct OwnedContext {
    pub(super) raw: LLVMContextRef,
    errors: Box<std::sync::Mutex<Vec<String>>>,
}

// SAFETY: an LLVMContext may move between threads as long as only one
// thread uses it at a time, which ownership guarantees.
unsafe impl Send for OwnedContext {}

impl OwnedContext {
    pub fn new() -> Self {
        let errors = Box::new(std::sync::Mutex::new(Vec::new()));
        // SAFETY: creates a fresh context, disposed in Drop; the handler's
        // list is boxed, so its address stays valid as long as the context.
        unsafe {
            let raw = LLVMContextCreate();
            let list = &*errors as *const std::sync::Mutex<Vec<String>> as *mut std::ffi::c_void;
            LLVMContextSetDiagnosticHandler(raw, Some(record_error), list);
            OwnedContext { raw, errors }
        }
    }

    /// Loads a module lazily from bitcode: bodies are read on materialization.
    /// The bytes must outlive the returned module.
    pub fn load_lazy<'c>(&'c self, bitcode: &'c [u8], name: &str) -> Result<OwnedModule<'c>, String> {
        let cname = CString::new(name.replace('\0', " ")).expect("no NUL left");
        let (mut module, mut message) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: the reader keeps a view of `bitcode`, which outlives the
        // module by the lifetime 'c; errors come back as a message.
        let loaded = unsafe {
            mtpc_load_lazy(self.raw, bitcode.as_ptr().cast(), bitcode.len(), cname.as_ptr(), &mut module, &mut message)
        };
        if !loaded {
            return Err(format!("cannot read the module's bitcode: {}", take_malloc_message(message)));
        }
        Ok(OwnedModule { raw: module, _ctx: PhantomData })
    }

    /// The errors LLVM reported in this context (as diagnostics, which its
    /// default handler would have answered by ending the process), oldest
    /// first. A handler installed later (a partition's compile) replaces
    /// the one that records them.
    pub fn errors(&self) -> Vec<String> {
        self.errors.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Records the errors among a context's diagnostics; ignores the rest.
extern "C" fn record_error(info: LLVMDiagnosticInfoRef, errors: *mut std::ffi::c_void) {
    // SAFETY: `errors` is the context's boxed list (see OwnedContext::new),
    // alive as long as the context; `info` is valid during the call.
    unsafe {
        if LLVMGetDiagInfoSeverity(info) != LLVMDiagnosticSeverity::LLVMDSError {
            return;
        }
        let text = take_message(LLVMGetDiagInfoDescription(info));
        let errors = &*(errors as *const std::sync::Mutex<Vec<String>>);
        errors.lock().unwrap_or_else(|e| e.into_inner()).push(text);
    }
}

impl Default for OwnedContext {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for OwnedContext {
    fn drop(&mut self) {
        // SAFETY: every module of this context was dropped before (lifetimes).
        unsafe { LLVMContextDispose(self.raw) }
    }
}

/// A module this code owns; disposed when dropped.
pub struct OwnedModule<'c> {
    pub(super) raw: LLVMModuleRef,
    _ctx: PhantomData<&'c OwnedContext>,
}

impl<'c> OwnedModule<'c> {
    pub fn as_module(&mut self) -> ModuleRef<'_> {
        ModuleRef { raw: self.raw, _owner: PhantomData }
    }
}

impl Drop for OwnedModule<'_> {
    fn drop(&mut self) {
        // SAFETY: we own the module.
        unsafe { LLVMDisposeModule(self.raw) }
    }
}


/// A module together with the LLVM context of its own it lives in: what a
/// partition is between its jobs (optimized on one worker thread, compiled
/// on another). Owned as one, it may move between threads; only one uses it
/// at a time.
pub struct PartitionModule {
    raw: LLVMModuleRef,
    ctx: OwnedContext,
    /// What the module was read from, kept as long as the module (a lazily
    /// loaded module reads its bitcode in place).
    _source: std::sync::Arc<dyn std::any::Any + Send + Sync>,
    /// The shared C++ classes [`PartitionModule::shared_class_types`] found,
    /// until the module is next handed out (which may change it).
    classes_found: Option<SharedClassList>,
}

/// The shim's list of the shared C++ class definitions a module reaches
/// (nodes of its context, in the order they were reached).
struct SharedClassList {
    raw: *mut c_void,
}

impl Drop for SharedClassList {
    fn drop(&mut self) {
        // SAFETY: we own the list; freeing it reads none of its nodes.
        unsafe { mtpc_shared_class_list_free(self.raw) }
    }
}

// SAFETY: the module and its context (and the list of its classes, a plain
// C++ vector freed by whichever thread drops it) are owned together and
// used by one thread at a time, which ownership guarantees; LLVM contexts
// are not tied to a thread.
unsafe impl Send for PartitionModule {}

impl PartitionModule {
    /// Builds a module in `ctx` with `build`, which may read from `source`,
    /// and keeps the three together.
    pub fn build<S, E>(
        ctx: OwnedContext,
        source: std::sync::Arc<S>,
        build: impl for<'c> FnOnce(&'c OwnedContext, &'c S) -> Result<OwnedModule<'c>, E>,
    ) -> Result<PartitionModule, E>
    where
        S: Send + Sync + 'static,
    {
        let module = build(&ctx, &source)?;
        // The module now belongs to this value, which keeps its context and
        // source alive at least as long (see Drop).
        let raw = std::mem::ManuallyDrop::new(module).raw;
        Ok(PartitionModule { raw, ctx, _source: source, classes_found: None })
    }

    pub fn as_module(&mut self) -> ModuleRef<'_> {
        // The module may change through the handle: what was found of its
        // classes may no longer hold.
        self.classes_found = None;
        ModuleRef { raw: self.raw, _owner: PhantomData }
    }

    /// The ODR identifiers of the C++ class definitions the module's debug
    /// information reaches (see `shim/debug_types.cpp`), in the order it
    /// reaches them. (An identifier that is not UTF-8, which no C++ mangled
    /// name is, is left out: each partition then describes that class.)
    /// The classes are remembered for [`Self::describe_shared_class_types`],
    /// unless the module is handed out in between.
    pub fn shared_class_types(&mut self) -> Vec<String> {
        let (found, names) = self.find_shared_classes();
        self.classes_found = Some(found);
        names
    }

    /// The shared C++ class definitions the module reaches, and their
    /// identifiers (see [`Self::shared_class_types`]).
    fn find_shared_classes(&self) -> (SharedClassList, Vec<String>) {
        unsafe extern "C" fn push(names: *mut c_void, name: *const c_char, len: usize) {
            // SAFETY: `names` is the vector below; the name is `len` bytes
            // of the module's metadata, copied before the call returns.
            let names = unsafe { &mut *names.cast::<Vec<String>>() };
            let bytes = unsafe { std::slice::from_raw_parts(name.cast::<u8>(), len) };
            if let Ok(name) = std::str::from_utf8(bytes) {
                names.push(name.to_string());
            }
        }
        let mut names: Vec<String> = Vec::new();
        // SAFETY: raw is a live module; the callback only appends to `names`;
        // the list returned is ours.
        let raw = unsafe { mtpc_shared_class_types(self.raw, push, (&mut names as *mut Vec<String>).cast()) };
        (SharedClassList { raw }, names)
    }

    /// Describes the classes named in `elsewhere` (ODR identifiers of
    /// classes another partition describes) as declarations, and keeps
    /// every other class `shared_class_types` finds among the C++ compile
    /// unit's retained types (found again if none are remembered). Returns
    /// how many it declared and describes. Call before any function is
    /// dropped from the optimized module.
    pub fn describe_shared_class_types(&mut self, elsewhere: &[&str]) -> (usize, usize) {
        let pointers: Vec<*const c_char> = elsewhere.iter().map(|s| s.as_ptr().cast()).collect();
        let lengths: Vec<usize> = elsewhere.iter().map(|s| s.len()).collect();
        let (mut declared, mut described) = (0, 0);
        // Found by shared_class_types with the module unchanged since (it
        // was not handed out): its nodes are alive and still what a walk of
        // the module finds. Else found now.
        let found = match self.classes_found.take() {
            Some(found) => found,
            None => self.find_shared_classes().0,
        };
        // SAFETY: raw is a live module, held mutably; the names and the list
        // (this module's) outlive the call.
        unsafe {
            mtpc_describe_shared_class_types(
                self.raw,
                found.raw,
                pointers.as_ptr(),
                lengths.as_ptr(),
                elsewhere.len(),
                &mut declared,
                &mut described,
            )
        };
        (declared, described)
    }

    pub fn context(&self) -> &OwnedContext {
        &self.ctx
    }
}

impl Drop for PartitionModule {
    fn drop(&mut self) {
        // SAFETY: the module is ours and disposed of before its context
        // (fields drop after this) and source.
        unsafe { LLVMDisposeModule(self.raw) }
    }
}

/// What the debug information of the split's copies in a partition needs
/// once the optimizer is done with them (the shim's
/// `mtpc_copies_debug_info`), taken from the partition as it was built:
/// - The declaration subprogram of each `available_externally` copy the
///   split made, in a module with full debug information. The optimizer
///   drops those copies' bodies, and their subprograms with them, so that
///   the calls it did not inline would go undescribed (`DW_TAG_call_site`),
///   where stock's object describes them with the definition. (A copy of
///   the input's, which stock's optimizer drops too, is not one of them.)
/// - The debug entries of the private copies of constants another
///   partition owns (a string literal two partitions use). A partition
///   describes its copy as the owner describes its own, so that what looks
///   an address up in the debug information (AddressSanitizer's report of
///   a global) finds it; a copy the optimizer folded into its loads is no
///   longer described, where the owner's entry stays as stock's does.
pub struct CopiesDebugInfo {
    raw: *mut c_void,
}

impl CopiesDebugInfo {
    /// Gives each function copy that `module` (the one they were read from)
    /// now declares without a subprogram its declaration subprogram, and
    /// takes the entries of the constants' copies it deleted out of its
    /// compile units.
    pub fn apply(self, module: &mut ModuleRef<'_>) {
        // SAFETY: what we hold is ours (null if empty) and holds metadata
        // of the context of the module it was taken from, which the caller
        // passes (`parallel::optimize_partition`, the one user); the shim
        // looks functions up by name and edits compile units' lists.
        unsafe { mtpc_copies_debug_info_apply(module.raw, self.raw) }
    }
}

impl Drop for CopiesDebugInfo {
    fn drop(&mut self) {
        // SAFETY: we own it (null if empty).
        unsafe { mtpc_copies_debug_info_free(self.raw) }
    }
}

/// The globals of a module by position, and the edits that may delete one.
///
/// The table holds the module mutably, so no other handle on it is alive,
/// and every handle it gives out borrows the table, so none survives an
/// edit that deletes a global or a function body. A deleted global's slot
/// is empty; asking for it again gives `None`.
pub struct GlobalTable<'a> {
    module: ModuleRef<'a>,
    slots: Vec<Option<LLVMValueRef>>,
}

impl<'a> GlobalTable<'a> {
    /// The module's globals, the kinds in the order given, each kind in
    /// module order.
    pub fn new(module: &'a mut ModuleRef<'_>, kinds: &[GlobalKind]) -> Self {
        let module = ModuleRef { raw: module.raw, _owner: PhantomData };
        let slots = kinds.iter().flat_map(|&k| module.globals(k)).map(|g| Some(g.raw)).collect();
        GlobalTable { module, slots }
    }

    pub fn module(&self) -> &ModuleRef<'a> {
        &self.module
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Global `i`, unless it was deleted.
    pub fn get(&self, i: usize) -> Option<Global<'_>> {
        self.slots[i].map(Global::new)
    }

    fn live(&self, i: usize, kinds: &[GlobalKind]) -> Option<LLVMValueRef> {
        let raw = self.slots[i]?;
        kinds.contains(&Global::new(raw).kind()).then_some(raw)
    }

    /// Turns function `i` into a declaration (without loading a lazy body);
    /// false if `i` is not a live function.
    pub fn delete_body(&mut self, i: usize) -> bool {
        let Some(raw) = self.live(i, &[GlobalKind::Function]) else { return false };
        // SAFETY: a live function; handles on its instructions borrow the table.
        unsafe { mtpc_function_delete_body(raw) };
        true
    }

    /// Erases global `i` if nothing but dead constants uses it; true if it
    /// is gone (or was already).
    pub fn erase_if_unused(&mut self, i: usize) -> bool {
        let Some(raw) = self.slots[i] else { return true };
        // SAFETY: a live global; the shim erases it only if it has no uses.
        let erased = unsafe { mtpc_erase_global_if_unused(raw) };
        if erased {
            self.slots[i] = None;
        }
        erased
    }

    /// Gives the module's function declarations (those another partition
    /// defines) the declaration subprograms the module the partitions are
    /// built from lists for them, so that calls to them stay described (see
    /// the shim's `mtpc_describe_declared_functions`); a module without
    /// that list (no full debug information) is left as it is. Before any
    /// global is erased: the list is by position.
    pub fn describe_declared_functions(&mut self) {
        // SAFETY: the module is live and held mutably by the table, none of
        // whose globals is erased yet (checked by the shim's count).
        unsafe { mtpc_describe_declared_functions(self.module.raw) }
    }

    /// Adds the declarations among `declared` (indices) to the module's
    /// `llvm.compiler.used`, so that no pass deletes them unused (see the
    /// shim's `mtpc_keep_declarations`). The last edit of a table: the
    /// array it replaces may be one of its globals.
    pub fn keep_declarations(self, declared: &[usize]) {
        let kept: Vec<LLVMValueRef> = declared
            .iter()
            .filter_map(|&i| self.live(i, &[GlobalKind::Function, GlobalKind::Variable]))
            .filter(|&raw| {
                let declaration = Global::new(raw).is_declaration();
                debug_assert!(declaration, "a kept declaration is a definition here (a planning error)");
                declaration
            })
            .collect();
        // SAFETY: live declarations of the module, which the table held
        // mutably and gives up here.
        unsafe { mtpc_keep_declarations(self.module.raw, kept.as_ptr(), kept.len()) }
    }

    /// Of `declared` (indices: declarations that stand for definitions of
    /// the whole module, functions, or aliases and ifuncs if
    /// `stand_for_aliases`), keeps those with a library function's name
    /// from being taken for that function, which none is in the whole
    /// module (see the shim's `mtpc_keep_library_declarations_unassumed`).
    pub fn keep_library_declarations_unassumed(&mut self, declared: &[usize], stand_for_aliases: bool) {
        let functions: Vec<LLVMValueRef> = declared.iter().filter_map(|&i| self.live(i, &[GlobalKind::Function])).collect();
        // SAFETY: live functions of the module, which the table holds mutably.
        unsafe { mtpc_keep_library_declarations_unassumed(self.module.raw, functions.as_ptr(), functions.len(), stand_for_aliases) }
    }

    /// Shared-library code: renames function or variable `i` (a declaration
    /// or copy of what another partition owns and also exports as the
    /// hidden `alias`) to `alias`, hidden, for its uses by instructions; its
    /// other uses (initializers) keep its name, in a new declaration,
    /// `dso_local` unless `preemptible` (see the shim's
    /// `mtpc_bind_code_references_locally`). False if `i` is not a live
    /// function or variable.
    pub fn bind_code_references_locally(&mut self, i: usize, alias: &str, preemptible: bool) -> bool {
        let Some(raw) = self.live(i, &[GlobalKind::Function, GlobalKind::Variable]) else { return false };
        // SAFETY: a live global object, whose slot keeps it (renamed); the
        // name is passed with its length.
        unsafe { mtpc_bind_code_references_locally(raw, alias.as_ptr().cast(), alias.len(), preemptible) };
        true
    }

    /// Adds a hidden external alias named `name` of function or variable
    /// `i` (not to the table: its slots stay the module's globals); false if
    /// `i` is not a live function or variable.
    pub fn add_hidden_alias(&mut self, i: usize, name: &str) -> bool {
        let Some(raw) = self.live(i, &[GlobalKind::Function, GlobalKind::Variable]) else { return false };
        // SAFETY: a live global object; the name is passed with its length.
        unsafe { mtpc_add_hidden_alias(raw, name.as_ptr().cast(), name.len()) };
        true
    }

    /// Replaces the uses of alias `i` by its aliasee and erases it; false if
    /// `i` is not a live alias.
    pub fn resolve_alias(&mut self, i: usize) -> bool {
        let Some(raw) = self.live(i, &[GlobalKind::Alias]) else { return false };
        // SAFETY: a live alias, gone afterwards (its slot emptied).
        unsafe { mtpc_resolve_alias(raw) };
        self.slots[i] = None;
        true
    }

    /// Trims the module's compile units to what this partition describes:
    /// the global variable entries of variables `defined` (indices), and,
    /// if `primary`, the units' own entries (variables no global of the
    /// module is, enumerations, retained types, imported entities,
    /// macros). Call before any variable is dropped or declared.
    pub fn trim_compile_units(&mut self, defined: &[usize], primary: bool) {
        let defined: Vec<LLVMValueRef> =
            defined.iter().filter_map(|&i| self.live(i, &[GlobalKind::Variable])).collect();
        // SAFETY: the variables are live globals of the module, which the
        // table holds mutably; the shim only edits debug metadata.
        unsafe { mtpc_trim_compile_units(self.module.raw, defined.as_ptr(), defined.len(), primary) }
    }

    /// Keeps, of the call graph profile (the flag [`CALL_GRAPH_PROFILE_FLAG`]
    /// the host's last passes add), the edges from functions `callers`, and
    /// returns how many; an error if the flag is not the list of edges LLVM
    /// writes.
    pub fn keep_call_graph_profile_from(&mut self, callers: &[usize]) -> Result<usize, String> {
        let callers: Vec<LLVMValueRef> = callers.iter().filter_map(|&i| self.live(i, &[GlobalKind::Function])).collect();
        // SAFETY: live functions of the module, which the table holds
        // mutably; the shim reads the flag and replaces it.
        let kept = unsafe { mtpc_keep_call_graph_profile_from(self.module.raw, callers.as_ptr(), callers.len()) };
        usize::try_from(kept).map_err(|_| format!("the module's {CALL_GRAPH_PROFILE_FLAG} flag is not a list of call edges"))
    }

    /// Turns definition `i` into a declaration, out of its COMDAT: a
    /// function loses its body, a variable its initializer and debug
    /// information entry, an alias is replaced by a declaration. False if
    /// `i` is gone or an ifunc.
    pub fn make_declaration(&mut self, i: usize) -> bool {
        if self.live(i, &[GlobalKind::Alias]).is_some() {
            return self.replace_with_declaration(i).is_some();
        }
        let Some(raw) = self.live(i, &[GlobalKind::Function, GlobalKind::Variable]) else { return false };
        // SAFETY: a live function or variable; handles on its body or
        // initializer borrow the table.
        unsafe { mtpc_make_declaration(raw) };
        true
    }

    /// Replaces alias or ifunc `i` by a same-named declaration, which takes
    /// its slot.
    pub fn replace_with_declaration(&mut self, i: usize) -> Option<Global<'_>> {
        let raw = self.live(i, &[GlobalKind::Alias, GlobalKind::IFunc])?;
        // SAFETY: a live alias or ifunc; the declaration replaces it.
        let declaration = unsafe { mtpc_replace_with_declaration(raw) };
        self.slots[i] = Some(declaration);
        Some(Global::new(declaration))
    }

    /// Replaces the initializer of appending array `i` (`llvm.used` and
    /// friends) by the subset of its elements that `keep` accepts; erases
    /// the array if nothing remains. The slot holds the new array.
    pub fn filter_appending_array(&mut self, i: usize, keep: impl Fn(Value<'_>) -> bool) {
        let Some(array) = self.live(i, &[GlobalKind::Variable]).map(Global::new) else { return };
        let Some(init) = array.initializer() else { return };
        let elements: Vec<Value<'_>> = init.operands().collect();
        let kept: Vec<LLVMValueRef> = elements.iter().copied().filter(|&e| keep(e)).map(|e| e.raw).collect();
        if kept.len() == elements.len() {
            return;
        }
        if kept.is_empty() {
            self.erase_if_unused(i);
            return;
        }
        // SAFETY: a new array of the same element type replaces the old
        // global, which gives it its name and has no uses (an appending
        // array is only read by the code generator).
        unsafe {
            let elem_ty = LLVMGetElementType(LLVMTypeOf(init.raw));
            // (LLVMConstArray2, its successor, is not in LLVM 16.)
            #[allow(deprecated)]
            let new_init = LLVMConstArray(elem_ty, kept.as_ptr() as *mut _, kept.len() as u32);
            let name = array.name();
            array.set_name("");
            let cname = CString::new(name).expect("array name without NUL");
            let replacement = LLVMAddGlobal(self.module.raw, LLVMTypeOf(new_init), cname.as_ptr());
            LLVMSetInitializer(replacement, new_init);
            LLVMSetLinkage(replacement, LLVMLinkage::LLVMAppendingLinkage);
            if let Some(section) = array.section() {
                let cs = CString::new(section).expect("section without NUL");
                LLVMSetSection(replacement, cs.as_ptr());
            }
            self.erase_if_unused(i);
            self.slots[i] = Some(replacement);
        }
    }
}
