//! The safe layer over LLVM: every `unsafe` call of mtpc lives in this
//! module (this file: modules, globals, values, bitcode, the time trace;
//! [`host_pipeline`]: the host's pass pipeline and compiling partitions).
//!
//! Handles borrow the module (or context) they come from, so they cannot
//! outlive it. Only the operations mtpc needs are wrapped, in LLVM-C terms;
//! those that LLVM-C lacks go to the C++ shim (`shim/`, see `shim/shim.h`).

pub mod host_pipeline;

use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::c_char;
use std::path::Path;

use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use llvm_sys::bit_reader::LLVMGetBitcodeModuleInContext2;
use llvm_sys::comdat::{LLVMGetComdat, LLVMSetComdat};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMCreateTargetData, LLVMDisposeTargetData, LLVMTargetDataRef};
use llvm_sys::{LLVMLinkage, LLVMThreadLocalMode, LLVMUnnamedAddr, LLVMValueKind, LLVMVisibility};

use crate::module_facts::{Linkage, Visibility};

extern "C" {
    fn mtpc_llvm_version_major() -> u32;
    fn mtpc_is_dso_local(v: LLVMValueRef) -> bool;
    fn mtpc_set_dso_local(v: LLVMValueRef, local: bool);
    fn mtpc_inline_asm_string(v: LLVMValueRef, len: *mut usize) -> *const c_char;
    fn mtpc_instruction_metadata(i: LLVMValueRef, kind: u32) -> LLVMMetadataRef;
    fn mtpc_md_node_num_operands(md: LLVMMetadataRef) -> u32;
    fn mtpc_md_node_operand(md: LLVMMetadataRef, index: u32, value: *mut LLVMValueRef, s: *mut *const c_char, len: *mut usize);
    fn mtpc_function_delete_body(f: LLVMValueRef);
    fn mtpc_materialize(gv: LLVMValueRef, message: *mut *mut c_char) -> bool;
    fn mtpc_all_bodies_read(m: LLVMModuleRef) -> bool;
    fn mtpc_materialize_all(m: LLVMModuleRef, message: *mut *mut c_char) -> bool;
    fn mtpc_global_is_unused(v: LLVMValueRef) -> bool;
    fn mtpc_erase_global(v: LLVMValueRef);
    fn mtpc_replace_with_declaration(v: LLVMValueRef) -> LLVMValueRef;
    fn mtpc_resolve_alias(v: LLVMValueRef);
    fn mtpc_bitcode_write(m: LLVMModuleRef, data: *mut *const c_char, size: *mut usize) -> *mut std::ffi::c_void;
    pub(crate) fn mtpc_buffer_dispose(buffer: *mut std::ffi::c_void);
    fn mtpc_write_bitcode_file(m: LLVMModuleRef, path: *const c_char, message: *mut *mut c_char) -> bool;
    fn mtpc_replace_module_with_asm(m: LLVMModuleRef, asm: *const c_char, len: usize);
    fn mtpc_module_flag_int(m: LLVMModuleRef, name: *const c_char) -> i64;
    fn mtpc_report_fatal_error(message: *const c_char) -> !;
    fn mtpc_module_compile_unit_directory(m: LLVMModuleRef, len: *mut usize) -> *const c_char;
    fn mtpc_time_trace_enabled() -> bool;
    fn mtpc_time_trace_thread_start(granularity_us: u32);
    fn mtpc_time_trace_thread_finish();
    fn mtpc_time_trace_begin(name: *const c_char, detail: *const c_char);
    fn mtpc_time_trace_end();
}

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
    let mut info: libc::Dl_info = std::mem::zeroed();
    if libc::dladdr(address, &mut info) == 0 || info.dli_fname.is_null() {
        return None;
    }
    let file = CStr::from_ptr(info.dli_fname).to_string_lossy().into_owned();
    Some(LoadedObject { base: info.dli_fbase as usize, file })
}

/// `libLLVM-15.so.1` and `libLLVM.so.17` → the major version.
fn major_from_library_name(path: &str) -> Option<u32> {
    let name = path.rsplit('/').next()?;
    let rest = name.strip_prefix("libLLVM-").or_else(|| name.strip_prefix("libLLVM.so."))?;
    rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// Spans in the host's time trace (`clang -ftime-trace`, `lld --time-trace`,
/// `opt --time-trace`): LLVM's time profiler, one instance per thread.
pub mod time_trace {
    use std::ffi::CString;

    /// Worker threads record spans of at least this many microseconds
    /// (clang's default `-ftime-trace-granularity`; the host's own value is
    /// private to its profiler).
    const WORKER_GRANULARITY_US: u32 = 500;

    /// Whether this thread records a time trace.
    pub fn enabled() -> bool {
        // SAFETY: reads a thread-local pointer.
        unsafe { super::mtpc_time_trace_enabled() }
    }

    /// A named span, from now until it is dropped; nothing if this thread
    /// records no trace.
    pub struct Span(bool);

    impl Span {
        pub fn begin(name: &str, detail: &str) -> Span {
            if !enabled() {
                return Span(false);
            }
            let (name, detail) = (c_string(name), c_string(detail));
            // SAFETY: the profiler copies both strings.
            unsafe { super::mtpc_time_trace_begin(name.as_ptr(), detail.as_ptr()) };
            Span(true)
        }
    }

    impl Drop for Span {
        fn drop(&mut self) {
            if self.0 {
                // SAFETY: ends the span this guard began, on the same thread.
                unsafe { super::mtpc_time_trace_end() }
            }
        }
    }

    /// A worker thread's trace for the length of one job, when the thread
    /// that submitted the job records one: created now, handed to the host's
    /// profiler (which writes it with its own) when dropped. Spans of the
    /// job must be dropped first.
    pub struct ThreadTrace(bool);

    impl ThreadTrace {
        pub fn start(host_traces: bool) -> ThreadTrace {
            if !host_traces || enabled() {
                return ThreadTrace(false);
            }
            // SAFETY: this thread has no profiler instance (checked above).
            unsafe { super::mtpc_time_trace_thread_start(WORKER_GRANULARITY_US) };
            ThreadTrace(true)
        }
    }

    impl Drop for ThreadTrace {
        fn drop(&mut self) {
            if self.0 {
                // SAFETY: the instance this guard created, on the same thread.
                unsafe { super::mtpc_time_trace_thread_finish() }
            }
        }
    }

    fn c_string(s: &str) -> CString {
        CString::new(s.replace('\0', " ")).expect("no NUL left")
    }
}

/// Takes ownership of an LLVM-allocated message.
pub(crate) fn take_message(raw: *mut c_char) -> String {
    if raw.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returned a NUL-terminated string that we now own.
    let text = unsafe { CStr::from_ptr(raw) }.to_string_lossy().into_owned();
    unsafe { LLVMDisposeMessage(raw) };
    text
}

/// Takes ownership of a message allocated with malloc by the shim.
pub(crate) fn take_malloc_message(raw: *mut c_char) -> String {
    if raw.is_null() {
        return String::new();
    }
    // SAFETY: the shim returned a strdup'ed NUL-terminated string.
    let text = unsafe { CStr::from_ptr(raw) }.to_string_lossy().into_owned();
    unsafe { libc_free(raw.cast()) };
    text
}

extern "C" {
    #[link_name = "free"]
    pub(crate) fn libc_free(p: *mut std::ffi::c_void);
}

/// Which pipeline a partition runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PipelinePhase {
    /// `default<On>`: what clang runs on a translation unit.
    PerModule,
    /// The ThinLTO post-link pipeline: what a ThinLTO backend runs.
    ThinLtoPostLink,
}

/// Optimization levels in the order the shim numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptLevel {
    O0,
    O1,
    O2,
    O3,
    Os,
    Oz,
}

/// What kind of global value a handle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GlobalKind {
    Function,
    Variable,
    Alias,
    IFunc,
}

/// A module borrowed from its owner (a host's pass manager or an [`OwnedModule`]).
pub struct ModuleRef<'m> {
    raw: LLVMModuleRef,
    _owner: PhantomData<&'m mut ()>,
}

/// A global value of a module: function, variable, alias or ifunc.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Global<'m> {
    raw: LLVMValueRef,
    _module: PhantomData<&'m ()>,
}

/// Any value of a module (instruction, constant, operand, metadata node).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Value<'m> {
    raw: LLVMValueRef,
    _module: PhantomData<&'m ()>,
}

/// What one operand of an instruction or constant is, for reference walking.
pub enum Operand<'m> {
    /// A global value (function, variable, alias, ifunc).
    Global(Global<'m>),
    /// `blockaddress(@f, %bb)`: the function whose block is taken.
    BlockAddress(Global<'m>),
    /// A constant with operands of its own (expression, aggregate).
    Aggregate(Value<'m>),
    /// Inline asm text used as a callee.
    InlineAsm(String),
    /// A metadata node (its operands may be globals, e.g. `!callees`).
    Other,
}

impl<'m> Value<'m> {
    fn new(raw: LLVMValueRef) -> Self {
        Value { raw, _module: PhantomData }
    }

    /// Classifies this value as an operand.
    pub fn classify(self) -> Operand<'m> {
        // SAFETY: raw is a live value of the borrowed module.
        unsafe {
            use LLVMValueKind::*;
            match LLVMGetValueKind(self.raw) {
                LLVMFunctionValueKind | LLVMGlobalVariableValueKind | LLVMGlobalAliasValueKind
                | LLVMGlobalIFuncValueKind => Operand::Global(Global::new(self.raw)),
                LLVMBlockAddressValueKind => {
                    Operand::BlockAddress(Global::new(LLVMGetOperand(self.raw, 0)))
                }
                LLVMConstantExprValueKind
                | LLVMConstantArrayValueKind
                | LLVMConstantStructValueKind
                | LLVMConstantVectorValueKind => Operand::Aggregate(self),
                LLVMInlineAsmValueKind => {
                    let mut len = 0usize;
                    let text = mtpc_inline_asm_string(self.raw, &mut len);
                    let bytes = std::slice::from_raw_parts(text.cast::<u8>(), len);
                    Operand::InlineAsm(String::from_utf8_lossy(bytes).into_owned())
                }
                _ => Operand::Other,
            }
        }
    }

    /// The global this constant names, through casts and GEPs (the first
    /// operand of constant expressions); `None` for anything else.
    pub fn underlying_global(self) -> Option<Global<'m>> {
        let mut current = self;
        for _ in 0..64 {
            match current.classify() {
                Operand::Global(g) => return Some(g),
                Operand::Aggregate(expr) => current = expr.operands().next()?,
                _ => return None,
            }
        }
        None
    }

    /// The operands of a user (instruction or constant).
    pub fn operands(self) -> impl Iterator<Item = Value<'m>> {
        // SAFETY: raw is a live user; indices are within its operand count.
        let count = unsafe { LLVMGetNumOperands(self.raw) }.max(0) as u32;
        (0..count).map(move |i| Value::new(unsafe { LLVMGetOperand(self.raw, i) }))
    }

    /// The value of a `ConstantInt`, if it is one.
    pub fn const_int(self) -> Option<u64> {
        // SAFETY: kind checked before reading the integer.
        unsafe {
            (LLVMGetValueKind(self.raw) == LLVMValueKind::LLVMConstantIntValueKind)
                .then(|| LLVMConstIntGetZExtValue(self.raw))
        }
    }
}

/// One instruction of a function body, seen for reference walking.
pub struct Instruction<'m> {
    pub value: Value<'m>,
    /// The called operand if this is a call, invoke or callbr.
    pub callee: Option<Value<'m>>,
}

impl<'m> Instruction<'m> {
    /// True for a call of a debug-info intrinsic (`llvm.dbg.*`).
    pub fn is_debug_intrinsic(&self) -> bool {
        // SAFETY: value is a live instruction.
        self.callee.is_some() && !unsafe { LLVMIsADbgInfoIntrinsic(self.value.raw) }.is_null()
    }

    /// The metadata node attached under `kind`, if any.
    pub fn metadata(&self, kind: u32) -> Option<MdNode<'m>> {
        // SAFETY: value is a live instruction; the shim only reads.
        MdNode::new(unsafe { mtpc_instruction_metadata(self.value.raw, kind) })
    }
}

/// A metadata node, read in place: nothing is created in the context to
/// look at it (unlike LLVM-C's metadata-as-value accessors).
#[derive(Clone, Copy)]
pub struct MdNode<'m> {
    raw: LLVMMetadataRef,
    _module: PhantomData<&'m ()>,
}

/// One operand of a metadata node.
pub enum MdOperand<'m> {
    /// A value: a constant, a global.
    Value(Value<'m>),
    /// An `MDString`.
    String(String),
    /// Another node, or nothing.
    Other,
}

impl<'m> MdNode<'m> {
    fn new(raw: LLVMMetadataRef) -> Option<Self> {
        (!raw.is_null()).then_some(MdNode { raw, _module: PhantomData })
    }

    pub fn operands(self) -> Vec<MdOperand<'m>> {
        // SAFETY: raw is a live node of the module's context; indices are
        // within its operand count; the shim only reads.
        unsafe {
            let n = mtpc_md_node_num_operands(self.raw);
            (0..n)
                .map(|i| {
                    let (mut value, mut text, mut len) = (std::ptr::null_mut(), std::ptr::null(), 0usize);
                    mtpc_md_node_operand(self.raw, i, &mut value, &mut text, &mut len);
                    if !value.is_null() {
                        MdOperand::Value(Value::new(value))
                    } else if !text.is_null() {
                        let bytes = std::slice::from_raw_parts(text.cast::<u8>(), len);
                        MdOperand::String(String::from_utf8_lossy(bytes).into_owned())
                    } else {
                        MdOperand::Other
                    }
                })
                .collect()
        }
    }
}

/// A private copy of a module's data layout. Sizes are asked of it, not of
/// the module's own, whose cache of struct layouts would be filled (changed)
/// while other threads read the module.
pub struct DataLayout {
    raw: LLVMTargetDataRef,
}

impl Drop for DataLayout {
    fn drop(&mut self) {
        // SAFETY: created by LLVMCreateTargetData and owned by this value.
        unsafe { LLVMDisposeTargetData(self.raw) }
    }
}

impl<'m> Global<'m> {
    fn new(raw: LLVMValueRef) -> Self {
        Global { raw, _module: PhantomData }
    }

    pub fn as_value(self) -> Value<'m> {
        Value::new(self.raw)
    }

    pub fn kind(self) -> GlobalKind {
        // SAFETY: raw is a live global value.
        match unsafe { LLVMGetValueKind(self.raw) } {
            LLVMValueKind::LLVMFunctionValueKind => GlobalKind::Function,
            LLVMValueKind::LLVMGlobalAliasValueKind => GlobalKind::Alias,
            LLVMValueKind::LLVMGlobalIFuncValueKind => GlobalKind::IFunc,
            _ => GlobalKind::Variable,
        }
    }

    pub fn name(self) -> String {
        // SAFETY: LLVMGetValueName2 returns a pointer/length pair valid while the value lives.
        unsafe {
            let mut len = 0usize;
            let p = LLVMGetValueName2(self.raw, &mut len);
            String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned()
        }
    }

    pub fn set_name(self, name: &str) {
        // SAFETY: LLVM copies the name.
        unsafe { LLVMSetValueName2(self.raw, name.as_ptr().cast(), name.len()) }
    }

    pub fn linkage(self) -> Linkage {
        // SAFETY: raw is a live global value.
        linkage_from_llvm(unsafe { LLVMGetLinkage(self.raw) })
    }

    pub fn set_linkage(self, linkage: Linkage) {
        // SAFETY: raw is a live global value.
        unsafe { LLVMSetLinkage(self.raw, linkage_to_llvm(linkage)) }
    }

    pub fn visibility(self) -> Visibility {
        // SAFETY: raw is a live global value.
        match unsafe { LLVMGetVisibility(self.raw) } {
            LLVMVisibility::LLVMDefaultVisibility => Visibility::Default,
            LLVMVisibility::LLVMHiddenVisibility => Visibility::Hidden,
            LLVMVisibility::LLVMProtectedVisibility => Visibility::Protected,
        }
    }

    pub fn set_visibility(self, visibility: Visibility) {
        let v = match visibility {
            Visibility::Default => LLVMVisibility::LLVMDefaultVisibility,
            Visibility::Hidden => LLVMVisibility::LLVMHiddenVisibility,
            Visibility::Protected => LLVMVisibility::LLVMProtectedVisibility,
        };
        // SAFETY: raw is a live global value.
        unsafe { LLVMSetVisibility(self.raw, v) }
    }

    pub fn is_dso_local(self) -> bool {
        // SAFETY: raw is a live global value.
        unsafe { mtpc_is_dso_local(self.raw) }
    }

    pub fn set_dso_local(self, local: bool) {
        // SAFETY: raw is a live global value.
        unsafe { mtpc_set_dso_local(self.raw, local) }
    }

    /// True for a function without body or a variable without initializer.
    /// A lazily loaded, not yet materialized body counts as a definition.
    pub fn is_declaration(self) -> bool {
        match self.kind() {
            // SAFETY: raw is a live global value.
            GlobalKind::Function | GlobalKind::Variable => unsafe { LLVMIsDeclaration(self.raw) != 0 },
            GlobalKind::Alias | GlobalKind::IFunc => false,
        }
    }

    /// A key that identifies the COMDAT group of a function or variable within its module.
    pub fn comdat_key(self) -> Option<String> {
        if !matches!(self.kind(), GlobalKind::Function | GlobalKind::Variable) {
            return None;
        }
        // SAFETY: LLVMGetComdat returns null when there is none.
        unsafe {
            let c = LLVMGetComdat(self.raw);
            if c.is_null() {
                return None;
            }
            Some(comdat_key(c))
        }
    }

    pub fn clear_comdat(self) {
        if matches!(self.kind(), GlobalKind::Function | GlobalKind::Variable) {
            // SAFETY: a null comdat removes the global from its group.
            unsafe { LLVMSetComdat(self.raw, std::ptr::null_mut()) }
        }
    }

    pub fn section(self) -> Option<String> {
        if !matches!(self.kind(), GlobalKind::Function | GlobalKind::Variable) {
            return None;
        }
        // SAFETY: returns null or a NUL-terminated string owned by LLVM.
        unsafe {
            let p = LLVMGetSection(self.raw);
            if p.is_null() {
                return None;
            }
            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
            (!s.is_empty()).then_some(s)
        }
    }

    pub fn is_thread_local(self) -> bool {
        // SAFETY: only variables have a thread-local mode.
        self.kind() == GlobalKind::Variable
            && unsafe { LLVMGetThreadLocalMode(self.raw) }
                != LLVMThreadLocalMode::LLVMNotThreadLocal
    }

    pub fn is_constant(self) -> bool {
        // SAFETY: only variables can be constant.
        self.kind() == GlobalKind::Variable && unsafe { LLVMIsGlobalConstant(self.raw) } != 0
    }

    pub fn has_global_unnamed_addr(self) -> bool {
        // SAFETY: raw is a live global value.
        unsafe { LLVMGetUnnamedAddress(self.raw) == LLVMUnnamedAddr::LLVMGlobalUnnamedAddr }
    }

    /// The initializer of a defined variable.
    pub fn initializer(self) -> Option<Value<'m>> {
        if self.kind() != GlobalKind::Variable {
            return None;
        }
        // SAFETY: null for a declaration.
        let init = unsafe { LLVMGetInitializer(self.raw) };
        (!init.is_null()).then(|| Value::new(init))
    }

    /// Drops the initializer: the variable becomes a declaration.
    pub fn clear_initializer(self) {
        // SAFETY: LLVMSetInitializer accepts null (setInitializer(nullptr)).
        unsafe { LLVMSetInitializer(self.raw, std::ptr::null_mut()) }
    }

    /// Bytes the value of a variable definition occupies (a definition's
    /// type is always sized).
    pub fn definition_size(self, layout: &DataLayout) -> u64 {
        // SAFETY: raw is a live variable; the layout is our own object.
        unsafe { LLVMABISizeOfType(layout.raw, LLVMGlobalGetValueType(self.raw)) }
    }

    /// The aliasee of an alias or the resolver of an ifunc.
    pub fn target(self) -> Option<Value<'m>> {
        // SAFETY: kind checked before each accessor.
        unsafe {
            match self.kind() {
                GlobalKind::Alias => Some(Value::new(LLVMAliasGetAliasee(self.raw))),
                GlobalKind::IFunc => Some(Value::new(LLVMGetGlobalIFuncResolver(self.raw))),
                _ => None,
            }
        }
    }

    /// The operands of metadata attached to a global under `kind` (e.g. `!associated`).
    pub fn attached_metadata_operands(self, kind: u32) -> Vec<MdOperand<'m>> {
        // SAFETY: the entries array is freed with its dispose function; the
        // metadata nodes live in the module's context and are only read.
        unsafe {
            let mut n = 0usize;
            let entries = LLVMGlobalCopyAllMetadata(self.raw, &mut n);
            let mut out = Vec::new();
            for i in 0..n as u32 {
                if LLVMValueMetadataEntriesGetKind(entries, i) == kind {
                    if let Some(node) = MdNode::new(LLVMValueMetadataEntriesGetMetadata(entries, i)) {
                        out.extend(node.operands());
                    }
                }
            }
            if !entries.is_null() {
                LLVMDisposeValueMetadataEntries(entries);
            }
            out
        }
    }

    pub fn erase_metadata(self, kind: u32) {
        // SAFETY: raw is a live global object.
        unsafe { LLVMGlobalEraseMetadata(self.raw, kind) }
    }

    /// True if the function carries the enum attribute `name` (e.g. `noinline`).
    pub fn has_fn_attribute(self, name: &str) -> bool {
        // SAFETY: the kind id is looked up by name; index -1 is the function itself.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
            !LLVMGetEnumAttributeAtIndex(self.raw, u32::MAX, kind).is_null()
        }
    }

    /// The instructions of a function body, in order.
    pub fn instructions(self) -> Vec<Instruction<'m>> {
        let mut out = Vec::new();
        // SAFETY: iteration over a live function's blocks and instructions.
        unsafe {
            let mut bb = LLVMGetFirstBasicBlock(self.raw);
            while !bb.is_null() {
                let mut inst = LLVMGetFirstInstruction(bb);
                while !inst.is_null() {
                    let is_call = !LLVMIsACallInst(inst).is_null()
                        || !LLVMIsAInvokeInst(inst).is_null()
                        || !LLVMIsACallBrInst(inst).is_null();
                    let callee = is_call
                        .then(|| Value::new(LLVMGetCalledValue(inst)));
                    out.push(Instruction { value: Value::new(inst), callee });
                    inst = LLVMGetNextInstruction(inst);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
        }
        out
    }

    /// Loads a lazily read body.
    pub fn materialize(self) -> Result<(), String> {
        let mut msg = std::ptr::null_mut();
        // SAFETY: raw is a global of a lazily loaded module.
        if unsafe { mtpc_materialize(self.raw, &mut msg) } {
            Ok(())
        } else {
            Err(take_malloc_message(msg))
        }
    }

    /// Turns a function into a declaration (without loading a lazy body).
    pub fn delete_body(self) {
        // SAFETY: raw is a function.
        unsafe { mtpc_function_delete_body(self.raw) }
    }

    /// True if nothing but dead constants refers to this global.
    pub fn is_unused(self) -> bool {
        // SAFETY: raw is a live global value.
        unsafe { mtpc_global_is_unused(self.raw) }
    }

    pub fn erase(self) {
        // SAFETY: consumes the handle; the value is gone afterwards.
        unsafe { mtpc_erase_global(self.raw) }
    }

    /// Replaces an alias or ifunc by a same-named declaration.
    pub fn replace_with_declaration(self) -> Global<'m> {
        // SAFETY: raw is an alias or ifunc; the new declaration replaces it.
        Global::new(unsafe { mtpc_replace_with_declaration(self.raw) })
    }

    /// Replaces the uses of an alias by its aliasee and erases it.
    pub fn resolve_alias(self) {
        // SAFETY: raw is an alias.
        unsafe { mtpc_resolve_alias(self.raw) }
    }
}

/// The name of a COMDAT, read through the global that bears it.
///
/// LLVM-C has no accessor for a comdat's name; every global of a group
/// points at the same `Comdat`, so the handle's address identifies the group
/// within a module. We use the address as a key only for grouping and never
/// across modules.
unsafe fn comdat_key(c: LLVMComdatRef) -> String {
    format!("{:p}", c)
}

fn linkage_from_llvm(l: LLVMLinkage) -> Linkage {
    use LLVMLinkage::*;
    match l {
        LLVMExternalLinkage => Linkage::External,
        LLVMAvailableExternallyLinkage => Linkage::AvailableExternally,
        LLVMLinkOnceAnyLinkage => Linkage::LinkOnceAny,
        LLVMLinkOnceODRLinkage => Linkage::LinkOnceOdr,
        LLVMWeakAnyLinkage => Linkage::WeakAny,
        LLVMWeakODRLinkage => Linkage::WeakOdr,
        LLVMAppendingLinkage => Linkage::Appending,
        LLVMInternalLinkage => Linkage::Internal,
        LLVMPrivateLinkage => Linkage::Private,
        LLVMExternalWeakLinkage => Linkage::ExternalWeak,
        LLVMCommonLinkage => Linkage::Common,
        // Legacy values LLVM 16 never produces for IR it reads.
        _ => Linkage::External,
    }
}

fn linkage_to_llvm(l: Linkage) -> LLVMLinkage {
    use LLVMLinkage::*;
    match l {
        Linkage::External => LLVMExternalLinkage,
        Linkage::AvailableExternally => LLVMAvailableExternallyLinkage,
        Linkage::LinkOnceAny => LLVMLinkOnceAnyLinkage,
        Linkage::LinkOnceOdr => LLVMLinkOnceODRLinkage,
        Linkage::WeakAny => LLVMWeakAnyLinkage,
        Linkage::WeakOdr => LLVMWeakODRLinkage,
        Linkage::Appending => LLVMAppendingLinkage,
        Linkage::Internal => LLVMInternalLinkage,
        Linkage::Private => LLVMPrivateLinkage,
        Linkage::ExternalWeak => LLVMExternalWeakLinkage,
        Linkage::Common => LLVMCommonLinkage,
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
    raw: *mut std::ffi::c_void,
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
    raw: LLVMContextRef,
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
    raw: LLVMModuleRef,
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
