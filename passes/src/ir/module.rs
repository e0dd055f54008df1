//! Modules: borrowed from a host or owned by a context of mtpc's own;
//! verifying, serializing and loading them; the edits that may delete
//! globals ([`GlobalTable`]).

use std::ffi::CString;
use std::marker::PhantomData;
use std::path::Path;

use llvm_sys::bit_reader::LLVMGetBitcodeModuleInContext2;
use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMCreateTargetData, LLVMDisposeTargetData, LLVMTargetDataRef};
use llvm_sys::LLVMLinkage;

use super::ffi::*;
use super::values::{Global, GlobalKind, Value};

/// A module borrowed from its owner (a host's pass manager or an [`OwnedModule`]).
pub struct ModuleRef<'m> {
    pub(super) raw: LLVMModuleRef,
    _owner: PhantomData<&'m mut ()>,
}

/// A private copy of a module's data layout. Sizes are asked of it, not of
/// the module's own, whose cache of struct layouts would be filled (changed)
/// while other threads read the module.
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
    /// Borrows a module owned elsewhere (the host's, through llvm-plugin).
    ///
    /// # Safety
    /// `raw` must be a valid module that outlives `'m` and is not used
    /// through another handle meanwhile.
    pub unsafe fn from_raw(raw: LLVMModuleRef) -> Self {
        ModuleRef { raw, _owner: PhantomData }
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
               next: unsafe extern "C" fn(LLVMValueRef) -> LLVMValueRef) -> Vec<Global<'m>> {
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
    pub fn globals(&self, kind: GlobalKind) -> Vec<Global<'m>> {
        match kind {
            GlobalKind::Function => self.collect(LLVMGetFirstFunction, LLVMGetNextFunction),
            GlobalKind::Variable => self.collect(LLVMGetFirstGlobal, LLVMGetNextGlobal),
            GlobalKind::Alias => self.collect(LLVMGetFirstGlobalAlias, LLVMGetNextGlobalAlias),
            GlobalKind::IFunc => self.collect(LLVMGetFirstGlobalIFunc, LLVMGetNextGlobalIFunc),
        }
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

    /// Replaces the initializer of an appending array (`llvm.used` and
    /// friends) by the subset of its elements that `keep` accepts; erases
    /// the array if nothing remains.
    pub fn filter_appending_array(&self, array: Global<'m>, keep: impl Fn(Value<'m>) -> bool) {
        let Some(init) = array.initializer() else { return };
        let elements: Vec<Value<'m>> = init.operands().collect();
        let kept: Vec<LLVMValueRef> = elements
            .iter()
            .copied()
            .filter(|&e| keep(e))
            .map(|e| e.raw)
            .collect();
        if kept.len() == elements.len() {
            return;
        }
        if kept.is_empty() {
            array.erase();
            return;
        }
        // SAFETY: a new array of the same element type replaces the old
        // global, which takes its name; the old one has no other uses.
        unsafe {
            let elem_ty = LLVMGetElementType(LLVMTypeOf(init.raw));
            let new_init = LLVMConstArray(elem_ty, kept.as_ptr() as *mut _, kept.len() as u32);
            let name = array.name();
            array.set_name("");
            let cname = CString::new(name).expect("array name without NUL");
            let replacement = LLVMAddGlobal(self.raw, LLVMTypeOf(new_init), cname.as_ptr());
            LLVMSetInitializer(replacement, new_init);
            LLVMSetLinkage(replacement, LLVMLinkage::LLVMAppendingLinkage);
            if let Some(section) = array.section() {
                let cs = CString::new(section).expect("section without NUL");
                LLVMSetSection(replacement, cs.as_ptr());
            }
            array.erase();
        }
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
    /// table, which only linkers read).
    pub fn to_bitcode(&self) -> Bitcode {
        let mut data = std::ptr::null();
        let mut len = 0usize;
        // SAFETY: the shim returns the writer's buffer, which holds `len`
        // bytes at `data` until it is disposed of.
        let raw = unsafe { mtpc_bitcode_write(self.raw, &mut data, &mut len) };
        Bitcode { raw, data: data.cast(), len }
    }

    /// Runs `side` on a second thread and `main` on this one, and returns
    /// both results (`side`'s as `Err` with the panic if it panicked).
    ///
    /// # Safety
    ///
    /// Both closures must only read the module and create nothing in its
    /// context (LLVM's IR is not synchronized): the verifier, the bitcode
    /// writer (both take a `const Module &`) and
    /// [`crate::module_facts::collect`] qualify. `main` may do anything in
    /// other contexts.
    pub unsafe fn read_in_parallel<A: Send, B>(
        &self,
        side: impl FnOnce(&ModuleRef<'_>) -> A + Send,
        main: impl FnOnce() -> B,
    ) -> (B, std::thread::Result<A>) {
        struct ReadOnly(LLVMModuleRef);
        // SAFETY: the caller promises read-only use (see above), and the
        // scope ends before `self` can be used again.
        unsafe impl Send for ReadOnly {}
        unsafe impl Sync for ReadOnly {}
        let shared = ReadOnly(self.raw);
        std::thread::scope(|scope| {
            let side = scope.spawn(|| {
                let shared = &shared;
                // SAFETY: a read-only view of the module (see above).
                side(&unsafe { ModuleRef::from_raw(shared.0) })
            });
            let result = main();
            (result, side.join())
        })
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

    /// Replaces everything the module defines by `asm` as module-level
    /// inline asm (the module flags stay), so that the host's own code
    /// generation assembles it into the object it writes.
    pub fn replace_with_asm(&self, asm: &[u8]) {
        // SAFETY: the text is copied by LLVM.
        unsafe { mtpc_replace_module_with_asm(self.raw, asm.as_ptr().cast(), asm.len()) }
    }

    /// True if no function of a lazily loaded module still waits for its
    /// body to be read.
    pub fn all_bodies_read(&self) -> bool {
        // SAFETY: raw is a live module.
        unsafe { mtpc_all_bodies_read(self.raw) }
    }

    /// Finishes the lazy load of a module and frees its bitcode reader.
    /// Runs LLVM's bitcode upgrades, which verify a module with debug info
    /// and abort the process if it is broken: verify it first.
    pub fn finish_lazy_load(&self) -> Result<(), String> {
        let mut msg = std::ptr::null_mut();
        // SAFETY: raw is a live (possibly lazy) module.
        if unsafe { mtpc_materialize_all(self.raw, &mut msg) } {
            Ok(())
        } else {
            Err(take_malloc_message(msg))
        }
    }
}

/// A module as bitcode, read in place in the buffer LLVM's writer filled.
pub struct Bitcode {
    pub(super) raw: *mut std::ffi::c_void,
    data: *const u8,
    len: usize,
}

// SAFETY: the bytes are never changed after writing, and the buffer is
// freed only on drop, by whichever thread drops it.
unsafe impl Send for Bitcode {}
unsafe impl Sync for Bitcode {}

impl std::ops::Deref for Bitcode {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `data` holds `len` bytes as long as `raw` lives.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }
}

impl Drop for Bitcode {
    fn drop(&mut self) {
        // SAFETY: `raw` came from mtpc_bitcode_write and is disposed of once.
        unsafe { mtpc_buffer_dispose(self.raw) }
    }
}

/// An LLVM context owned by one thread, with the modules loaded into it.
pub struct OwnedContext {
    pub(super) raw: LLVMContextRef,
}

// SAFETY: an LLVMContext may move between threads as long as only one
// thread uses it at a time, which ownership guarantees.
unsafe impl Send for OwnedContext {}

impl OwnedContext {
    pub fn new() -> Self {
        // SAFETY: creates a fresh context, disposed in Drop.
        OwnedContext { raw: unsafe { LLVMContextCreate() } }
    }

    /// Loads a module lazily from bitcode: bodies are read on materialization.
    /// The bytes must outlive the returned module.
    pub fn load_lazy<'c>(&'c self, bitcode: &'c [u8], name: &str) -> Result<OwnedModule<'c>, String> {
        let cname = CString::new(name).unwrap_or_default();
        // SAFETY: the memory buffer is a non-owning view of `bitcode`, which
        // outlives the module by the lifetime 'c; the module owns the view.
        unsafe {
            let buf = LLVMCreateMemoryBufferWithMemoryRange(
                bitcode.as_ptr().cast(),
                bitcode.len(),
                cname.as_ptr(),
                0,
            );
            let mut module = std::ptr::null_mut();
            if LLVMGetBitcodeModuleInContext2(self.raw, buf, &mut module) != 0 {
                return Err("cannot read the module's bitcode".into());
            }
            Ok(OwnedModule { raw: module, _ctx: PhantomData })
        }
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

