//! What the split needs to know about a module, read once into plain Rust.
//!
//! Planning and the symbol rules work on [`ModuleFacts`] only, so they can be
//! unit-tested without LLVM and are independent of the context the module
//! lives in. Globals are identified by their position ([`GlobalId`]), which
//! bitcode preserves, so unnamed globals are handled like named ones.

use std::collections::BTreeSet;

use crate::ir::{AttributeKind, BodyUse, BodyUseBuffer, Global, GlobalKind, IndirectCall, MdOperand, ModuleRef, Operand, Value};
use crate::{FastHashMap as HashMap, FastHashSet as HashSet};

/// Linkage, mirroring LLVM's `GlobalValue::LinkageTypes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    External,
    AvailableExternally,
    LinkOnceAny,
    LinkOnceOdr,
    WeakAny,
    WeakOdr,
    Appending,
    Internal,
    Private,
    ExternalWeak,
    Common,
}

impl Linkage {
    pub fn is_local(self) -> bool {
        matches!(self, Linkage::Internal | Linkage::Private)
    }
    /// May the definition be dropped when nothing in its object uses it?
    pub fn is_discardable(self) -> bool {
        matches!(
            self,
            Linkage::Internal
                | Linkage::Private
                | Linkage::LinkOnceAny
                | Linkage::LinkOnceOdr
                | Linkage::AvailableExternally
        )
    }
    /// Can the definition be replaced at link time by a different one?
    pub fn is_interposable(self) -> bool {
        matches!(
            self,
            Linkage::LinkOnceAny | Linkage::WeakAny | Linkage::ExternalWeak | Linkage::Common
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    Default,
    Hidden,
    Protected,
}

/// A global's position: its kind and index in the module's list of that kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId {
    pub kind: GlobalKind,
    pub index: u32,
}

/// The role of an `appending` array the compiler gives meaning to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecialArray {
    /// `llvm.used`, `llvm.compiler.used`: keep these members alive.
    Used,
    /// `llvm.global_ctors`, `llvm.global_dtors` and any other appending array.
    PrimaryOnly,
}

/// How one global refers to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RefKind {
    /// A direct call.
    Call,
    /// A possible target of an indirect call, from `!callees` or value-profile metadata.
    IndirectCall,
    /// Any other use: address taken, initializer reference, load or store.
    Ref,
    /// Named by a function's metadata that the code generator emits with
    /// it (`!func_sanitize`'s type info proxy): every copy of the function
    /// needs it, and metadata does not keep a global alive.
    Metadata,
}

/// Everything the split decides on about one global value.
#[derive(Clone, Debug)]
pub struct GlobalFacts {
    pub id: GlobalId,
    /// Empty for an unnamed global.
    pub name: String,
    pub linkage: Linkage,
    pub visibility: Visibility,
    pub dso_local: bool,
    /// Function with a body or variable with an initializer; aliases and
    /// ifuncs are definitions too.
    pub is_definition: bool,
    /// COMDAT group (an index into `ModuleFacts::comdat_count`).
    pub comdat: Option<u32>,
    pub section: Option<String>,
    /// A variable or an alias with a thread-local mode of its own.
    pub thread_local: bool,
    /// A variable definition, not thread-local, that clang asks
    /// AddressSanitizer to treat as dynamically initialized
    /// (`sanitize_address_dyninit`: a C++ global with a constructor); the
    /// plan keeps it with the module's constructors
    /// (`partition_plan::groups`).
    pub asan_dynamic_init: bool,
    pub is_constant: bool,
    pub unnamed_addr: bool,
    /// IR instructions of a function body, debug intrinsics not counted
    /// (the cost model's unit).
    pub instructions: u32,
    /// What the body's size will be when the inliner weighs it as a
    /// callee: its instructions once its local variables live in registers
    /// (all but those that only access them, see
    /// [`BodyUses::inline_size`](crate::ir::BodyUses::inline_size):
    /// unoptimized code is mostly such accesses), plus the `inline_size` of
    /// each local function only it calls, once (which the inliner takes
    /// into it first, whatever its size). What the copy limits compare.
    pub inline_size: u32,
    /// Back edges of a function body's loops (branches to the block itself
    /// or an earlier one, in the body's order): what the plan weighs
    /// besides the instructions (`partition_plan::function_work`).
    pub back_edges: u32,
    /// Bytes of a variable's value.
    pub size: u64,
    /// Globals referenced by this one's body, initializer or target, sorted.
    pub refs: Vec<(u32, RefKind)>,
    /// Globals this function's debug variable locations name
    /// (`llvm.dbg.value(metadata ptr @g, ...)`, found in optimized input:
    /// ThinLTO and full LTO backends), sorted. Not uses: they never bind
    /// the plan, which stays what it is without `-g`; a partition holding
    /// the function declares those it can (`symbol_rules`), so that its IR
    /// keeps the location.
    pub debug_locations: Vec<u32>,
    /// With debug information, a function or variable definition that
    /// metadata names outside any body it could bind (a C++ template
    /// parameter's value, `template <void (*F)()> struct S`, whose
    /// description gives its address): a partition that describes the
    /// type where the definition is another's declares it and keeps the
    /// declaration (`symbol_rules`), so that the value stays, as in
    /// stock's object. Not a use either.
    pub named_by_metadata: bool,
    /// Functions whose `blockaddress` this global uses.
    pub block_address_of: Vec<u32>,
    /// Globals this one names through `no_cfi` (also in `refs`).
    pub no_cfi_of: Vec<u32>,
    /// The global named by `!associated`.
    pub associated: Option<u32>,
    /// For aliases: the base object; for ifuncs: the resolver.
    pub target: Option<u32>,
    /// For aliases: neither it nor what it stands for (its aliasee, through
    /// any aliases in between) can be replaced at link time by another
    /// object's definition, and the optimizer resolves it
    /// (`ModuleFacts::mark_bound_aliases`).
    pub bound_to_aliasee: bool,
    /// A variable's initializer (a table of string literals) or an alias
    /// holds this global's address: a copy of that variable in another
    /// partition must point where the original does
    /// (`ModuleFacts::mark_addresses_in_data`; `llvm.used` and
    /// `llvm.compiler.used` only keep their members, and do not count).
    pub address_in_data: bool,
    /// A local `unnamed_addr` constant whose value is a C string
    /// (`Value::is_c_string`; false for any other global): the code
    /// generator puts it in a mergeable string section, whose equal strings
    /// the linker stores once.
    pub c_string: bool,
    /// Function attributes that matter for copying bodies.
    pub no_inline: bool,
    pub always_inline: bool,
    pub inline_hint: bool,
    /// Function whose body contains inline asm naming a local symbol.
    pub asm_local_refs: Vec<u32>,
    pub special: Option<SpecialArray>,
}

impl GlobalFacts {
    pub fn is_function(&self) -> bool {
        self.id.kind == GlobalKind::Function
    }
    pub fn is_variable(&self) -> bool {
        self.id.kind == GlobalKind::Variable
    }
    /// A strong alias may be resolved to its aliasee: it cannot be replaced
    /// at link time.
    pub fn is_strong_alias(&self) -> bool {
        self.id.kind == GlobalKind::Alias
            && matches!(self.linkage, Linkage::External | Linkage::Internal | Linkage::Private)
    }
    /// Whether a partition that only refers to this alias resolves it to
    /// its aliasee, as GlobalOpt resolves it in the whole module: yes if it
    /// is strong, or ODR (`weak_odr`, `linkonce_odr`: the complete-object
    /// constructor of an explicit instantiation, an alias of its
    /// base-object one) where GlobalOpt resolves those
    /// ([`ModuleFacts::odr_aliases_resolved`]), unless it is thread-local,
    /// or the linker may bind its aliasee elsewhere; then it is declared as
    /// itself (and calls through it are not inlined).
    /// Accesses through a thread-local alias use its own model, not its
    /// aliasee's: resolved, a general-dynamic alias of a local-exec variable
    /// would give code that cannot link into a shared library. An alias
    /// always stands for this object's definition: resolved to a weak
    /// aliasee that another object overrides, its users would call the
    /// other definition (as LLVM's GlobalOpt, which never resolves an
    /// alias of an interposable aliasee, knows).
    pub fn resolves_to_aliasee(&self) -> bool {
        self.id.kind == GlobalKind::Alias && !self.thread_local && self.bound_to_aliasee
    }
    pub fn display_name(&self) -> String {
        if self.name.is_empty() {
            format!("<unnamed {:?} #{}>", self.id.kind, self.id.index)
        } else {
            self.name.clone()
        }
    }
}

/// The module as the split sees it. `globals` are in a fixed order:
/// functions, variables, aliases, ifuncs, each in module order.
#[derive(Clone, Debug, Default)]
pub struct ModuleFacts {
    pub source_filename: String,
    /// A digest of the module's whole content (its bitcode's), which names
    /// promoted locals: two modules that differ in anything promote to
    /// different names (0 until the module is to be split).
    pub content_digest: u64,
    pub globals: Vec<GlobalFacts>,
    pub comdat_count: u32,
    /// Per COMDAT group: `nodeduplicate`, on ELF a section group that is no
    /// COMDAT, whose every copy the linker keeps (a ThinLTO backend gives
    /// ASan's local globals one each, with their descriptors). Empty where
    /// no group is.
    pub comdat_nodeduplicate: Vec<bool>,
    /// Local globals that module-level inline asm names.
    pub module_asm_locals: Vec<u32>,
    pub has_module_asm: bool,
    /// Some function's inline asm may give a symbol a value (`.set`, `=`).
    pub inline_asm_assigns: bool,
    /// Some function's inline asm may write a GNU property note.
    pub inline_asm_notes: bool,
    /// Some function asks for a section the code generator links to the
    /// function's (patchable entries, XRay's map).
    pub linked_order_functions: bool,
    /// Some function is compiled for segmented stacks (`-fsplit-stack`).
    pub split_stack_functions: bool,
    /// Some function names a garbage collector strategy (`gc "NAME"`).
    pub gc_functions: bool,
    /// PIC without PIE: default-visibility symbols may be preempted.
    pub is_shared_library_code: bool,
    /// Local functions and aliases with a library function's name
    /// (`memcpy`, `puts`: LLVM's TargetLibraryInfo knows it for the
    /// module's target), which take the calls the code generator and the
    /// optimizer make by that name (`decline::module_reason`), sorted.
    pub library_named_locals: Vec<u32>,
    /// The module asks for semantic interposition (`-fsemantic-interposition`:
    /// the "SemanticInterposition" module flag): a default-visibility
    /// definition not `dso_local` may be replaced at link time.
    pub semantic_interposition: bool,
    /// The optimizer resolves a use of an ODR alias (`weak_odr`,
    /// `linkonce_odr`) to its aliasee, as LLVM 16's GlobalOpt does; from
    /// LLVM 17 it keeps the alias (only strong aliases are resolved).
    pub odr_aliases_resolved: bool,
    /// What the split may copy into the partitions that use it
    /// (`symbol_rules::copy_limits`; none for partitions that only
    /// generate code).
    pub copy_limits: crate::symbol_rules::CopyLimits,
    /// Each global's cycle of direct calls (`call_graph::call_cycles`),
    /// worked out when first asked: the globals and what they refer to do
    /// not change once collected.
    pub(crate) call_cycles: once_cell::sync::OnceCell<Vec<Option<u32>>>,
}

impl ModuleFacts {
    /// Can global `i`'s definition be replaced at link time by another
    /// object's (LLVM's `GlobalValue::isInterposable`)?
    pub fn is_interposable(&self, i: usize) -> bool {
        let g = &self.globals[i];
        g.linkage.is_interposable() || (self.semantic_interposition && !g.dso_local && !g.linkage.is_local())
    }

    /// Sets [`GlobalFacts::bound_to_aliasee`] of every alias, as GlobalOpt
    /// decides to resolve one: the alias is strong (or ODR, where GlobalOpt
    /// resolves those: [`ModuleFacts::odr_aliases_resolved`]); it, the
    /// aliases it stands for in turn and its base object are bound within
    /// the object (`dso_local` or local: in `-fPIC` code an alias that is
    /// not may be interposed by another library's definition) and none is
    /// interposable. (The verifier refuses cycles of aliases; the depth
    /// limit only bounds the walk.)
    pub fn mark_bound_aliases(&mut self) {
        fn bound(facts: &ModuleFacts, i: usize, depth: u32) -> bool {
            let g = &facts.globals[i];
            let alias = g.id.kind == GlobalKind::Alias;
            let odr = matches!(g.linkage, Linkage::WeakOdr | Linkage::LinkOnceOdr);
            // GlobalOpt resolves the alias itself by its linkage, and what it
            // stands for one step at a time: an ODR alias it keeps may stand
            // behind a strong one it resolves.
            let resolved = depth > 0 || g.is_strong_alias() || (odr && facts.odr_aliases_resolved);
            depth < 64
                && !facts.is_interposable(i)
                && (g.dso_local || g.linkage.is_local())
                && (!alias || resolved)
                && (!alias || g.refs.iter().all(|&(r, _)| bound(facts, r as usize, depth + 1)))
        }
        let marks: Vec<bool> =
            (0..self.globals.len()).map(|i| self.globals[i].id.kind == GlobalKind::Alias && bound(self, i, 0)).collect();
        for (g, mark) in self.globals.iter_mut().zip(marks) {
            g.bound_to_aliasee = mark;
        }
    }

    /// Sets `address_in_data` on every global a variable's initializer or
    /// an alias refers to; not `llvm.used` and `llvm.compiler.used`, which
    /// only keep their members (clang lists there the type info proxy of
    /// every function `-fsanitize=function` checks, which each partition
    /// holding such a function copies: see
    /// `symbol_rules::Rules::copy_named_constant_locally`).
    pub fn mark_addresses_in_data(&mut self) {
        let mut marks = vec![false; self.globals.len()];
        let in_data = |g: &&GlobalFacts| (g.is_variable() || g.id.kind == GlobalKind::Alias) && g.special != Some(SpecialArray::Used);
        for g in self.globals.iter().filter(in_data) {
            for &(r, _) in &g.refs {
                marks[r as usize] = true;
            }
        }
        for (g, mark) in self.globals.iter_mut().zip(marks) {
            g.address_in_data = mark;
        }
    }

    /// The COMDAT of global `i`; an alias has none of its own but is in its
    /// aliasee's group (the assembler defines it in the aliasee's section).
    pub fn comdat_of(&self, i: usize) -> Option<u32> {
        let g = &self.globals[i];
        match g.id.kind {
            GlobalKind::Alias => g.target.and_then(|t| self.globals[t as usize].comdat),
            _ => g.comdat,
        }
    }

    /// Some definition is linked to another global's section
    /// (`!associated`) and in a `nodeduplicate` COMDAT, a section group
    /// that is no COMDAT on ELF (ASan's descriptors of local globals in a
    /// ThinLTO backend): LLVM 16 prints such a section in a form its own
    /// assembler cannot read (`decline::printed_text_reason`).
    pub fn has_linked_sections_in_plain_groups(&self) -> bool {
        self.globals.iter().enumerate().any(|(i, g)| {
            g.is_definition && g.associated.is_some() && g.comdat.is_some() && self.discardable_comdat_of(i).is_none()
        })
    }

    /// [`Self::comdat_of`], if the linker may discard that group for
    /// another object's copy: any group but a `nodeduplicate` one. A local
    /// in such a group cannot be promoted (another partition's reference
    /// to it would dangle where the group is discarded); one in a
    /// `nodeduplicate` group can.
    pub fn discardable_comdat_of(&self, i: usize) -> Option<u32> {
        self.comdat_of(i).filter(|&c| !self.comdat_nodeduplicate.get(c as usize).copied().unwrap_or(false))
    }

    /// The names of the functions `llvm.global_ctors` lists: the module's
    /// own global constructors.
    pub fn constructor_names(&self) -> Vec<String> {
        let lists = self.globals.iter().filter(|g| g.name == "llvm.global_ctors");
        lists.flat_map(|g| g.refs.iter().map(|&(r, _)| self.globals[r as usize].name.clone())).collect()
    }

    pub fn total_instructions(&self) -> u64 {
        self.globals.iter().map(|g| u64::from(g.instructions)).sum()
    }

    /// Bytes of the initializers of the variables the module defines and
    /// emits (`available_externally` ones are not emitted).
    pub fn data_bytes(&self) -> u64 {
        let emitted = |g: &&GlobalFacts| g.is_variable() && g.is_definition && g.linkage != Linkage::AvailableExternally;
        self.globals.iter().filter(emitted).map(|g| g.size).sum()
    }

    /// (callee, caller) for each local function whose only user is one other
    /// function, which calls it (no address taken anywhere): the inliner
    /// takes such a callee into its caller whatever its size, and deletes
    /// it.
    pub fn sole_callers(&self) -> Vec<(usize, usize)> {
        const NONE: usize = usize::MAX;
        const MANY: usize = usize::MAX - 1;
        let mut user = vec![NONE; self.globals.len()];
        for (i, g) in self.globals.iter().enumerate() {
            for &(r, kind) in &g.refs {
                let u = &mut user[r as usize];
                *u = match (*u, kind) {
                    (_, k) if k != RefKind::Call || !g.is_function() => MANY,
                    (NONE, _) => i,
                    (same, _) if same == i => i,
                    _ => MANY,
                };
            }
        }
        self.globals
            .iter()
            .enumerate()
            .filter(|(i, g)| g.is_function() && g.is_definition && g.linkage.is_local() && user[*i] < MANY && user[*i] != *i)
            .map(|(i, _)| (i, user[i]))
            .collect()
    }

    /// Those of [`Self::sole_callers`] whose callee the inliner may take
    /// into its caller: not `noinline`, naming no local through inline asm,
    /// in no COMDAT, and not calling its caller back (directly or in turn).
    ///
    /// Within one cycle of direct calls the inliner's order decides: it
    /// often inlines the caller into the caller's own callers first, and
    /// the callee, now called from many places, stays out of line (QuickJS:
    /// `JS_ToFloat64Free` is inlined everywhere, `__JS_ToFloat64Free`, its
    /// only callee, is not). Counted into its caller, such a callee would
    /// make the caller too big to copy, and its calls would stay out of line.
    pub fn inlinable_sole_callers(&self) -> Vec<(usize, usize)> {
        let inlinable = |g: &GlobalFacts| !g.no_inline && g.asm_local_refs.is_empty() && g.comdat.is_none();
        let pairs: Vec<(usize, usize)> =
            self.sole_callers().into_iter().filter(|&(callee, _)| inlinable(&self.globals[callee])).collect();
        if pairs.is_empty() {
            return pairs;
        }
        let cycle = self.call_cycles();
        pairs.into_iter().filter(|&(callee, caller)| cycle[callee].is_none() || cycle[callee] != cycle[caller]).collect()
    }

    /// Each global's cycle of direct calls (`call_graph::call_cycles`).
    pub fn call_cycles(&self) -> &[Option<u32>] {
        self.call_cycles.get_or_init(|| crate::call_graph::call_cycles(self))
    }

    /// The cycles of direct calls with more than one member (mutual
    /// recursion), as global indices: each sorted, in order of their first
    /// member.
    pub fn recursive_sccs(&self) -> Vec<Vec<u32>> {
        let mut sccs: Vec<Vec<u32>> = Vec::new();
        for (i, &cycle) in self.call_cycles().iter().enumerate() {
            if let Some(c) = cycle {
                if sccs.len() <= c as usize {
                    sccs.resize(c as usize + 1, Vec::new());
                }
                sccs[c as usize].push(i as u32);
            }
        }
        sccs
    }

    /// Adds to each function's `inline_size` that of the local functions
    /// only it calls and that may be inlined (in turn with theirs).
    pub(crate) fn add_sole_callees_to_inline_sizes(&mut self) {
        let mut callees: Vec<Vec<usize>> = vec![Vec::new(); self.globals.len()];
        for (callee, caller) in self.inlinable_sole_callers() {
            callees[caller].push(callee);
        }
        // Callees before callers (post-order); a cycle of local functions
        // only calling each other, which nothing else reaches, is cut.
        #[derive(Clone, Copy, PartialEq)]
        enum State {
            New,
            Open,
            Done,
        }
        let mut state = vec![State::New; self.globals.len()];
        for top in 0..self.globals.len() {
            let mut stack = vec![(top, false)];
            while let Some((f, expanded)) = stack.pop() {
                if expanded {
                    let added: u32 = callees[f]
                        .iter()
                        .filter(|&&c| state[c] == State::Done)
                        .map(|&c| self.globals[c].inline_size)
                        .fold(0, u32::saturating_add);
                    self.globals[f].inline_size = self.globals[f].inline_size.saturating_add(added);
                    state[f] = State::Done;
                } else if state[f] == State::New {
                    state[f] = State::Open;
                    stack.push((f, true));
                    stack.extend(callees[f].iter().filter(|&&c| state[c] == State::New).map(|&c| (c, false)));
                }
            }
        }
    }

    /// Per global, whether some function takes the address of one of its
    /// blocks (`blockaddress`).
    pub fn block_address_taken(&self) -> Vec<bool> {
        let mut taken = vec![false; self.globals.len()];
        for &f in self.globals.iter().flat_map(|g| &g.block_address_of) {
            taken[f as usize] = true;
        }
        taken
    }

    /// The globals inline asm (module asm or a function's) names, which
    /// must keep their names, and the aliases of those: a partition that
    /// only declares an alias (unless thread-local) refers to its aliasee
    /// instead.
    pub fn asm_named(&self) -> Vec<bool> {
        let mut named = vec![false; self.globals.len()];
        for &l in self.module_asm_locals.iter().chain(self.globals.iter().flat_map(|g| &g.asm_local_refs)) {
            named[l as usize] = true;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for (i, g) in self.globals.iter().enumerate() {
                let of_named = g.id.kind == GlobalKind::Alias && g.target.is_some_and(|t| named[t as usize]);
                if of_named && !named[i] {
                    named[i] = true;
                    changed = true;
                }
            }
        }
        named
    }

}

/// The order of kinds in [`ModuleFacts::globals`].
pub const KINDS: [GlobalKind; 4] = [GlobalKind::Function, GlobalKind::Variable, GlobalKind::Alias, GlobalKind::IFunc];

/// Every global value of `module`, in the order [`ModuleFacts::globals`] uses.
pub fn globals_in_fact_order<'a>(module: &'a ModuleRef<'_>) -> Vec<Global<'a>> {
    KINDS.iter().flat_map(|&k| module.globals(k)).collect()
}

/// Reads the facts of a module.
///
/// Changes nothing in the module (metadata is read in place; sizes come
/// from a private data layout). Like every reader of LLVM's IR it may fill
/// caches of the context, so it must not overlap another thread's use of
/// the module (see `split::write_partitions`).
pub fn collect(module: &ModuleRef<'_>, is_shared_library_code: bool) -> ModuleFacts {
    let globals = globals_in_fact_order(module);
    let index: HashMap<Global<'_>, u32> =
        globals.iter().enumerate().map(|(i, g)| (*g, i as u32)).collect();
    let kinds = MdKinds {
        callees: module.md_kind("callees"),
        prof: module.md_kind("prof"),
        associated: module.md_kind("associated"),
        func_sanitize: module.md_kind("func_sanitize"),
    };
    let attributes = InlineAttributes {
        no_inline: AttributeKind::named("noinline"),
        optnone: AttributeKind::named("optnone"),
        always_inline: AttributeKind::named("alwaysinline"),
        inline_hint: AttributeKind::named("inlinehint"),
    };
    let source_filename = module.source_filename();
    let layout = module.data_layout();
    let debug_info = module.has_debug_info();
    let pgo_names = PgoNameIndex { globals: &globals, source_filename: &source_filename, by_hash: Default::default() };
    let local_names = LocalNames { globals: &globals, by_name: Default::default() };

    let mut bodies = BodyUseBuffer::default();
    let mut comdats: HashMap<String, u32> = HashMap::default();
    let mut comdat_nodeduplicate: Vec<bool> = Vec::new();
    let mut per_kind_index = [0u32; 4];
    let (mut inline_asm_assigns, mut inline_asm_notes, mut linked_order_functions) = (false, false, false);
    let (mut split_stack_functions, mut gc_functions) = (false, false);
    let facts: Vec<GlobalFacts> = globals
        .iter()
        .map(|&g| {
            let kind = g.kind();
            let slot = KINDS.iter().position(|&k| k == kind).unwrap_or(0);
            let id = GlobalId { kind, index: per_kind_index[slot] };
            per_kind_index[slot] += 1;
            let next_comdat = comdats.len() as u32;
            let comdat = g.comdat_key().map(|key| *comdats.entry(key).or_insert(next_comdat));
            if comdat == Some(next_comdat) {
                comdat_nodeduplicate.push(g.comdat_is_nodeduplicate());
            }
            let mut walker = RefWalker::new(&index, &local_names);
            let (mut instructions, mut inline_size, mut back_edges) = (0u32, 0u32, 0u32);
            let mut debug_locations = Vec::new();
            let is_definition = !g.is_declaration();
            match kind {
                GlobalKind::Function if is_definition => {
                    // The function's own operands: personality, prefix and prologue data.
                    for op in g.as_value().operands() {
                        walker.walk(op, RefKind::Ref);
                    }
                    for op in g.attached_metadata_operands(kinds.func_sanitize) {
                        if let Some(named) = md_value(&op).and_then(global_of) {
                            walker.add(named, RefKind::Metadata);
                        }
                    }
                    // Debug intrinsics are not code: with them counted, -g
                    // would change the plan and what is copied.
                    let body = g.body_uses(&mut bodies);
                    (instructions, inline_size, back_edges) = (body.code, body.inline_size, body.back_edges);
                    for used in body.uses {
                        match used {
                            BodyUse::Operand(v) => walker.walk(v, RefKind::Ref),
                            BodyUse::Callee(v) => walker.walk(v, RefKind::Call),
                            BodyUse::IndirectCall(call) => walker.walk_indirect_call(&call, &kinds, &pgo_names),
                        }
                    }
                    if debug_info {
                        // Sorted, and once each (@g and a constant offset
                        // from it name the same global).
                        debug_locations = g.debug_location_globals().iter().filter_map(|x| index.get(x).copied()).collect();
                        debug_locations.sort_unstable();
                        debug_locations.dedup();
                    }
                }
                GlobalKind::Variable => {
                    if let Some(init) = g.initializer() {
                        walker.walk(init, RefKind::Ref);
                    }
                }
                GlobalKind::Alias | GlobalKind::IFunc => {
                    if let Some(t) = g.target() {
                        walker.walk(t, RefKind::Ref);
                    }
                }
                _ => {}
            }
            let associated = if kind == GlobalKind::Variable || kind == GlobalKind::Function {
                g.attached_metadata_operands(kinds.associated).into_iter().find_map(|op| match op {
                    MdOperand::Value(v) => global_of(v).and_then(|a| index.get(&a).copied()),
                    _ => None,
                })
            } else {
                None
            };
            let target = match kind {
                GlobalKind::Alias | GlobalKind::IFunc => g
                    .target()
                    .and_then(base_object)
                    .and_then(|b| index.get(&b).copied()),
                _ => None,
            };
            let name = g.name();
            let special = (g.linkage() == Linkage::Appending).then(|| {
                if name == "llvm.used" || name == "llvm.compiler.used" {
                    SpecialArray::Used
                } else {
                    SpecialArray::PrimaryOnly
                }
            });
            let is_function = kind == GlobalKind::Function;
            inline_asm_assigns |= walker.asm_assigns;
            inline_asm_notes |= walker.asm_notes;
            linked_order_functions |= is_function
                && is_definition
                && ["patchable-function-entry", "function-instrument", "xray-instruction-threshold"]
                    .iter()
                    .any(|a| g.has_fn_string_attribute(a));
            split_stack_functions |= is_function && is_definition && g.has_fn_string_attribute("split-stack");
            gc_functions |= is_function && is_definition && g.has_gc();
            let thread_local = g.is_thread_local();
            GlobalFacts {
                id,
                linkage: g.linkage(),
                visibility: g.visibility(),
                dso_local: g.is_dso_local(),
                is_definition,
                comdat,
                section: g.section(),
                thread_local,
                // ASan describes no thread-local variable (C++ `thread_local`
                // is initialized by its wrapper, on the thread's first use).
                asan_dynamic_init: kind == GlobalKind::Variable && is_definition && !thread_local && g.is_asan_dynamic_init(),
                is_constant: g.is_constant(),
                unnamed_addr: g.has_global_unnamed_addr(),
                instructions,
                inline_size,
                back_edges,
                size: if kind == GlobalKind::Variable && is_definition { g.definition_size(&layout) } else { 0 },
                refs: walker.refs.into_iter().collect(),
                debug_locations,
                named_by_metadata: debug_info
                    && is_definition
                    && matches!(kind, GlobalKind::Function | GlobalKind::Variable)
                    && g.named_by_metadata(),
                block_address_of: walker.block_addresses.into_iter().collect(),
                no_cfi_of: walker.no_cfi.into_iter().collect(),
                associated,
                target,
                bound_to_aliasee: false,
                address_in_data: false,
                // Asked only where the answer is used: of local
                // `unnamed_addr` constants (`symbol_rules::is_local_copyable`).
                c_string: kind == GlobalKind::Variable
                    && g.linkage().is_local()
                    && g.is_constant()
                    && g.has_global_unnamed_addr()
                    && g.initializer().is_some_and(|init| init.is_c_string()),
                no_inline: is_function && (g.has_fn_attribute(attributes.no_inline) || g.has_fn_attribute(attributes.optnone)),
                always_inline: is_function && g.has_fn_attribute(attributes.always_inline),
                inline_hint: is_function && g.has_fn_attribute(attributes.inline_hint),
                asm_local_refs: walker.asm_locals.into_iter().collect(),
                special,
                name,
            }
        })
        .collect();

    let module_asm = module.module_asm();
    let module_asm_locals = asm_symbol_tokens(&module_asm)
        .filter_map(|t| local_names.get(t))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let local_callees: Vec<u32> = (0..facts.len() as u32)
        .filter(|&i| {
            let g = &facts[i as usize];
            (g.is_function() || g.id.kind == GlobalKind::Alias) && g.is_definition && g.linkage.is_local()
        })
        .collect();
    let named = module.library_function_names(&local_callees.iter().map(|&i| globals[i as usize]).collect::<Vec<_>>());
    let library_named_locals = local_callees.into_iter().zip(named).filter_map(|(i, named)| named.then_some(i)).collect();
    let mut facts = ModuleFacts {
        source_filename,
        content_digest: 0,
        globals: facts,
        comdat_count: comdats.len() as u32,
        comdat_nodeduplicate,
        module_asm_locals,
        has_module_asm: !module_asm.trim().is_empty(),
        inline_asm_assigns,
        inline_asm_notes,
        linked_order_functions,
        split_stack_functions,
        gc_functions,
        is_shared_library_code,
        library_named_locals,
        semantic_interposition: module.flag("SemanticInterposition").unwrap_or(0) > 0,
        odr_aliases_resolved: crate::ir::llvm_version::MAJOR < 17,
        copy_limits: crate::symbol_rules::copy_limits(),
        call_cycles: Default::default(),
    };
    facts.mark_bound_aliases();
    facts.mark_addresses_in_data();
    facts.add_sole_callees_to_inline_sizes();
    facts
}

/// Whether assembly (module-level, or an inline asm template) may assign a
/// symbol (`.set a, b`, `a = b`): what a part's object leaves out if the
/// value names a symbol another part defines (see `object_writer`). Any
/// mention counts: a directive after a label or a `;`, in any case, in a
/// macro, or an `.include`.
pub fn asm_may_assign_a_symbol(asm: &str) -> bool {
    let asm = asm.to_ascii_lowercase();
    asm.contains('=')
        || [".set", ".equ", ".equiv", ".eqv", ".symver", ".weakref", ".include"]
            .iter()
            .any(|d| asm.match_indices(d).any(|(at, _)| asm.as_bytes().get(at + d.len()).is_some_and(|b| b.is_ascii_whitespace())))
}

/// Whether assembly may write to `.note.gnu.property`, which a part's
/// object transcript leaves to the host (it writes the note of the
/// module's flags, `-fcf-protection`): any mention counts.
pub fn asm_may_write_a_property_note(asm: &str) -> bool {
    asm.to_ascii_lowercase().contains(".note.gnu.property")
}

/// The function attributes that say how a function may be inlined.
struct InlineAttributes {
    no_inline: AttributeKind,
    optnone: AttributeKind,
    always_inline: AttributeKind,
    inline_hint: AttributeKind,
}

struct MdKinds {
    callees: u32,
    prof: u32,
    associated: u32,
    /// `-fsanitize=function`'s type check: its operand is a private proxy
    /// of the function's type info, which every copy of the function needs.
    func_sanitize: u32,
}

fn md_value<'m>(op: &MdOperand<'m>) -> Option<Value<'m>> {
    match op {
        MdOperand::Value(v) => Some(*v),
        _ => None,
    }
}

fn global_of(v: Value<'_>) -> Option<Global<'_>> {
    match v.classify() {
        Operand::Global(g) => Some(g),
        _ => None,
    }
}

/// The global object at the bottom of an alias's target expression
/// (through casts, GEPs and aliases of aliases).
fn base_object(v: Value<'_>) -> Option<Global<'_>> {
    let mut g = v.underlying_global()?;
    for _ in 0..64 {
        if g.kind() != GlobalKind::Alias {
            return Some(g);
        }
        g = g.target()?.underlying_global()?;
    }
    None
}

/// Maps the names of local globals to them, for the symbols assembly
/// names: made the first time assembly asks (most modules have none).
struct LocalNames<'g, 'm> {
    globals: &'g [Global<'m>],
    by_name: std::cell::OnceCell<HashMap<String, u32>>,
}

impl LocalNames<'_, '_> {
    /// The local global named `name`.
    fn get(&self, name: &str) -> Option<u32> {
        self.by_name
            .get_or_init(|| {
                let local = |(_, g): &(usize, &Global<'_>)| g.linkage().is_local() && !g.name().is_empty();
                self.globals.iter().enumerate().filter(local).map(|(i, g)| (g.name(), i as u32)).collect()
            })
            .get(name)
            .copied()
    }
}

/// Maps the MD5 hashes that value-profile metadata uses to functions:
/// made the first time a profile asks (hashing every function's names
/// costs milliseconds a module without profiles need not pay).
struct PgoNameIndex<'g, 'm> {
    globals: &'g [Global<'m>],
    source_filename: &'g str,
    by_hash: std::cell::OnceCell<HashMap<u64, u32>>,
}

impl PgoNameIndex<'_, '_> {
    /// The function whose PGO name hashes to `hash`.
    fn function(&self, hash: u64) -> Option<u32> {
        self.by_hash.get_or_init(|| Self::index(self.globals, self.source_filename)).get(&hash).copied()
    }

    fn index(globals: &[Global<'_>], source_filename: &str) -> HashMap<u64, u32> {
        let mut by_hash = HashMap::default();
        for (i, g) in globals.iter().enumerate() {
            if g.kind() != GlobalKind::Function || g.is_declaration() {
                continue;
            }
            let name = g.name();
            let name = name.strip_prefix('\u{1}').unwrap_or(&name).to_string();
            let mut candidates = vec![name.clone()];
            if g.linkage().is_local() {
                // LLVM 16's getPGOFuncName for local functions.
                candidates.push(format!("{source_filename}:{name}"));
                candidates.push(format!("{source_filename};{name}"));
            }
            for c in candidates {
                by_hash.insert(md5_low64(&c), i as u32);
            }
        }
        by_hash
    }
}

/// The low 64 bits of MD5, as LLVM's `MD5Hash` computes them.
pub fn md5_low64(s: &str) -> u64 {
    let digest = md5::compute(s.as_bytes());
    u64::from_le_bytes(digest.0[..8].try_into().expect("8 bytes"))
}

/// Tokens of an asm text that could name a symbol.
pub fn asm_symbol_tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'))
        .filter(|t| !t.is_empty())
}

struct RefWalker<'a, 'm> {
    index: &'a HashMap<Global<'m>, u32>,
    local_names: &'a LocalNames<'a, 'm>,
    refs: BTreeSet<(u32, RefKind)>,
    block_addresses: BTreeSet<u32>,
    no_cfi: BTreeSet<u32>,
    asm_locals: BTreeSet<u32>,
    /// Inline asm it reaches may give a symbol a value (`.set`, `=`).
    asm_assigns: bool,
    /// Inline asm it reaches may write a GNU property note.
    asm_notes: bool,
    seen: HashSet<Value<'m>>,
}

impl<'a, 'm> RefWalker<'a, 'm> {
    fn new(index: &'a HashMap<Global<'m>, u32>, local_names: &'a LocalNames<'a, 'm>) -> Self {
        RefWalker {
            index,
            local_names,
            refs: BTreeSet::new(),
            block_addresses: BTreeSet::new(),
            no_cfi: BTreeSet::new(),
            asm_locals: BTreeSet::new(),
            asm_assigns: false,
            asm_notes: false,
            seen: Default::default(),
        }
    }

    fn add(&mut self, g: Global<'m>, kind: RefKind) {
        if let Some(&i) = self.index.get(&g) {
            self.refs.insert((i, kind));
        }
    }

    /// Records every global that `v` refers to, through constant expressions.
    fn walk(&mut self, v: Value<'m>, kind: RefKind) {
        match v.classify() {
            Operand::Global(g) => self.add(g, kind),
            Operand::NoCfi(g) => {
                if let Some(&i) = self.index.get(&g) {
                    self.no_cfi.insert(i);
                    self.refs.insert((i, RefKind::Ref));
                }
            }
            Operand::BlockAddress(f) => {
                if let Some(&i) = self.index.get(&f) {
                    self.block_addresses.insert(i);
                    self.refs.insert((i, RefKind::Ref));
                }
            }
            Operand::Aggregate(c) => {
                if self.seen.insert(c) {
                    for op in c.operands() {
                        self.walk(op, RefKind::Ref);
                    }
                }
            }
            Operand::InlineAsm(text) => {
                self.asm_assigns |= asm_may_assign_a_symbol(&text);
                self.asm_notes |= asm_may_write_a_property_note(&text);
                for t in asm_symbol_tokens(&text) {
                    if let Some(i) = self.local_names.get(t) {
                        self.asm_locals.insert(i);
                        self.refs.insert((i, RefKind::Ref));
                    }
                }
            }
            Operand::Data | Operand::Metadata | Operand::Local => {}
        }
    }

    /// An indirect call (see [`BodyUse::IndirectCall`]): its possible
    /// targets, from its metadata.
    fn walk_indirect_call(&mut self, call: &IndirectCall<'m>, kinds: &MdKinds, pgo: &PgoNameIndex<'_, 'm>) {
        if let Some(md) = call.metadata(kinds.callees) {
            for target in md.operands() {
                if let Some(g) = md_value(&target).and_then(global_of) {
                    self.add(g, RefKind::IndirectCall);
                }
            }
        }
        if let Some(md) = call.metadata(kinds.prof) {
            let ops = md.operands();
            let int = |i: usize| ops.get(i).and_then(md_value).and_then(Value::const_int);
            let is_vp = matches!(ops.first(), Some(MdOperand::String(s)) if s == "VP");
            // Value kind 0 is IPVK_IndirectCallTarget (1 is memory-op sizes).
            if is_vp && int(1) == Some(0) {
                // !{!"VP", i32 kind, i64 total, i64 hash, i64 count, ...}
                for hash in (3..ops.len()).step_by(2).filter_map(int) {
                    if let Some(f) = pgo.function(hash) {
                        self.refs.insert((f, RefKind::IndirectCall));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RefKind::*;
    use super::asm_may_assign_a_symbol;
    use crate::test_support::*;

    #[test]
    fn assembly_that_may_assign_a_symbol_is_found() {
        // Module-level asm defining a function by a label is transcribed;
        // one aliasing another symbol is not; nor inline asm that does.
        assert!(!asm_may_assign_a_symbol(".text\n.globl asm_entry\nasm_entry:\n\tjmp asm_helper\n"));
        assert!(!asm_may_assign_a_symbol("nop; movl $$1, %eax"));
        assert!(asm_may_assign_a_symbol(".globl alias\n.set alias, target\n"));
        assert!(asm_may_assign_a_symbol(".globl a; .set a, b"));
        assert!(asm_may_assign_a_symbol("l: .SET a, b"));
        assert!(asm_may_assign_a_symbol(".macro m x,y\n.equ \\x,\\y\n.endm"));
        assert!(asm_may_assign_a_symbol(".include \"defs.s\""));
        assert!(asm_may_assign_a_symbol("a = b + 4"));
        assert!(asm_may_assign_a_symbol(".symver foo, foo@V1"));
        assert!(!asm_may_assign_a_symbol(".settings:\n\tret\n"));
    }


    #[test]
    fn sole_callers_are_local_functions_one_other_function_only_calls() {
        // b's only user is a, c's is b; d has two callers; g only calls
        // itself; h's address is taken; i's and k's only user both calls
        // them and takes their address (`call @i(ptr @i)`), whichever of
        // the two it records first.
        let facts = module(vec![
            func("a", 10, &[(1, Call), (3, Call)]),
            internal(func("b", 10, &[(2, Call)])),
            internal(func("c", 10, &[])),
            internal(func("d", 10, &[])),
            func("e", 10, &[(3, Call)]),
            internal(func("g", 10, &[(5, Call)])),
            internal(func("h", 10, &[])),
            func("f", 10, &[(6, Ref)]),
            internal(func("i", 10, &[])),
            func("j", 10, &[(8, Call), (8, Ref)]),
            internal(func("k", 10, &[])),
            func("l", 10, &[(10, Ref), (10, Call)]),
        ]);
        assert_eq!(facts.sole_callers(), vec![(1, 0), (2, 1)]);
    }

    #[test]
    fn inline_size_counts_inlinable_sole_callees_in_turn() {
        // a -> b -> c, each b and c local and only called there: a's inline
        // size holds all three; n is noinline, so x's does not hold it.
        let mut n = internal(func("n", 500, &[]));
        n.no_inline = true;
        let facts = module(vec![
            func("a", 10, &[(1, Call)]),
            internal(func("b", 20, &[(2, Call)])),
            internal(func("c", 30, &[])),
            func("x", 5, &[(4, Call)]),
            n,
        ]);
        let sizes: Vec<u32> = facts.globals.iter().map(|g| g.inline_size).collect();
        assert_eq!(sizes, vec![60, 50, 30, 5, 500]);
        assert_eq!(facts.inlinable_sole_callers(), vec![(1, 0), (2, 1)]);
    }

    #[test]
    fn a_sole_callee_that_calls_its_caller_back_is_not_counted_into_it() {
        // a -> b -> c -> a: b and c are local and only called once, but in
        // one cycle with their callers; d is c's sole callee outside the
        // cycle. Only d is counted into c, and no one into a or b.
        let facts = module(vec![
            func("a", 10, &[(1, Call)]),
            internal(func("b", 20, &[(2, Call)])),
            internal(func("c", 30, &[(0, Call), (3, Call)])),
            internal(func("d", 40, &[])),
        ]);
        assert_eq!(facts.sole_callers(), vec![(1, 0), (2, 1), (3, 2)]);
        assert_eq!(facts.inlinable_sole_callers(), vec![(3, 2)]);
        let sizes: Vec<u32> = facts.globals.iter().map(|g| g.inline_size).collect();
        assert_eq!(sizes, vec![10, 20, 70, 40]);
    }
}
