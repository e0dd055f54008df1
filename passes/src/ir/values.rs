//! Handles on the values of a module: globals (functions, variables,
//! aliases, ifuncs), constants and instructions as operands, metadata nodes
//! read in place. A handle borrows the [`ModuleRef`](super::ModuleRef) it
//! came from, so it cannot be used after an edit that may delete what it
//! names (those take the module mutably, see [`super::GlobalTable`]).

use std::ffi::CStr;
use std::marker::PhantomData;

use llvm_sys::comdat::{LLVMComdatSelectionKind, LLVMGetComdat, LLVMGetComdatSelectionKind, LLVMSetComdat};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::LLVMABISizeOfType;
use llvm_sys::{LLVMLinkage, LLVMUnnamedAddr, LLVMValueKind, LLVMVisibility};

use super::ffi::*;
use super::module::DataLayout;
use crate::module_facts::{Linkage, Visibility};

/// What kind of global value a handle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GlobalKind {
    Function,
    Variable,
    Alias,
    IFunc,
}

/// A global value of a module: function, variable, alias or ifunc.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Global<'m> {
    pub(super) raw: LLVMValueRef,
    _module: PhantomData<&'m ()>,
}

/// Any value of a module (instruction, constant, operand, metadata node).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Value<'m> {
    pub(super) raw: LLVMValueRef,
    _module: PhantomData<&'m ()>,
}

/// What one operand of an instruction or constant is, for reference walking.
/// Every kind of value LLVM has (16, 19, 22) maps to one of these (see
/// [`Value::classify`]).
pub enum Operand<'m> {
    /// A global value (function, variable, alias, ifunc), named directly or
    /// through `dso_local_equivalent` (a constant that LLVM-C reports as
    /// an instruction).
    Global(Global<'m>),
    /// `no_cfi @f` (also reported as an instruction by LLVM-C): LLVM 16's
    /// GlobalDCE crashes when it erases a function such a constant still
    /// names, so its users must not be copies that may die before it.
    NoCfi(Global<'m>),
    /// `blockaddress(@f, %bb)`: the function whose block is taken.
    BlockAddress(Global<'m>),
    /// A constant with operands of its own (expression, aggregate).
    Aggregate(Value<'m>),
    /// Inline asm text used as a callee.
    InlineAsm(String),
    /// A constant that refers to nothing (integer, float, null, undef,
    /// poison, zero, data array or vector, `none` token, target `none`).
    Data,
    /// Metadata used as a value (`metadata ptr @g` in a call of an
    /// intrinsic): no use of what it names, so never a reference to keep.
    Metadata,
    /// A value local to a function: an instruction, argument or block.
    Local,
}

impl<'m> Value<'m> {
    pub(super) fn new(raw: LLVMValueRef) -> Self {
        Value { raw, _module: PhantomData }
    }

    /// Classifies this value as an operand. The match is exhaustive over
    /// LLVM-C's value kinds; the two constants LLVM-C has no kind for are
    /// told apart from instructions by the shim.
    pub fn classify(self) -> Operand<'m> {
        use LLVMValueKind::*;
        // SAFETY: raw is a live value of the borrowed module.
        let kind = unsafe { LLVMGetValueKind(self.raw) };
        match kind {
            LLVMFunctionValueKind | LLVMGlobalVariableValueKind | LLVMGlobalAliasValueKind
            | LLVMGlobalIFuncValueKind => Operand::Global(Global::new(self.raw)),
            // SAFETY: raw is a block address.
            LLVMBlockAddressValueKind => Operand::BlockAddress(Global::new(unsafe { mtpc_block_address_function(self.raw) })),
            LLVMConstantExprValueKind | LLVMConstantArrayValueKind | LLVMConstantStructValueKind
            | LLVMConstantVectorValueKind => Operand::Aggregate(self),
            // LLVM 19 and later: a signed pointer, `ptrauth (ptr @f, ...)`.
            #[cfg(not(feature = "llvm16"))]
            LLVMConstantPtrAuthValueKind => Operand::Aggregate(self),
            LLVMInlineAsmValueKind => {
                let mut len = 0usize;
                // SAFETY: raw is inline asm; the text lives as long as it.
                let text = unsafe {
                    let text = mtpc_inline_asm_string(self.raw, &mut len);
                    std::slice::from_raw_parts(text.cast::<u8>(), len)
                };
                Operand::InlineAsm(String::from_utf8_lossy(text).into_owned())
            }
            LLVMUndefValueValueKind | LLVMPoisonValueKind | LLVMConstantAggregateZeroValueKind
            | LLVMConstantDataArrayValueKind | LLVMConstantDataVectorValueKind | LLVMConstantIntValueKind
            | LLVMConstantFPValueKind | LLVMConstantPointerNullValueKind | LLVMConstantTokenNoneValueKind
            | LLVMConstantTargetNoneValueKind => Operand::Data,
            LLVMMetadataAsValueValueKind => Operand::Metadata,
            LLVMArgumentValueKind | LLVMBasicBlockValueKind | LLVMMemoryUseValueKind | LLVMMemoryDefValueKind
            | LLVMMemoryPhiValueKind => Operand::Local,
            LLVMInstructionValueKind => {
                let mut no_cfi = false;
                // SAFETY: the shim only asks the value's class.
                let wrapped = unsafe { mtpc_wrapped_global(self.raw, &mut no_cfi) };
                match (wrapped.is_null(), no_cfi) {
                    (true, _) => Operand::Local,
                    (false, false) => Operand::Global(Global::new(wrapped)),
                    (false, true) => Operand::NoCfi(Global::new(wrapped)),
                }
            }
        }
    }

    /// Is this constant a C string: bytes (`i8`) ending in the only zero
    /// among them, or a single zero byte (`[1 x i8] zeroinitializer`, "")?
    /// What the code generator puts in a mergeable string section, whose
    /// equal strings the linker stores once (LLVM's `IsNullTerminatedString`
    /// for one-byte characters).
    pub fn is_c_string(self) -> bool {
        // SAFETY: raw is a live value; the string accessors are called on
        // constant data of `i8` elements only (LLVMIsConstantString checks
        // the element type of a ConstantDataSequential).
        unsafe {
            if !LLVMIsAConstantAggregateZero(self.raw).is_null() {
                let ty = LLVMTypeOf(self.raw);
                if LLVMGetTypeKind(ty) != llvm_sys::LLVMTypeKind::LLVMArrayTypeKind
                    || super::llvm_version::array_length(ty) != 1
                {
                    return false;
                }
                let element = LLVMGetElementType(ty);
                return LLVMGetTypeKind(element) == llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind
                    && LLVMGetIntTypeWidth(element) == 8;
            }
            if LLVMIsAConstantDataSequential(self.raw).is_null() || LLVMIsConstantString(self.raw) == 0 {
                return false;
            }
            let mut len = 0usize;
            let data = LLVMGetAsString(self.raw, &mut len);
            let bytes = std::slice::from_raw_parts(data.cast::<u8>(), len);
            matches!(bytes.split_last(), Some((0, rest)) if !rest.contains(&0))
        }
    }

    /// The global this constant names, through casts and GEPs (the first
    /// operand of constant expressions); `None` for anything else.
    pub fn underlying_global(self) -> Option<Global<'m>> {
        let mut current = self;
        for _ in 0..64 {
            match current.classify() {
                Operand::Global(g) | Operand::NoCfi(g) => return Some(g),
                Operand::Aggregate(expr) => current = expr.operands().next()?,
                _ => return None,
            }
        }
        None
    }

    /// The operands of a user (instruction or constant); none for any other
    /// value (an argument, a block, inline asm, metadata).
    pub fn operands(self) -> impl Iterator<Item = Value<'m>> {
        // SAFETY: raw is a live value; the operand count is asked of users
        // only, and indices are within it.
        let is_user = unsafe { !LLVMIsAUser(self.raw).is_null() };
        let count = if is_user { unsafe { LLVMGetNumOperands(self.raw) }.max(0) as u32 } else { 0 };
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

/// What one walk of a function body finds (see [`Global::body_uses`]).
pub struct BodyUses<'m> {
    /// Its instructions, debug intrinsics not counted.
    pub code: u32,
    /// Those of them that do not only access a local variable: not an
    /// `alloca`, a load from or store to one, or a lifetime marker
    /// (what promoting local variables to registers removes, which
    /// unoptimized code is full of).
    pub inline_size: u32,
    /// Branches from a block to itself or to one before it in the body's
    /// order: its loops' back edges, as front ends lay loops out.
    pub back_edges: u32,
    pub uses: Vec<BodyUse<'m>>,
}

/// Room for the uses of one function body after another (see
/// [`Global::body_uses`]): grown to the most a body has used, so that a
/// body is walked again only when it uses more than any before it.
pub struct BodyUseBuffer(Vec<RawBodyUse>);

impl Default for BodyUseBuffer {
    fn default() -> Self {
        BodyUseBuffer(Vec::with_capacity(256))
    }
}

/// A value a function body uses that may name a global, once per body and
/// role (`call @f(ptr @f)` gives both a `Callee` and an `Operand`).
pub enum BodyUse<'m> {
    /// A constant other than plain data, or inline asm, used anywhere but
    /// as a call's called operand: arguments and bundle operands included.
    Operand(Value<'m>),
    /// The called operand of a call, invoke or callbr.
    Callee(Value<'m>),
    IndirectCall(IndirectCall<'m>),
}

/// A call of a function body whose callee is not named directly (not a
/// global, `no_cfi`, `dso_local_equivalent` or inline asm), with metadata
/// attached: what [`Global::body_uses`] lists for metadata to be read.
pub struct IndirectCall<'m> {
    value: Value<'m>,
}

impl<'m> IndirectCall<'m> {
    /// The metadata node attached under `kind`, if any.
    pub fn metadata(&self, kind: u32) -> Option<MdNode<'m>> {
        // SAFETY: value is a live instruction; the shim only reads.
        MdNode::new(unsafe { mtpc_instruction_metadata(self.value.raw, kind) })
    }
}

/// An enum attribute's kind (`noinline`), looked up by name once: the
/// lookup compares the name with every attribute's.
#[derive(Clone, Copy)]
pub struct AttributeKind(u32);

impl AttributeKind {
    pub fn named(name: &str) -> AttributeKind {
        // SAFETY: LLVM reads `name.len()` bytes of the name.
        AttributeKind(unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len()) })
    }
}

/// Fills `out` (cleared first) from a shim function that writes at most
/// `capacity` items at a pointer and returns how many there are: called
/// again with room for them all when they did not fit.
///
/// # Safety
/// `fill(ptr, capacity)` must write its first `min(n, capacity)` items at
/// `ptr` and return `n`, the same `n` on every call.
unsafe fn fill_from_shim<T>(out: &mut Vec<T>, mut fill: impl FnMut(*mut T, usize) -> usize) {
    out.clear();
    loop {
        let n = fill(out.as_mut_ptr(), out.capacity());
        if n <= out.capacity() {
            // SAFETY: the first n were written (the caller's promise).
            unsafe { out.set_len(n) };
            return;
        }
        out.reserve_exact(n);
    }
}

/// A metadata node, read in place: nothing is created in the context to
/// look at it (unlike LLVM-C's metadata-as-value accessors).
#[derive(Clone, Copy)]
pub struct MdNode<'m> {
    pub(super) raw: LLVMMetadataRef,
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
    pub(super) fn new(raw: LLVMMetadataRef) -> Option<Self> {
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


impl<'m> Global<'m> {
    pub(super) fn new(raw: LLVMValueRef) -> Self {
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

    /// Whether the function or variable is in a `nodeduplicate` COMDAT: on
    /// ELF a section group that is no COMDAT (the linker keeps every copy).
    pub fn comdat_is_nodeduplicate(self) -> bool {
        if !matches!(self.kind(), GlobalKind::Function | GlobalKind::Variable) {
            return false;
        }
        // SAFETY: LLVMGetComdat returns null when there is none; a comdat it
        // returns is the module's.
        unsafe {
            let c = LLVMGetComdat(self.raw);
            !c.is_null()
                && matches!(LLVMGetComdatSelectionKind(c), LLVMComdatSelectionKind::LLVMNoDuplicatesComdatSelectionKind)
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

    /// A variable or an alias with a thread-local mode (an alias's is its
    /// own: accesses through it use it).
    pub fn is_thread_local(self) -> bool {
        // SAFETY: raw is a live global value.
        unsafe { mtpc_is_thread_local(self.raw) }
    }

    /// Does clang ask AddressSanitizer to treat this global as dynamically
    /// initialized (`sanitize_address_dyninit`: a C++ global with a
    /// constructor, which ASan's checks of initialization order poison
    /// while other modules' constructors run)?
    pub fn is_asan_dynamic_init(self) -> bool {
        // SAFETY: raw is a live global value.
        unsafe { mtpc_is_asan_dynamic_init(self.raw) }
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

    /// The operands of metadata attached to a global under `kind` (e.g.
    /// `!associated`). Only reads.
    pub fn attached_metadata_operands(self, kind: u32) -> Vec<MdOperand<'m>> {
        // Room for one node: a kind is attached once but for a few (`!type`).
        let mut nodes: Vec<LLVMMetadataRef> = Vec::with_capacity(1);
        // SAFETY: raw is a live global; the shim writes at most `capacity`
        // nodes, returns how many there are, and only reads.
        unsafe { fill_from_shim(&mut nodes, |at, capacity| mtpc_global_metadata(self.raw, kind, at, capacity)) };
        nodes.into_iter().filter_map(MdNode::new).flat_map(MdNode::operands).collect()
    }

    pub fn erase_metadata(self, kind: u32) {
        // SAFETY: raw is a live global object.
        unsafe { LLVMGlobalEraseMetadata(self.raw, kind) }
    }

    /// True if the function carries the enum attribute `kind`.
    pub fn has_fn_attribute(self, kind: AttributeKind) -> bool {
        // SAFETY: index -1 is the function itself.
        unsafe { !LLVMGetEnumAttributeAtIndex(self.raw, u32::MAX, kind.0).is_null() }
    }

    /// True for a function with a garbage collector strategy (`gc "NAME"`).
    pub fn has_gc(self) -> bool {
        // SAFETY: raw is a live global value, checked to be a function.
        self.kind() == GlobalKind::Function && unsafe { !LLVMGetGC(self.raw).is_null() }
    }

    /// True if the function carries the string attribute `key`
    /// (e.g. `patchable-function-entry`), whatever its value.
    pub fn has_fn_string_attribute(self, key: &str) -> bool {
        // SAFETY: the key is passed with its length; index -1 is the function itself.
        unsafe { !LLVMGetStringAttributeAtIndex(self.raw, u32::MAX, key.as_ptr().cast(), key.len() as u32).is_null() }
    }

    /// Whether any metadata of the context names this global (a C++
    /// template parameter's value, a debug variable's location, a callee
    /// list), including nodes nothing reaches any longer. Only reads.
    pub fn named_by_metadata(self) -> bool {
        // SAFETY: raw is a live global value; the shim only looks it up.
        unsafe { mtpc_named_by_metadata(self.raw) }
    }

    /// The globals this function's debug variable locations name
    /// (`llvm.dbg.value(metadata ptr @g, ...)` or its debug record), seen
    /// through constant expressions as [`Value::underlying_global`] sees
    /// them: not uses, which LLVM does not count. Only reads.
    pub fn debug_location_globals(self) -> Vec<Global<'m>> {
        // Room for what a function names (few), so that one walk is enough.
        let mut out: Vec<LLVMValueRef> = Vec::with_capacity(8);
        // SAFETY: self is a live function; the shim writes at most
        // `capacity` values and returns how many it has.
        unsafe { fill_from_shim(&mut out, |at, capacity| mtpc_debug_location_constants(self.raw, at, capacity)) };
        out.into_iter().filter_map(|v| Value::new(v).underlying_global()).collect()
    }

    /// The uses of this function's body that may name a global, and its
    /// sizes, in one walk (the shim's `mtpc_body_uses`), read through
    /// `buffer`. Only reads.
    pub fn body_uses(self, buffer: &mut BodyUseBuffer) -> BodyUses<'m> {
        let out = &mut buffer.0;
        let mut counts = RawBodyCounts { code: 0, inline_size: 0, back_edges: 0 };
        // SAFETY: self is a live function; the shim writes at most
        // `capacity` uses and returns how many there are.
        unsafe { fill_from_shim(out, |at, capacity| mtpc_body_uses(self.raw, at, capacity, &mut counts)) };
        let uses = out
            .drain(..)
            .map(|u| {
                let value = Value::new(u.value);
                match u.role {
                    USE_OPERAND => BodyUse::Operand(value),
                    USE_CALLEE => BodyUse::Callee(value),
                    USE_INDIRECT_CALL => BodyUse::IndirectCall(IndirectCall { value }),
                    other => unreachable!("the shim's mtpc_body_uses reports no use role {other}"),
                }
            })
            .collect();
        BodyUses { code: counts.code, inline_size: counts.inline_size, back_edges: counts.back_edges, uses }
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

    /// A key for this global that outlives the handle (to find it again in a
    /// [`super::GlobalTable`]); it cannot be used to reach the global.
    pub fn id(self) -> GlobalKey {
        GlobalKey(self.raw as usize)
    }
}

/// Identifies a global of one module while the module lives; only compared.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct GlobalKey(usize);

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
        // Legacy values LLVM (16 and later) never produces for IR it reads.
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
