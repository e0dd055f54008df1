//! What each global becomes in each partition: the RFC's linkage tables
//! (sections 5.2 and 5.3) and the cases real code adds to them.
//!
//! | input | owner partition | a partition that refers to it |
//! |---|---|---|
//! | external function | defined | `available_externally` if worth inlining and the C++ inline and template code it brings along is small, else declared |
//! | internal/private, used by one partition | kept local | — |
//! | internal function only one other function calls and whose address nothing takes (not even that caller: `f(f)`), which may be inlined and does not call it back | kept local | a local copy wherever that caller is copied (see [`sole_callees`]) |
//! | internal/private, used by several | promoted: renamed, external, hidden | as for external |
//! | private `unnamed_addr` C string no variable or alias points to | kept local | its own local copy |
//! | internal function used by several, within the copy limits | promoted, `linkonce_odr` (discardable) | a discardable copy (see [`crate::odr_copies`]) |
//! | `linkonce_odr` / `linkonce` COMDAT group nothing ties to one place (inline functions, templates, vtables, static locals; see [`crate::odr_copies`]) | a discardable copy | a discardable copy; after optimization, one partition emits what survives |
//! | any other `linkonce_odr` / `linkonce` used by several | `weak_odr` (cannot be discarded) | as for external |
//! | external variable | defined | declared; `available_externally` if constant and small (loads fold, vtables devirtualize) |
//! | `available_externally` input | — | cloned |
//! | declarations, `extern_weak` | — | declared as they were |
//! | targets of indirect calls (`!callees`, value profile) | — | declared even if unused, so indirect-call promotion finds them |
//! | local constant a function's `!func_sanitize` names (its type info proxy) | kept local | its own local copy (metadata does not keep a global alive) |
//! | strong alias | with its aliasee | uses resolved to the aliasee; a thread-local one declared (its own TLS model) |
//! | `weak_odr` / `linkonce_odr` alias (an explicit instantiation's constructor) | with its aliasee, in the primary | LLVM 16: uses resolved to the aliasee, as its GlobalOpt resolves them in the whole module; from 17 declared, as weak aliases |
//! | weak alias | with its aliasee, in the primary | declared |
//! | ifunc | with its resolver, in the primary | declared |
//! | `llvm.global_ctors`/`dtors`, other appending arrays | primary only | dropped |
//! | `llvm.used`/`llvm.compiler.used` | the entries each partition defines | |
//! | module-level inline asm | primary only | dropped |
//!
//! Visibility and `dso_local` are kept, except that a declaration of a
//! default-visibility symbol in shared-library code is not `dso_local` (the
//! dynamic linker may preempt it). COMDATs stay whole with their owner;
//! copies and declarations leave the group.
//!
//! One departure from the RFC's table: it gives other partitions an
//! `available_externally` copy of an ifunc's resolver, which makes the
//! resolver external. Callers only ever use the ifunc's declaration, so
//! that copy would be unreferenced and deleted, and the promotion would
//! only add a symbol; mtpc leaves the resolver alone.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::ir::GlobalKind;
use crate::module_facts::{GlobalFacts, Linkage, ModuleFacts, RefKind, SpecialArray, Visibility};
use crate::odr_copies::OdrGroups;
use crate::partition_plan::PartitionPlan;

/// What is copied into the partitions that use it, by size. Function sizes
/// are [`GlobalFacts::inline_size`]s: instructions once local variables
/// live in registers, which is what the inliner weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyLimits {
    /// Function bodies are copied at all: not where the partitions only
    /// generate code (an optimized module's), as no inliner needs them.
    pub functions: bool,
    /// Bodies up to this size are copied to the partitions that call them,
    /// so the inliner still sees them. Larger ones would rarely be inlined
    /// and copying them only repeats work.
    pub function: u32,
    /// The limit for functions marked `inline` (`inlinehint`).
    pub inline_hint: u32,
    /// Local functions (C's `static`) up to this size that several
    /// partitions use are copied, discardable, into each (see
    /// `odr_copies`); larger ones are promoted to one external definition.
    pub local_function: u32,
    /// What the copies of local functions within `local_function` but not
    /// worth copying as any callee (`function`, `inline_hint`) may add to
    /// the partitions' work, in thousandths of the module's instructions
    /// (see `OdrGroups::limit_local_copies`): the smallest are copied first.
    /// A split into many partitions would otherwise repeat each such
    /// function in most of them (sqlite3 at 16 partitions: 15 % more CPU
    /// than with none of them copied).
    pub local_copies_per_mille: u32,
    /// Constant variables up to this many bytes are copied so loads from
    /// them fold.
    pub constant_bytes: u64,
    /// C++ inline and template functions up to this size are copied with
    /// their COMDAT group into every partition that uses them (see
    /// `odr_copies`): a copy costs optimization work only, never code
    /// generation (one partition emits the group). None by default: a
    /// group one partition owned and the others only declared would keep
    /// its body even where stock's whole module inlined every call.
    pub odr_function: u32,
    /// A function or constant copied by the limits above brings along the
    /// C++ inline and template groups it uses (a partition that holds a
    /// body must hold what the body calls). It is copied only if those the
    /// partition does not hold already weigh at most this many
    /// instructions; else it is declared. In C++ a small out-of-line member
    /// often calls templates that call others: one 20-instruction copy
    /// could bring 10,000 instructions of templates to optimize.
    pub brought_along: u32,
}

/// The limits the benchmark suite measured (README, "Inlining parity").
pub const COPY_LIMITS: CopyLimits =
    CopyLimits { functions: true, function: 80, inline_hint: 150, local_function: 150, local_copies_per_mille: 60, constant_bytes: 4096, odr_function: u32::MAX, brought_along: 2000 };

impl Default for CopyLimits {
    fn default() -> Self {
        COPY_LIMITS
    }
}

/// Instructions of copies of local functions allowed whatever the module's
/// size (see [`CopyLimits::local_copies_per_mille`]): optimizing them takes
/// milliseconds.
pub const LOCAL_COPIES_ALWAYS_ALLOWED: u64 = 2000;

/// Test-only: `MTPC_TEST_COPY_LIMITS=FUNCTION,INLINE_HINT,LOCAL,BYTES,ODR,BROUGHT[,LOCAL_SHARE]`
/// replaces [`COPY_LIMITS`], to measure other limits without a rebuild
/// (`bench/inlining.py`); without `LOCAL_SHARE` (`local_copies_per_mille`),
/// the built-in one.
const COPY_LIMITS_VAR: &str = "MTPC_TEST_COPY_LIMITS";

/// The limits in force.
pub fn copy_limits() -> CopyLimits {
    static LIMITS: once_cell::sync::OnceCell<CopyLimits> = once_cell::sync::OnceCell::new();
    *LIMITS.get_or_init(|| match std::env::var(COPY_LIMITS_VAR) {
        Err(_) => COPY_LIMITS,
        Ok(value) => CopyLimits::parse(&value).unwrap_or_else(|| {
            log::warn!(
                "{COPY_LIMITS_VAR}='{value}' is not six or seven numbers FUNCTION,INLINE_HINT,LOCAL,BYTES,ODR,BROUGHT[,LOCAL_SHARE]; \
                 using the built-in copy limits"
            );
            COPY_LIMITS
        }),
    })
}

impl CopyLimits {
    /// `FUNCTION,INLINE_HINT,LOCAL,BYTES,ODR,BROUGHT[,LOCAL_SHARE]`;
    /// instruction counts beyond `u32::MAX` mean no limit.
    fn parse(value: &str) -> Option<CopyLimits> {
        let numbers: Vec<u64> = value.split(',').map(|n| n.trim().parse().ok()).collect::<Option<_>>()?;
        let count = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        let (limits, share) = match numbers[..] {
            [ref limits @ .., share] if numbers.len() == 7 => (limits, Some(share)),
            _ => (&numbers[..], None),
        };
        match *limits {
            [function, inline_hint, local, bytes, odr, brought] => Some(CopyLimits {
                functions: true,
                function: count(function),
                inline_hint: count(inline_hint),
                local_function: count(local),
                local_copies_per_mille: share.map_or(COPY_LIMITS.local_copies_per_mille, count),
                constant_bytes: bytes,
                odr_function: count(odr),
                brought_along: count(brought),
            }),
            _ => None,
        }
    }

    /// [`Self::local_copies_per_mille`] of a module of `instructions`, and
    /// at least [`LOCAL_COPIES_ALWAYS_ALLOWED`].
    pub fn local_copies_budget(&self, instructions: u64) -> u64 {
        (instructions.saturating_mul(u64::from(self.local_copies_per_mille)) / 1000).max(LOCAL_COPIES_ALWAYS_ALLOWED)
    }
}

impl CopyLimits {
    /// The copies of partitions that only generate code (an optimized
    /// module's): no function, as no inliner needs a body, but the small
    /// constants [`COPY_LIMITS`] copies, so that the code generator folds
    /// what it reads of them as the whole module's does (a small `memcpy`
    /// from a string becomes stores of its bytes).
    pub const CODE_GENERATION: CopyLimits = CopyLimits {
        functions: false,
        function: 0,
        inline_hint: 0,
        local_function: 0,
        local_copies_per_mille: 0,
        constant_bytes: COPY_LIMITS.constant_bytes,
        odr_function: 0,
        brought_along: 0,
    };

    /// Is function `g`'s body small enough to copy where it is called?
    pub fn worth_copying(&self, g: &GlobalFacts) -> bool {
        self.functions && (g.always_inline || g.inline_size <= self.function || (g.inline_hint && g.inline_size <= self.inline_hint))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Not in this partition.
    Drop,
    /// A declaration (aliases and ifuncs become one; strong aliases are
    /// resolved to their aliasees unless thread-local: see
    /// [`GlobalFacts::resolves_to_aliasee`]).
    Declare,
    /// A copy of the body or initializer that is not emitted.
    AvailableExternally,
    /// A private copy of constant data (see `is_local_copyable`), or of a
    /// local function only one function calls, or of a constant a
    /// function's metadata names.
    LocalCopy,
    /// A discardable copy of a C++ inline or template definition's group
    /// (see [`crate::odr_copies`]): kept as it is, emitted by one partition.
    OdrCopy,
    /// The one definition.
    Define,
    /// `llvm.used`/`llvm.compiler.used`: kept, filtered to what this partition defines.
    FilterUsed,
}

impl Decision {
    /// Does the partition hold the global's body or initializer (its
    /// definition or a copy)?
    pub fn holds_body(self) -> bool {
        matches!(self, Decision::Define | Decision::AvailableExternally | Decision::LocalCopy | Decision::OdrCopy)
    }
}

/// How the owner changes a global that other partitions use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Promotion {
    /// The new, collision-free name of a promoted local.
    pub new_name: Option<String>,
    pub linkage: Linkage,
    pub visibility: Visibility,
}

#[derive(Clone, Debug)]
pub struct SymbolPlan {
    pub partitions: u32,
    /// The owning partition of every definition (from the partition plan).
    pub owner: Vec<Option<u32>>,
    /// `decisions[p][g]`: what global `g` is in partition `p`.
    pub decisions: Vec<Vec<Decision>>,
    /// `kept_declarations[p]`: the declarations partition `p` keeps
    /// although none of its code uses them, for the metadata that names
    /// them (see [`declare_what_metadata_names`]), sorted.
    pub kept_declarations: Vec<Vec<u32>>,
    /// For globals the owner must export differently.
    pub promotions: Vec<Option<Promotion>>,
    /// Declarations of these globals drop `dso_local`.
    pub preemptible_declarations: Vec<bool>,
    /// Shared-library code: the hidden alias by which other partitions'
    /// code names a definition that the whole module's code generator
    /// would bind through a local alias (see [`binds_locally`]), if any
    /// refers to it. Named by `name_promotions`.
    pub local_aliases: Vec<Option<String>>,
    /// The groups every partition that uses them copies.
    pub odr_groups: OdrGroups,
}

impl SymbolPlan {
    /// Names every promoted local `NAME.mtpc.TAG` (`TAG`: [`module_tag`],
    /// of the module's content digest), numbered on where a name is taken.
    pub fn name_promotions(&mut self, facts: &ModuleFacts) {
        let tag = module_tag(facts);
        let module_names: HashSet<&str> = facts.globals.iter().map(|g| g.name.as_str()).collect();
        let mut given: HashSet<String> = HashSet::new();
        for (i, g) in facts.globals.iter().enumerate() {
            let Some(promotion) = self.promotions[i].as_mut().filter(|_| g.linkage.is_local()) else { continue };
            let base = if g.name.is_empty() { format!("__mtpc_anon.{}", i) } else { g.name.clone() };
            let mut name = format!("{base}.mtpc.{tag}");
            let mut k = 1;
            while module_names.contains(name.as_str()) || given.contains(&name) {
                name = format!("{base}.mtpc.{tag}.{k}");
                k += 1;
            }
            given.insert(name.clone());
            promotion.new_name = Some(name);
        }
        for (i, g) in facts.globals.iter().enumerate() {
            let Some(alias) = self.local_aliases[i].as_mut() else { continue };
            let mut name = format!("{}.mtpc.local", g.name);
            let mut k = 1;
            while module_names.contains(name.as_str()) || given.contains(&name) {
                name = format!("{}.mtpc.local.{k}", g.name);
                k += 1;
            }
            given.insert(name.clone());
            *alias = name;
        }
    }

    /// The local variables promoted (named by [`Self::name_promotions`]),
    /// as `(promoted name, own name)`: how to tell a sanitizer that names
    /// globals to its run time what they were called.
    pub fn promoted_local_variables<'a>(&'a self, facts: &'a ModuleFacts) -> Vec<(&'a str, &'a str)> {
        facts
            .globals
            .iter()
            .zip(&self.promotions)
            .filter(|(g, _)| g.is_variable() && g.linkage.is_local())
            .filter_map(|(g, p)| Some((p.as_ref()?.new_name.as_deref()?, g.name.as_str())))
            .collect()
    }

    pub fn decision(&self, partition: u32, global: usize) -> Decision {
        self.decisions[partition as usize][global]
    }

    /// The name global `i` has in the partitions: a promoted local's new
    /// name, else its own (empty if it has none).
    pub fn name_in_partitions<'s>(&'s self, i: usize, facts: &'s ModuleFacts) -> &'s str {
        self.promotions[i].as_ref().and_then(|p| p.new_name.as_deref()).unwrap_or(&facts.globals[i].name)
    }

    /// The names of the functions partition `p` holds an
    /// `available_externally` copy of that the split made (not the input's
    /// own `available_externally` definitions).
    pub fn copies_made<'s>(&'s self, p: u32, facts: &'s ModuleFacts) -> Vec<&'s str> {
        self.names_where(p, facts, |i, g| {
            g.is_function() && g.linkage != Linkage::AvailableExternally && self.decision(p, i) == Decision::AvailableExternally
        })
    }

    /// The names of the private copies of C-string constants (string
    /// literals) partition `p` holds that another partition owns; unnamed
    /// ones are left out. (The owner's decision is `Define`; the check says
    /// which copy is whose, as `partition_builder` does.)
    pub fn constant_copies<'s>(&'s self, p: u32, facts: &'s ModuleFacts) -> Vec<&'s str> {
        self.names_where(p, facts, |i, g| {
            g.is_variable() && self.decision(p, i) == Decision::LocalCopy && self.owner_of(i) != Some(p)
        })
    }

    /// The names in partition `p` of the named globals `which` accepts.
    fn names_where<'s>(
        &'s self,
        p: u32,
        facts: &'s ModuleFacts,
        which: impl Fn(usize, &GlobalFacts) -> bool,
    ) -> Vec<&'s str> {
        debug_assert!(p < self.partitions);
        (0..facts.globals.len())
            .filter(|&i| which(i, &facts.globals[i]))
            .map(|i| self.name_in_partitions(i, facts))
            .filter(|name| !name.is_empty())
            .collect()
    }

    pub fn owner_of(&self, global: usize) -> Option<u32> {
        self.owner[global]
    }

    /// Instructions of the function bodies partition `partition` holds, its
    /// own and the copies: what building and compiling it costs.
    pub fn bodies_held(&self, facts: &ModuleFacts, partition: u32) -> u64 {
        facts
            .globals
            .iter()
            .enumerate()
            .filter(|(i, g)| g.is_function() && self.decision(partition, *i).holds_body())
            .map(|(_, g)| u64::from(g.instructions))
            .sum()
    }

    /// Every member of a copied group, by its name in the partitions (a
    /// promoted local's new name): what a partition's optimized module is
    /// asked about.
    pub fn odr_members_by_name(&self, facts: &ModuleFacts) -> HashMap<String, u32> {
        self.odr_groups
            .members
            .iter()
            .flatten()
            .map(|&m| {
                let promoted = self.promotions[m as usize].as_ref().and_then(|p| p.new_name.clone());
                (promoted.unwrap_or_else(|| facts.globals[m as usize].name.clone()), m)
            })
            .filter(|(name, _)| !name.is_empty())
            .collect()
    }

    /// The module's promoted `internal` functions and variables (named, not
    /// thread-local), by promoted name: the name the module gives each,
    /// the local symbol stock's object has for it. (A private one's is a
    /// private label, `.LNAME`, which the assembler resolves within the
    /// text of one part, so the parts' texts could not name it.)
    pub fn promoted_locals(&self, facts: &ModuleFacts) -> HashMap<String, String> {
        facts
            .globals
            .iter()
            .zip(&self.promotions)
            .filter(|(g, _)| (g.is_function() || g.is_variable()) && g.linkage == Linkage::Internal && !g.thread_local && !g.name.is_empty())
            .filter_map(|(g, p)| Some((p.as_ref()?.new_name.clone()?, g.name.clone())))
            .collect()
    }

    /// The members of copied groups partition `partition` holds.
    pub fn odr_members_held(&self, partition: u32) -> std::collections::BTreeSet<u32> {
        (0..self.owner.len())
            .filter(|&i| self.odr_groups.group_of[i].is_some())
            .filter(|&i| matches!(self.decision(partition, i), Decision::Define | Decision::OdrCopy))
            .map(|i| i as u32)
            .collect()
    }

    /// The partitions, largest first (ties by index), the order to start
    /// their jobs in so that the last to finish is a small one.
    pub fn largest_first(&self, facts: &ModuleFacts) -> Vec<u32> {
        let mut order: Vec<(u64, u32)> = (0..self.partitions).map(|p| (self.bodies_held(facts, p), p)).collect();
        order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        order.into_iter().map(|(_, p)| p).collect()
    }
}

/// A stable identity for the module, used in promoted names so that two
/// objects from different modules never define the same promoted symbol:
/// the source file name, the names of its external definitions (as LLVM's
/// `getUniqueModuleId` does) and a digest of its content (as ThinLTO's
/// promoted names carry its module hash). A copied local is promoted
/// `linkonce_odr`: objects of one source built with other macros must
/// never make it one definition.
pub fn module_tag(facts: &ModuleFacts) -> String {
    let mut ctx = md5::Context::new();
    ctx.consume(facts.source_filename.as_bytes());
    ctx.consume(facts.content_digest.to_le_bytes());
    for g in &facts.globals {
        if g.is_definition && !g.linkage.is_local() && !g.name.is_empty() {
            ctx.consume([0u8]);
            ctx.consume(g.name.as_bytes());
        }
    }
    let digest = ctx.compute();
    digest.0[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// A local constant defined here, plain data (not thread-local, in no
/// COMDAT group or section of its own).
fn is_plain_local_constant(g: &GlobalFacts) -> bool {
    g.is_variable()
        && g.is_definition
        && g.linkage.is_local()
        && g.is_constant
        && !g.thread_local
        && g.comdat.is_none()
        && g.section.is_none()
}

/// True for C string literals (private `unnamed_addr` constants without
/// references, holding a C string) whose address no variable or alias
/// holds (`llvm.used` and `llvm.compiler.used` aside): each partition may keep its own copy, as the linker stores equal
/// strings once. Any other such constant stays one object (promoted, as
/// any local several partitions use, with `available_externally` copies
/// elsewhere, whose contents still fold): a partition with a copy of a
/// table pointing to it would fold a load from the table to its own copy,
/// not the one the table holds; and data the linker does not merge (a
/// string with a NUL inside, an array of numbers) would keep one address
/// per partition where code in several names it (the same literal of a
/// function copied into each).
pub(crate) fn is_local_copyable(g: &GlobalFacts) -> bool {
    is_plain_local_constant(g) && g.unnamed_addr && g.refs.is_empty() && g.c_string && !g.address_in_data
}

/// Can a partition that does not own `r` refer to it by name? A global
/// can, unless it is an alias that asm names (a partition that declares a
/// strong alias, unless thread-local, refers to its aliasee instead); a
/// local can if every partition may copy it ([`is_local_copyable`]) or it
/// can be promoted (named by no asm, in no COMDAT the linker may discard:
/// [`ModuleFacts::discardable_comdat_of`]). `asm_named` is
/// [`ModuleFacts::asm_named`].
pub(crate) fn nameable_without_owning(facts: &ModuleFacts, asm_named: &[bool], r: usize) -> bool {
    let g = &facts.globals[r];
    if g.id.kind == GlobalKind::Alias && asm_named[r] {
        return false;
    }
    !g.linkage.is_local() || is_local_copyable(g) || (!asm_named[r] && facts.discardable_comdat_of(r).is_none())
}

struct Rules<'a> {
    facts: &'a ModuleFacts,
    plan: &'a PartitionPlan,
    odr: &'a OdrGroups,
    /// Functions whose blocks' addresses are taken.
    block_address_taken: Vec<bool>,
    /// Locals that asm text names: never renamed.
    asm_named: Vec<bool>,
    /// Instructions of each copied group, riders included.
    group_instructions: Vec<u64>,
    /// [`CopyLimits::brought_along`].
    brought_along: u64,
}

impl<'a> Rules<'a> {
    fn new(facts: &'a ModuleFacts, plan: &'a PartitionPlan, odr: &'a OdrGroups) -> Self {
        let block_address_taken = facts.block_address_taken();
        let asm_named = facts.asm_named();
        Rules { facts, plan, odr, block_address_taken, asm_named, group_instructions: odr.instructions(facts), brought_along: u64::from(facts.copy_limits.brought_along) }
    }

    /// Can partition `p` refer to `r` by name? If it owns `r`, or if
    /// [`nameable_without_owning`].
    fn local_reachable_from(&self, r: usize, p: u32) -> bool {
        self.plan.owner[r] == Some(p) || nameable_without_owning(self.facts, &self.asm_named, r)
    }

    /// A local constant that a function's metadata names (a type info
    /// proxy): each partition with a copy of the function gets its own, as
    /// the global only metadata names would be deleted from a partition.
    fn copy_named_constant_locally(&self, i: usize, p: u32) -> bool {
        let g = &self.facts.globals[i];
        is_plain_local_constant(g) && !g.address_in_data && !self.asm_named[i] && self.refs_reachable_from(g, p)
    }

    /// Can `g` be copied into partition `p`: can `p` name everything it
    /// refers to? Never if it takes a block's address (the block must be
    /// the one its users jump to) or names a function through `no_cfi`
    /// (LLVM 16's GlobalDCE crashes when a copy that dies leaves such a
    /// constant naming an erased function).
    fn refs_reachable_from(&self, g: &GlobalFacts, p: u32) -> bool {
        g.refs.iter().all(|&(r, _)| self.local_reachable_from(r as usize, p))
            && g.block_address_of.is_empty()
            && g.no_cfi_of.is_empty()
    }

    /// May partition `p`, which calls function `i`, get its body?
    fn copy_function(&self, i: usize, p: u32) -> bool {
        let g = &self.facts.globals[i];
        copyable_by_size(&self.facts.copy_limits, g, self.block_address_taken[i], self.asm_named[i])
            && (!g.linkage.is_local() || self.local_reachable_from(i, p))
            && self.refs_reachable_from(g, p)
    }

    /// May partition `p`, which reads constant variable `i`, get its initializer?
    fn copy_constant(&self, i: usize, p: u32) -> bool {
        let g = &self.facts.globals[i];
        constant_copyable_by_size(&self.facts.copy_limits, g, self.asm_named[i])
            && (!g.linkage.is_local() || self.local_reachable_from(i, p))
            && self.refs_reachable_from(g, p)
    }

    /// Do the copied groups that a copy of `r` would bring into a
    /// partition with decisions `d` (those its body, the local copies it
    /// takes and the `available_externally` input it calls refer to, and
    /// theirs in turn) and that the partition does not hold yet weigh at
    /// most [`CopyLimits::brought_along`]?
    fn brings_along_within_limit(&self, r: usize, d: &[Decision]) -> bool {
        let limit = self.brought_along;
        let held = |g: u32| matches!(d[self.odr.members[g as usize][0] as usize], Decision::Define | Decision::OdrCopy);
        let mut seen: HashSet<usize> = HashSet::new();
        let mut counted: HashSet<u32> = HashSet::new();
        let mut stack = vec![r];
        let mut brought = 0u64;
        while let Some(x) = stack.pop() {
            for &(y, _) in &self.facts.globals[x].refs {
                let y = y as usize;
                match self.odr.group_of[y] {
                    Some(g) if !held(g) && counted.insert(g) => {
                        brought += self.group_instructions[g as usize];
                        if brought > limit {
                            return false;
                        }
                        stack.extend(self.odr.copied_globals(g).map(|m| m as usize).filter(|&m| seen.insert(m)));
                    }
                    None if (self.odr.sole_callee[y] || self.facts.globals[y].linkage == Linkage::AvailableExternally)
                        && d[y] == Decision::Drop
                        && seen.insert(y) =>
                    {
                        stack.push(y)
                    }
                    _ => {}
                }
            }
        }
        true
    }

    /// Decisions of partition `p`.
    fn partition(&self, p: u32) -> Vec<Decision> {
        let facts = self.facts;
        let n = facts.globals.len();
        let mut d = vec![Decision::Drop; n];
        let mut work: Vec<(usize, RefKind)> = Vec::new();
        for (i, g) in facts.globals.iter().enumerate() {
            match g.special {
                Some(SpecialArray::Used) => d[i] = Decision::FilterUsed,
                Some(SpecialArray::PrimaryOnly) if p == 0 => {
                    d[i] = Decision::Define;
                    work.extend(g.refs.iter().map(|&(r, k)| (r as usize, k)));
                }
                Some(SpecialArray::PrimaryOnly) => {}
                None if self.plan.owner[i] == Some(p) => {
                    d[i] = Decision::Define;
                    work.extend(g.refs.iter().map(|&(r, k)| (r as usize, k)));
                }
                None => {}
            }
        }
        // Everything a definition or copy here refers to is declared or
        // copied. Copies by size wait (declared) until what the partition
        // needs for its own definitions is known, then are made, the lowest
        // index first, if what they bring along is within the limit.
        let mut called: HashSet<usize> = HashSet::new();
        let mut by_size: BTreeSet<usize> = BTreeSet::new();
        loop {
            let Some((r, kind)) = work.pop() else {
                let Some(r) = by_size.pop_first() else { break };
                if d[r] == Decision::Declare && self.brings_along_within_limit(r, &d) {
                    d[r] = Decision::AvailableExternally;
                    work.extend(facts.globals[r].refs.iter().map(|&(x, k)| (x as usize, k)));
                }
                continue;
            };
            let g = &facts.globals[r];
            let first_call = kind == RefKind::Call && called.insert(r);
            let upgrade = d[r] == Decision::Declare && first_call;
            if d[r] != Decision::Drop && !upgrade {
                continue;
            }
            if let Some(group) = self.odr.group_of[r] {
                // The whole group, as a translation unit would have it.
                for &m in &self.odr.members[group as usize] {
                    let m = m as usize;
                    if matches!(d[m], Decision::Drop | Decision::Declare) {
                        d[m] = Decision::OdrCopy;
                        work.extend(facts.globals[m].refs.iter().map(|&(x, k)| (x as usize, k)));
                    }
                }
                continue;
            }
            let choice = if !g.is_definition {
                Decision::Declare
            } else if g.linkage == Linkage::AvailableExternally {
                // Its definition is elsewhere: a declaration is always
                // valid, and the only choice if the body names what this
                // partition cannot name (a local that inline asm names).
                if g.asm_local_refs.is_empty() && self.refs_reachable_from(g, p) {
                    Decision::AvailableExternally
                } else {
                    Decision::Declare
                }
            } else if is_local_copyable(g)
                || (kind == RefKind::Metadata && self.copy_named_constant_locally(r, p))
                || (self.odr.sole_callee[r] && self.refs_reachable_from(g, p))
            {
                Decision::LocalCopy
            } else if g.resolves_to_aliasee() {
                // Resolved to its aliasee expression, which this partition
                // then needs; an aliasee that is itself a strong alias is
                // resolved in turn (declared, if thread-local).
                work.extend(g.refs.iter().map(|&(x, _)| (x as usize, kind)));
                Decision::Declare
            } else if (kind == RefKind::Call && self.copy_function(r, p)) || self.copy_constant(r, p) {
                by_size.insert(r);
                Decision::Declare
            } else {
                Decision::Declare
            };
            if matches!(choice, Decision::AvailableExternally | Decision::LocalCopy) {
                work.extend(g.refs.iter().map(|&(x, k)| (x as usize, k)));
            }
            d[r] = choice;
        }
        // What the bodies held here name as a variable's debug location,
        // and nothing here uses: declared where that changes nothing else,
        // so that the location stays (`declarable_for_debug_location`).
        for (i, g) in facts.globals.iter().enumerate() {
            if g.debug_locations.is_empty() || !d[i].holds_body() {
                continue;
            }
            for &x in &g.debug_locations {
                let x = x as usize;
                if d[x] == Decision::Drop && declarable_for_debug_location(&facts.globals[x]) {
                    d[x] = Decision::Declare;
                }
            }
        }
        d
    }
}

/// Is function `g` one that a partition calling it may be given a copy of
/// for its size (within `limits`, and nothing about it needing one
/// place), whichever partitions its callers and it are in? A partition
/// also needs to name what its body refers to (`Rules::copy_function`).
pub(crate) fn copyable_by_size(limits: &CopyLimits, g: &GlobalFacts, block_address_taken: bool, asm_named: bool) -> bool {
    g.is_function()
        && g.is_definition
        && limits.worth_copying(g)
        && !g.no_inline
        && !g.linkage.is_interposable()
        && !block_address_taken
        && !asm_named
        && g.asm_local_refs.is_empty()
}

/// Is variable `g` a constant that a partition reading it may be given a
/// copy of for its size (within `limits`, so that loads fold and vtables
/// devirtualize), whichever partitions its readers and it are in? As for
/// functions, a partition also needs to name what it refers to.
pub(crate) fn constant_copyable_by_size(limits: &CopyLimits, g: &GlobalFacts, asm_named: bool) -> bool {
    g.is_variable()
        && g.is_definition
        && g.is_constant
        && !g.thread_local
        && g.size <= limits.constant_bytes
        && !g.linkage.is_interposable()
        && !asm_named
}

/// Of a partition's decisions `d`: declares the definitions that metadata
/// names outside any body (`GlobalFacts::named_by_metadata`: a C++
/// template parameter's value) where nothing uses them, if that changes
/// nothing else (`declarable_for_debug_location`), and returns them, sorted:
/// the partition keeps them (`llvm.compiler.used`), or its optimizer would
/// delete them unused and the value with them, so that a type it describes
/// gives the value as stock's object does, where the definition is. The
/// code generator writes nothing for such a declaration but what refers to
/// it (the type's description) and, if it is hidden, its visibility: an
/// undefined symbol of the part's object, which the merged object defines.
/// (`named_by_metadata` is wider than template parameters: any metadata
/// naming the global, such as a debug variable's location; such a global
/// is declared and kept too, which changes no code.)
fn declare_what_metadata_names(facts: &ModuleFacts, d: &mut [Decision]) -> Vec<u32> {
    let mut kept = Vec::new();
    for (x, g) in facts.globals.iter().enumerate() {
        if g.named_by_metadata && d[x] == Decision::Drop && declarable_for_debug_location(g) {
            d[x] = Decision::Declare;
            kept.push(x as u32);
        }
    }
    kept
}

/// May a partition that uses `g` only as a debug variable's location (see
/// `GlobalFacts::debug_locations`) declare it? The declaration keeps the
/// location in the partition's IR, as it is in the module's; erased, as an
/// unused global is, the location would be left empty. (LLVM 16's and
/// 22's code generators give such a location no place unless code in its
/// block uses the address, so the objects are the same either way: this
/// is for the split's partitions, which other tools compile.) Only where
/// nothing else changes: a function or variable that is not local
/// (declaring one would need a promoted name, a symbol of the object
/// renamed), and that is a declaration (it adds nothing unless
/// referenced) or a definition stock's object surely has (not
/// discardable: `linkonce_odr` copies, `available_externally`); never an
/// alias or ifunc, one of LLVM's special arrays or an intrinsic.
fn declarable_for_debug_location(g: &GlobalFacts) -> bool {
    matches!(g.id.kind, GlobalKind::Function | GlobalKind::Variable)
        && g.special.is_none()
        && !g.name.is_empty()
        && !g.name.starts_with("llvm.")
        && !g.linkage.is_local()
        && (!g.is_definition || !g.linkage.is_discardable())
}

/// The local functions that one other function alone uses, by calling
/// them, and that may be inlined and do not call it back (directly or in
/// turn; see [`ModuleFacts::inlinable_sole_callers`]): a partition with a
/// copy of that caller
/// gets a local copy of its own, which its inliner takes into the caller
/// whatever its size and then deletes, as the whole module's does (the
/// caller's copy limits count the callee in: `GlobalFacts::inline_size`).
/// Promoted, it would lose that (the inliner gives a local function's last
/// call a bonus), and the caller's copy would inline otherwise than stock.
/// `sole_callers`: [`ModuleFacts::inlinable_sole_callers`] of a module of
/// `n` globals.
pub fn sole_callees(n: usize, sole_callers: &[(usize, usize)]) -> Vec<bool> {
    let mut sole = vec![false; n];
    for &(callee, _) in sole_callers {
        sole[callee] = true;
    }
    sole
}

/// Applies the symbol rules to a partition plan, promoted names included
/// (the tests' shorthand; the split names them once the digest is known).
#[cfg(test)]
pub(crate) fn decide(facts: &ModuleFacts, plan: &PartitionPlan) -> SymbolPlan {
    let mut symbols = decide_unnamed(facts, plan);
    symbols.name_promotions(facts);
    symbols
}

/// Applies the symbol rules to a partition plan but for the names of
/// promoted locals, which carry the module's content digest
/// ([`module_tag`]): given by [`SymbolPlan::name_promotions`] once the
/// digest is known, so that the rules need not wait for the module's
/// bitcode.
pub fn decide_unnamed(facts: &ModuleFacts, plan: &PartitionPlan) -> SymbolPlan {
    let mut odr_groups = OdrGroups::find(facts);
    odr_groups.limit_local_copies(facts, &plan.owner, facts.copy_limits.local_copies_budget(facts.total_instructions()));
    let rules = Rules::new(facts, plan, &odr_groups);
    let mut decisions: Vec<Vec<Decision>> = (0..plan.partitions).map(|p| rules.partition(p)).collect();
    let kept_declarations: Vec<Vec<u32>> = decisions.iter_mut().map(|d| declare_what_metadata_names(facts, d)).collect();
    let n = facts.globals.len();
    let mut promotions: Vec<Option<Promotion>> = vec![None; n];
    for i in 0..n {
        let g = &facts.globals[i];
        let Some(owner) = plan.owner[i] else { continue };
        let used_elsewhere = (0..plan.partitions).any(|p| {
            p != owner
                && matches!(decisions[p as usize][i], Decision::Declare | Decision::AvailableExternally | Decision::OdrCopy)
        });
        // A copied group's linkonce members stay as they are: every
        // partition that uses them has its own discardable copy.
        let copied = odr_groups.group_of[i].is_some();
        if !used_elsewhere || (copied && !g.linkage.is_local()) {
            continue;
        }
        promotions[i] = match g.linkage {
            Linkage::Internal | Linkage::Private => {
                // A copied local is discardable wherever it is copied: one
                // partition emits it if any still needs it (odr_copies).
                // Named by `name_promotions`.
                let linkage = if copied { Linkage::LinkOnceOdr } else { Linkage::External };
                Some(Promotion { new_name: None, linkage, visibility: Visibility::Hidden })
            }
            Linkage::LinkOnceOdr => Some(Promotion { new_name: None, linkage: Linkage::WeakOdr, visibility: g.visibility }),
            Linkage::LinkOnceAny => Some(Promotion { new_name: None, linkage: Linkage::WeakAny, visibility: g.visibility }),
            _ => None,
        };
    }
    let preemptible_declarations = facts
        .globals
        .iter()
        .enumerate()
        .map(|(i, g)| {
            facts.is_shared_library_code
                && promotions[i].as_ref().map_or(g.visibility, |p| p.visibility) == Visibility::Default
                && !g.linkage.is_local()
        })
        .collect();
    let local_aliases = (0..n)
        .map(|i| {
            let referred_elsewhere = plan.owner[i].is_some_and(|owner| {
                (0..plan.partitions)
                    .any(|p| p != owner && matches!(decisions[p as usize][i], Decision::Declare | Decision::AvailableExternally)
                        && kept_declarations[p as usize].binary_search(&(i as u32)).is_err())
            });
            (referred_elsewhere && promotions[i].is_none() && binds_locally(facts, i)).then(String::new)
        })
        .collect();
    SymbolPlan {
        partitions: plan.partitions,
        owner: plan.owner.clone(),
        decisions,
        kept_declarations,
        promotions,
        preemptible_declarations,
        local_aliases,
        odr_groups,
    }
}

/// Does the whole module's code generator bind the references its own code
/// makes to global `i` through a local alias (`.Lfoo$local`: LLVM's
/// `AsmPrinter::getSymbolPreferLocal`), so that in a shared library they
/// are neither interposed nor go through the PLT? In shared-library code
/// (PIC, not PIE), a `dso_local` default-visibility function or variable
/// with external linkage that the module defines, in no COMDAT: what clang
/// makes of a function without `-fsemantic-interposition`. Another
/// partition's code then names it by a hidden alias its owner defines,
/// which binds as locally (a declaration of the global name would not);
/// its data keeps the global name, as the code generator writes data
/// (`.quad foo`). (LLVM also binds `dso_local` aliases and members of
/// non-deduplicating COMDATs locally; clang makes neither, and declaring
/// them only binds them as `-fsemantic-interposition` would.)
pub fn binds_locally(facts: &ModuleFacts, i: usize) -> bool {
    let g = &facts.globals[i];
    facts.is_shared_library_code
        && (g.is_function() || g.is_variable())
        && g.is_definition
        && g.linkage == Linkage::External
        && g.visibility == Visibility::Default
        && g.dso_local
        && g.comdat.is_none()
        && !g.thread_local
        && !g.name.is_empty()
}

/// Internal consistency of a plan: every definition has exactly one
/// `Define`, and nothing a partition keeps refers to a global it dropped.
pub fn check(facts: &ModuleFacts, plan: &SymbolPlan) -> Result<(), String> {
    for (g, promotion) in facts.globals.iter().zip(&plan.promotions) {
        if g.linkage.is_local() && promotion.as_ref().is_some_and(|p| p.new_name.is_none()) {
            return Err(format!("{} is promoted without a name", g.display_name()));
        }
    }
    for (i, g) in facts.globals.iter().enumerate() {
        let defines = (0..plan.partitions).filter(|&p| plan.decision(p, i) == Decision::Define).count();
        let expected = usize::from(g.is_definition && g.linkage != Linkage::AvailableExternally
            && g.special != Some(SpecialArray::Used));
        if defines != expected {
            return Err(format!("{} is defined in {defines} partitions", g.display_name()));
        }
    }
    for p in 0..plan.partitions {
        for (i, g) in facts.globals.iter().enumerate() {
            if !plan.decision(p, i).holds_body() {
                continue;
            }
            for &(r, _) in &g.refs {
                if plan.decision(p, r as usize) == Decision::Drop {
                    return Err(format!(
                        "partition {p}: {} refers to {}, which it does not have",
                        g.display_name(),
                        facts.globals[r as usize].display_name()
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module_facts::RefKind::*;
    use crate::partition_plan::plan as make_plan;
    use crate::test_support::*;

    fn split(facts: &ModuleFacts, owners: &[Option<u32>]) -> SymbolPlan {
        let partitions = owners.iter().flatten().max().map_or(1, |m| m + 1);
        let zero = vec![0; partitions as usize];
        let plan = PartitionPlan { partitions, owner: owners.to_vec(), cost: zero.clone(), planned: zero, largest_unit: None };
        let sp = decide(facts, &plan);
        check(facts, &sp).expect("consistent plan");
        sp
    }

    #[test]
    fn copy_limits_setting_is_six_or_seven_numbers() {
        let limits = CopyLimits::parse("60, 150,150,4096,99999999999,400").expect("six numbers");
        assert_eq!(
            limits,
            CopyLimits {
                functions: true,
                function: 60,
                inline_hint: 150,
                local_function: 150,
                local_copies_per_mille: COPY_LIMITS.local_copies_per_mille,
                constant_bytes: 4096,
                odr_function: u32::MAX,
                brought_along: 400
            }
        );
        let limits = CopyLimits::parse("60,150,150,4096,99999999999,400,1000").expect("seven numbers");
        assert_eq!(limits.local_copies_per_mille, 1000);
        assert_eq!(limits.local_copies_budget(285_138), 285_138);
        assert_eq!(CopyLimits::parse("60,150,150,4096,400"), None);
        assert_eq!(CopyLimits::parse("60,150,150,4096,400,1,2,3"), None);
        assert_eq!(CopyLimits::parse("60,150,150,4096,x,400"), None);
        assert_eq!(CopyLimits::parse(""), None);
    }

    #[test]
    fn small_external_callee_is_available_externally_elsewhere() {
        let facts = module(vec![func("caller", 10, &[(1, Call)]), func("leaf", 5, &[])]);
        let sp = split(&facts, &[Some(0), Some(1)]);
        assert_eq!(sp.decision(0, 1), Decision::AvailableExternally);
        assert_eq!(sp.decision(1, 1), Decision::Define);
        assert_eq!(sp.decision(1, 0), Decision::Drop);
        assert!(sp.promotions[1].is_none());
    }

    #[test]
    fn partitions_are_started_largest_first_counting_copies() {
        // Partition 0 owns 30 instructions, partition 1 owns 25 and holds a
        // copy of partition 0's small leaf (10): 35 in all, so it goes first.
        let facts = module(vec![
            func("a", 20, &[(1, Call)]),
            func("leaf", 10, &[]),
            func("b", 25, &[(1, Call)]),
            func("c", 30, &[]),
        ]);
        let sp = split(&facts, &[Some(0), Some(0), Some(1), Some(2)]);
        assert_eq!(sp.decision(1, 1), Decision::AvailableExternally);
        assert_eq!(sp.copies_made(1, &facts), vec!["leaf"]);
        assert!(sp.copies_made(0, &facts).is_empty());
        assert_eq!(sp.bodies_held(&facts, 0), 30);
        assert_eq!(sp.bodies_held(&facts, 1), 35);
        assert_eq!(sp.bodies_held(&facts, 2), 30);
        assert_eq!(sp.largest_first(&facts), vec![1, 0, 2]);
    }

    #[test]
    fn debug_location_alone_declares_what_stock_defines_surely() {
        // `look` (partition 1) names six globals only as a debug variable's
        // location: partition 0's external variable and function, and the
        // module's declaration, are declared there (the location stays);
        // the internal variable, the linkonce_odr one and the alias are not
        // (a declaration would need a promoted name, or a symbol stock's
        // object may not define, or an alias resolved); nothing is copied.
        let mut look = func("look", 10, &[]);
        look.debug_locations = vec![1, 2, 3, 4, 5, 6];
        let mut odr = var("odr", 4, &[]);
        odr.linkage = Linkage::LinkOnceOdr;
        let mut outside = var("outside", 4, &[]);
        outside.is_definition = false;
        let facts = module(vec![
            func("set", 10, &[(1, Ref), (2, Call), (3, Ref), (4, Ref), (5, Ref)]),
            var("g", 4, &[]),
            func("ext", 5000, &[]),
            internal(var("local", 4, &[])),
            odr,
            outside,
            alias("g_alias", 1),
            look,
        ]);
        let owners = [Some(0), Some(0), Some(0), Some(0), Some(0), None, Some(0), Some(1)];
        let sp = split(&facts, &owners);
        assert_eq!(sp.decision(1, 1), Decision::Declare, "external variable");
        assert_eq!(sp.decision(1, 2), Decision::Declare, "external function");
        assert_eq!(sp.decision(1, 3), Decision::Drop, "internal variable");
        assert_eq!(sp.decision(1, 4), Decision::Drop, "linkonce_odr variable");
        assert_eq!(sp.decision(1, 5), Decision::Declare, "declaration of the module's");
        assert_eq!(sp.decision(1, 6), Decision::Drop, "alias");
        assert!(sp.promotions[3].is_none(), "a debug location promotes nothing");
        assert_eq!(sp.bodies_held(&facts, 1), 10);
        // Without the debug location, partition 1 keeps none of them; the
        // owner's decisions are the same either way.
        let mut plain = facts.clone();
        plain.globals[7].debug_locations.clear();
        let without = split(&plain, &owners);
        assert!((1..7).all(|i| without.decision(1, i) == Decision::Drop));
        assert!((0..8).all(|i| without.decision(0, i) == sp.decision(0, i)));
    }

    #[test]
    fn what_metadata_names_is_declared_and_kept_where_unused() {
        // A C++ template parameter's value (`template <void (*F)()>`) names
        // f and v, defined in partition 0, in types any partition may
        // describe: partition 1, which does not use them, declares and
        // keeps them; not the local nor the linkonce_odr function (stock's
        // object may not define them), nor partition 0, which defines them.
        // Shared-library code: the kept declarations ask the owner for no
        // hidden alias, which only code elsewhere needs.
        let named = |mut g: GlobalFacts| {
            g.named_by_metadata = true;
            g
        };
        let mut odr = named(func("odr", 5, &[]));
        odr.linkage = Linkage::LinkOnceOdr;
        let mut facts = module(vec![
            named(func("f", 500, &[])),
            named(var("v", 4, &[])),
            named(internal(func("local", 500, &[]))),
            odr,
            func("user", 10, &[(0, Call), (1, Ref), (2, Call), (3, Call)]),
            func("other", 10, &[]),
        ]);
        facts.is_shared_library_code = true;
        let owners = [Some(0), Some(0), Some(0), Some(0), Some(0), Some(1)];
        let sp = split(&facts, &owners);
        assert_eq!((sp.decision(1, 0), sp.decision(1, 1)), (Decision::Declare, Decision::Declare));
        assert_eq!((sp.decision(1, 2), sp.decision(1, 3)), (Decision::Drop, Decision::Drop));
        assert_eq!(sp.kept_declarations, vec![vec![], vec![0, 1]]);
        assert!(sp.local_aliases.iter().all(Option::is_none), "{:?}", sp.local_aliases);
        assert!(sp.promotions.iter().all(Option::is_none));
        // Without the metadata (or without -g, which `module_facts` does
        // not look for then), partition 1 keeps nothing.
        let mut plain = facts.clone();
        plain.globals.iter_mut().for_each(|g| g.named_by_metadata = false);
        let without = split(&plain, &owners);
        assert!((0..5).all(|i| without.decision(1, i) == Decision::Drop));
        assert_eq!(without.kept_declarations, vec![Vec::<u32>::new(); 2]);
        // Used by code there, f is declared as any callee, and not kept.
        facts.globals[5].refs = vec![(0, Call)];
        let used = split(&facts, &owners);
        assert_eq!(used.decision(1, 0), Decision::Declare);
        assert_eq!(used.kept_declarations[1], vec![1]);
        assert_eq!(used.local_aliases[0].as_deref(), Some("f.mtpc.local"));
    }

    #[test]
    fn large_callee_is_only_declared() {
        let facts = module(vec![func("caller", 10, &[(1, Call)]), func("big", 5000, &[])]);
        let sp = split(&facts, &[Some(0), Some(1)]);
        assert_eq!(sp.decision(0, 1), Decision::Declare);
    }

    #[test]
    fn address_taken_only_is_declared() {
        let facts = module(vec![func("taker", 10, &[(1, Ref)]), func("cb", 5, &[])]);
        let sp = split(&facts, &[Some(0), Some(1)]);
        assert_eq!(sp.decision(0, 1), Decision::Declare);
    }

    #[test]
    fn shared_internal_is_promoted_hidden_with_a_tagged_name() {
        let helper = internal(func("helper", 5000, &[]));
        let facts = module(vec![func("a", 10, &[(1, Call)]), helper, func("b", 10, &[(1, Call)])]);
        let sp = split(&facts, &[Some(0), Some(1), Some(1)]);
        let p = sp.promotions[1].clone().expect("promoted");
        assert_eq!(p.linkage, Linkage::External);
        assert_eq!(p.visibility, Visibility::Hidden);
        let name = p.new_name.unwrap();
        assert!(name.starts_with("helper.mtpc."), "{name}");
        assert!(name.ends_with(&module_tag(&facts)));
    }

    /// The rules are made while the module is written to bitcode; promoted
    /// names, which carry its digest, come after. A promotion left without
    /// a name fails the check instead of keeping its local name.
    #[test]
    fn promoted_locals_are_named_once_the_digest_is_known() {
        let (one, two) = (internal(func("one", 5000, &[])), internal(func("two", 5000, &[])));
        let mut taken = func("", 0, &[]);
        taken.is_definition = false;
        let calls = [(1, Call), (2, Call)];
        let mut facts = module(vec![func("a", 10, &calls), one, two, func("b", 10, &calls), taken]);
        // A name the first choice would take is in the module already (a
        // declaration: the tag depends on what the module defines).
        facts.globals[4].name = format!("one.mtpc.{}", module_tag(&facts));
        let owner = vec![Some(0), Some(1), Some(1), Some(1), None];
        let plan = PartitionPlan { partitions: 2, owner, cost: vec![0; 2], planned: vec![0; 2], largest_unit: None };
        let mut unnamed = decide_unnamed(&facts, &plan);
        assert!(unnamed.promotions[1].as_ref().is_some_and(|p| p.new_name.is_none()));
        let e = check(&facts, &unnamed).unwrap_err();
        assert!(e.contains("promoted without a name"), "{e}");

        unnamed.name_promotions(&facts);
        check(&facts, &unnamed).expect("every promotion named");
        let names: Vec<String> = [1, 2].iter().map(|&i| unnamed.promotions[i].clone().and_then(|p| p.new_name).expect("named")).collect();
        let tag = module_tag(&facts);
        assert_eq!(names, [format!("one.mtpc.{tag}.1"), format!("two.mtpc.{tag}")]);
        // Another content, other names: one object never defines another's.
        facts.content_digest += 1;
        let mut other = decide_unnamed(&facts, &plan);
        other.name_promotions(&facts);
        assert_ne!(other.promotions[2].clone().and_then(|p| p.new_name).expect("named"), names[1]);
    }

    /// What a sanitizer must be told of the promoted names: the local
    /// variables only, each with its own name (functions are described by
    /// address, external variables keep their names).
    #[test]
    fn promoted_local_variables_are_listed_with_their_own_names() {
        let facts = module(vec![
            func("a", 10, &[(2, Ref), (3, Call), (4, Ref)]),
            func("b", 10, &[(2, Ref), (3, Call), (4, Ref)]),
            internal(var("counts", 32, &[])),
            internal(func("helper", 5000, &[])),
            var("shared", 4, &[]),
        ]);
        let sp = split(&facts, &[Some(0), Some(1), Some(0), Some(0), Some(0)]);
        let promoted = |i: usize| sp.promotions[i].as_ref().and_then(|p| p.new_name.clone());
        let counts = promoted(2).expect("a local variable both partitions use is promoted");
        assert!(promoted(3).is_some(), "so is the local function");
        assert_eq!(sp.promoted_local_variables(&facts), [(counts.as_str(), "counts")]);
    }

    #[test]
    fn a_local_copied_for_its_locality_beyond_the_budget_is_promoted_once() {
        // helper (120 instructions, and leaf, 10, which only it calls) is
        // beyond the size limit of any callee, within that of a local
        // function; 24 functions in 24 partitions call it: copies in 23 of
        // them add 2,990 instructions.
        let facts = |module_rest: u32| {
            let mut globals = vec![
                internal(func("helper", 120, &[(2, Call)])),
                func("rest", module_rest, &[]),
                internal(func("leaf", 10, &[])),
            ];
            globals.extend((0..24).map(|k| func(&format!("user{k}"), 10, &[(0, Call)])));
            module(globals)
        };
        let owners: Vec<Option<u32>> = [Some(0), Some(0), Some(0)].into_iter().chain((0..24).map(Some)).collect();
        let budget = |f: &ModuleFacts| COPY_LIMITS.local_copies_budget(f.total_instructions());
        // Within the budget (a large module): copied, discardable, into
        // every partition that calls it, with a local copy of leaf.
        let within = facts(100_000);
        assert!(budget(&within) >= 2990);
        let sp = split(&within, &owners);
        assert!((1..24).all(|p| (sp.decision(p, 0), sp.decision(p, 2)) == (Decision::OdrCopy, Decision::LocalCopy)));
        assert_eq!(sp.promotions[0].as_ref().unwrap().linkage, Linkage::LinkOnceOdr);
        // Beyond it: one external definition, declared where it is called;
        // leaf stays with it, local.
        let beyond = facts(10);
        assert_eq!(budget(&beyond), LOCAL_COPIES_ALWAYS_ALLOWED);
        let sp = split(&beyond, &owners);
        assert_eq!((sp.decision(0, 0), sp.decision(0, 2)), (Decision::Define, Decision::Define));
        assert!((1..24).all(|p| (sp.decision(p, 0), sp.decision(p, 2)) == (Decision::Declare, Decision::Drop)));
        assert!(sp.promotions[2].is_none());
        let p = sp.promotions[0].as_ref().unwrap();
        assert_eq!((p.linkage, p.visibility), (Linkage::External, Visibility::Hidden));
    }

    #[test]
    fn internal_used_by_one_partition_stays_internal() {
        let helper = internal(func("helper", 5000, &[]));
        let facts = module(vec![func("a", 10, &[(1, Call)]), helper, func("b", 10, &[])]);
        let sp = split(&facts, &[Some(0), Some(0), Some(1)]);
        assert!(sp.promotions[1].is_none());
        assert_eq!(sp.decision(1, 1), Decision::Drop);
    }

    #[test]
    fn module_tag_differs_between_sources() {
        let a = module(vec![func("f", 1, &[])]);
        let mut b = a.clone();
        b.source_filename = "other.c".into();
        assert_ne!(module_tag(&a), module_tag(&b));
        assert_eq!(module_tag(&a), module_tag(&a.clone()));
        // The same source, other content.
        let mut c = a.clone();
        c.content_digest = 1;
        assert_ne!(module_tag(&a), module_tag(&c));
    }

    #[test]
    fn linkonce_odr_not_copied_used_elsewhere_becomes_weak_odr_in_its_owner() {
        // In a section of its own: one definition, which nothing may discard.
        let mut inl = func("_Z3inlv", 50, &[]);
        inl.linkage = Linkage::LinkOnceOdr;
        inl.section = Some(".text.inl".into());
        let facts = module(vec![func("a", 10, &[(1, Call)]), inl]);
        let sp = split(&facts, &[Some(0), Some(1)]);
        assert_eq!(sp.promotions[1].as_ref().unwrap().linkage, Linkage::WeakOdr);
    }

    #[test]
    fn an_inline_function_two_partitions_call_is_copied_whole_into_both() {
        // _Z1fv and its static local _ZZ1fvE1x (in a group of its own with
        // its guard) are used by a and b in two partitions: each partition
        // gets a discardable copy of both groups, guard included; nothing
        // is promoted to weak_odr.
        let mut f = func("_Z1fv", 20, &[(3, Ref), (4, Ref)]);
        f.linkage = Linkage::LinkOnceOdr;
        f.comdat = Some(0);
        f.inline_hint = true;
        let mut x = var("_ZZ1fvE1x", 4, &[]);
        x.linkage = Linkage::LinkOnceOdr;
        x.comdat = Some(1);
        let mut guard = var("_ZGVZ1fvE1x", 8, &[]);
        guard.linkage = Linkage::LinkOnceOdr;
        guard.comdat = Some(1);
        let mut facts = module(vec![func("a", 10, &[(2, Call)]), func("b", 10, &[(2, Call)]), f, x, guard]);
        facts.comdat_count = 2;
        let sp = split(&facts, &[Some(0), Some(1), Some(1), Some(1), Some(1)]);
        for g in 2..5 {
            assert_eq!(sp.decision(1, g), Decision::Define);
            assert_eq!(sp.decision(0, g), Decision::OdrCopy, "global {g}");
            assert!(sp.promotions[g].is_none());
        }
        assert_eq!(sp.odr_members_held(0), sp.odr_members_held(1));
        assert_eq!(sp.odr_members_held(0).len(), 3);
    }

    #[test]
    fn string_literals_are_copied_locally() {
        let facts = module(vec![func("a", 10, &[(2, Ref)]), func("b", 10, &[(2, Ref)]), literal(".str", 6)]);
        let sp = split(&facts, &[Some(0), Some(1), Some(0)]);
        assert_eq!(sp.decision(1, 2), Decision::LocalCopy);
        assert!(sp.promotions[2].is_none());
        // The copy (not the owner's literal) is what a partition's debug
        // information keeps describing only while the copy survives.
        assert_eq!(sp.constant_copies(1, &facts), [".str"]);
        assert!(sp.constant_copies(0, &facts).is_empty());
    }

    /// A literal a constant table points to stays one object: a partition
    /// with a copy of the table must fold its loads to the literal the
    /// table holds, not to a private copy with another address.
    #[test]
    fn a_string_literal_a_table_points_to_is_promoted_not_copied() {
        let mut table = internal(var("tokens", 16, &[(3, Ref)]));
        table.is_constant = true;
        let facts = module(vec![func("a", 10, &[(2, Ref)]), func("b", 10, &[(2, Ref), (3, Ref)]), table, literal(".str", 6)]);
        assert!(facts.globals[3].address_in_data);
        let sp = split(&facts, &[Some(0), Some(1), Some(0), Some(0)]);
        assert_eq!(sp.decision(0, 3), Decision::Define);
        assert_eq!(sp.decision(1, 2), Decision::AvailableExternally, "the table is copied");
        assert_eq!(sp.decision(1, 3), Decision::AvailableExternally, "the literal too, under its promoted name");
        assert!(sp.promotions[3].is_some(), "one literal, named from both partitions");
        assert!(sp.name_in_partitions(3, &facts).starts_with(".str.mtpc."), "{}", sp.name_in_partitions(3, &facts));
        assert!(sp.name_in_partitions(2, &facts).starts_with("tokens.mtpc."));
        assert_eq!(sp.name_in_partitions(0, &facts), "a", "not promoted: its own name");
    }

    /// Constant data the linker does not merge (a string with a NUL inside,
    /// numbers) stays one object where code in several partitions names it;
    /// so does a literal an alias names.
    #[test]
    fn data_the_linker_does_not_merge_is_promoted_not_copied() {
        let mut bytes = literal(".bytes", 6);
        bytes.c_string = false;
        let facts = module(vec![func("a", 10, &[(2, Ref)]), func("b", 10, &[(2, Ref)]), bytes]);
        let sp = split(&facts, &[Some(0), Some(1), Some(0)]);
        assert_eq!(sp.decision(0, 2), Decision::Define);
        assert_eq!(sp.decision(1, 2), Decision::AvailableExternally);
        assert!(sp.promotions[2].is_some());
        let aliased = module(vec![literal(".str", 3), alias("name", 0)]);
        assert!(aliased.globals[0].address_in_data);
    }

    /// `-fsanitize=function`: a function's metadata names a private proxy
    /// of its type info; a partition with only a declaration of the proxy
    /// would lose it (metadata is not a use), and the code generator then
    /// reads a null.
    #[test]
    fn a_constant_function_metadata_names_is_copied_locally() {
        let mut proxy = var("__llvm_rtti_proxy", 8, &[(3, Ref)]);
        proxy.linkage = Linkage::Private;
        proxy.is_constant = true;
        proxy.unnamed_addr = true;
        let mut type_info = var("_ZTIFiiE", 16, &[]);
        type_info.linkage = Linkage::LinkOnceOdr;
        type_info.is_constant = true;
        // clang lists the proxy in llvm.compiler.used: that keeps it, and
        // holds no address the program sees.
        let mut used = var("llvm.compiler.used", 8, &[(2, Ref)]);
        used.special = Some(SpecialArray::Used);
        let facts = module(vec![func("a", 10, &[(2, Metadata)]), func("b", 10, &[(2, Metadata)]), proxy, type_info, used]);
        assert!(!facts.globals[2].address_in_data);
        let sp = split(&facts, &[Some(0), Some(1), Some(0), Some(0), None]);
        assert_eq!(sp.decision(0, 2), Decision::Define);
        assert_eq!(sp.decision(1, 2), Decision::LocalCopy);
        assert!(sp.promotions[2].is_none(), "the proxy stays private");
        assert_ne!(sp.decision(1, 3), Decision::Drop, "the copy's type info is there too");
    }

    #[test]
    fn small_constant_tables_are_copied_large_are_declared() {
        let mut small = var("small", 64, &[]);
        small.is_constant = true;
        let mut large = var("large", 1 << 20, &[]);
        large.is_constant = true;
        let facts = module(vec![func("a", 10, &[(2, Ref), (3, Ref)]), func("b", 10, &[]), small, large]);
        let sp = split(&facts, &[Some(0), Some(1), Some(1), Some(1)]);
        assert_eq!(sp.decision(0, 2), Decision::AvailableExternally);
        assert_eq!(sp.decision(0, 3), Decision::Declare);
    }

    /// LLVM 16's GlobalDCE crashes erasing a function that a dead `no_cfi`
    /// constant names: what names a function so is never copied.
    #[test]
    fn a_constant_naming_a_function_through_no_cfi_is_not_copied() {
        let mut table = var("table", 16, &[(1, Ref)]);
        table.is_constant = true;
        table.no_cfi_of = vec![1];
        let facts = module(vec![func("reader", 10, &[(2, Ref)]), func("target", 5, &[]), table]);
        let sp = split(&facts, &[Some(0), Some(1), Some(1)]);
        assert_eq!(sp.decision(0, 2), Decision::Declare);
    }

    /// A small out-of-line C++ member calling templates: a partition that
    /// calls it gets its body only if the template groups the body would
    /// bring along, and the partition does not hold already, are within
    /// `CopyLimits::brought_along`. Two template groups of
    /// `template_size` each.
    fn member_calling_templates(template_size: u32, caller_uses_template: bool) -> ModuleFacts {
        let mut caller_refs = vec![(1, Call)];
        if caller_uses_template {
            caller_refs.push((2, Call));
        }
        let mut template = func("_Z4tmplIiEvv", template_size, &[(3, Call)]);
        template.linkage = Linkage::LinkOnceOdr;
        template.comdat = Some(0);
        let mut nested = func("_Z6nestedIiEvv", template_size, &[]);
        nested.linkage = Linkage::LinkOnceOdr;
        nested.comdat = Some(1);
        let mut facts =
            module(vec![func("caller", 10, &caller_refs), func("_ZN1S6memberEv", 20, &[(2, Call)]), template, nested]);
        facts.comdat_count = 2;
        facts
    }

    #[test]
    fn a_copy_bringing_large_templates_along_is_declared() {
        let facts = member_calling_templates(COPY_LIMITS.brought_along, false);
        let sp = split(&facts, &[Some(0), Some(1), Some(1), Some(1)]);
        assert_eq!(sp.decision(0, 1), Decision::Declare);
        assert_eq!((sp.decision(0, 2), sp.decision(0, 3)), (Decision::Drop, Decision::Drop));
        assert_eq!(sp.bodies_held(&facts, 0), 10);
    }

    #[test]
    fn a_copy_bringing_small_templates_along_is_made_with_them() {
        let facts = member_calling_templates(COPY_LIMITS.brought_along / 4, false);
        let sp = split(&facts, &[Some(0), Some(1), Some(1), Some(1)]);
        assert_eq!(sp.decision(0, 1), Decision::AvailableExternally);
        assert_eq!((sp.decision(0, 2), sp.decision(0, 3)), (Decision::OdrCopy, Decision::OdrCopy));
    }

    #[test]
    fn templates_the_partition_holds_anyway_are_not_brought_along() {
        // The caller uses the template itself: the member's copy adds nothing.
        let facts = member_calling_templates(COPY_LIMITS.brought_along, true);
        let sp = split(&facts, &[Some(0), Some(1), Some(1), Some(1)]);
        assert_eq!(sp.decision(0, 1), Decision::AvailableExternally);
    }

    #[test]
    fn copies_pull_in_what_they_reference() {
        // a calls small b, which calls internal c (which d calls too): a's
        // partition gets b's body and c declared; c is promoted.
        let c = internal(func("c", 5000, &[]));
        let facts = module(vec![func("a", 10, &[(1, Call)]), func("b", 5, &[(2, Call)]), c, func("d", 10, &[(2, Call)])]);
        let sp = split(&facts, &[Some(0), Some(1), Some(1), Some(1)]);
        assert_eq!(sp.decision(0, 1), Decision::AvailableExternally);
        assert_eq!(sp.decision(0, 2), Decision::Declare);
        assert!(sp.promotions[2].as_ref().unwrap().new_name.is_some());
    }

    #[test]
    fn a_copy_gets_a_local_copy_of_what_only_it_calls() {
        // b calls internal c, which nothing else uses: a's partition, which
        // copies b (its inline size, c's counted in, is 45), gets its own
        // local copy of c (the inliner takes a local function's last call
        // whatever its size); nothing is promoted.
        let c = internal(func("c", 40, &[]));
        let facts = module(vec![func("a", 10, &[(1, Call)]), func("b", 5, &[(2, Call)]), c]);
        let sp = split(&facts, &[Some(0), Some(1), Some(1)]);
        assert_eq!(sp.decision(0, 1), Decision::AvailableExternally);
        assert_eq!(sp.decision(0, 2), Decision::LocalCopy);
        assert!(sp.promotions[2].is_none());
    }

    #[test]
    fn internal_functions_several_partitions_use_are_copied_discardable() {
        // helper is internal and called from both partitions, taken also has
        // its address taken: each partition gets a copy of both, promoted
        // (renamed, hidden) and linkonce_odr, so one partition emits each if
        // any still needs it. big is over the copy limits: promoted
        // external, declared in the other partition. solo is used by two
        // functions of one partition only: kept internal there.
        let facts = module(vec![
            func("a", 10, &[(2, Call), (3, Call), (4, Call)]),
            func("b", 10, &[(2, Call), (3, Ref), (4, Call), (5, Call)]),
            internal(func("helper", 10, &[])),
            internal(func("taken", 10, &[])),
            internal(func("big", 5000, &[])),
            internal(func("solo", 10, &[])),
            func("b2", 10, &[(5, Call)]),
        ]);
        let sp = split(&facts, &[Some(0), Some(1), Some(0), Some(0), Some(0), Some(1), Some(1)]);
        for i in [2, 3] {
            assert_eq!(sp.decision(0, i), Decision::Define);
            assert_eq!(sp.decision(1, i), Decision::OdrCopy);
            let p = sp.promotions[i].as_ref().expect("promoted");
            assert_eq!((p.linkage, p.visibility), (Linkage::LinkOnceOdr, Visibility::Hidden));
        }
        assert_eq!(sp.decision(1, 4), Decision::Declare);
        assert_eq!(sp.promotions[4].as_ref().unwrap().linkage, Linkage::External);
        assert!(sp.promotions[5].is_none());
        assert_eq!(sp.decision(0, 5), Decision::Drop);
    }

    #[test]
    fn partitions_that_only_generate_code_get_constants_but_no_function() {
        // The module of the test above and of the inline function's, once
        // optimized: with the code generation's limits, the small external
        // callee, the shared locals and the inline function are defined
        // once and declared elsewhere (locals promoted hidden and external,
        // the inline function weak_odr), while a small constant is still
        // copied for the code generator to fold.
        let mut f = func("_Z1fv", 20, &[]);
        f.linkage = Linkage::LinkOnceOdr;
        f.comdat = Some(0);
        f.inline_hint = true;
        let mut table = var("table", 64, &[]);
        table.is_constant = true;
        let mut facts = module(vec![
            func("a", 10, &[(2, Call), (3, Call), (4, Call), (5, Ref)]),
            func("b", 10, &[(3, Call)]),
            func("leaf", 5, &[]),
            internal(func("helper", 10, &[])),
            f,
            table,
        ]);
        facts.comdat_count = 1;
        facts.copy_limits = CopyLimits::CODE_GENERATION;
        let sp = split(&facts, &[Some(0), Some(1), Some(1), Some(1), Some(1), Some(1)]);
        for g in 2..5 {
            assert_eq!((sp.decision(0, g), sp.decision(1, g)), (Decision::Declare, Decision::Define), "global {g}");
        }
        let promoted = |g: usize| sp.promotions[g].as_ref().map(|p| (p.linkage, p.visibility));
        assert_eq!(promoted(2), None);
        assert_eq!(promoted(3), Some((Linkage::External, Visibility::Hidden)));
        assert_eq!(promoted(4).map(|(linkage, _)| linkage), Some(Linkage::WeakOdr));
        assert!(sp.odr_members_held(0).is_empty());
        assert_eq!(sp.decision(0, 5), Decision::AvailableExternally);
    }

    #[test]
    fn noinline_and_interposable_bodies_are_not_copied() {
        let mut ni = func("ni", 5, &[]);
        ni.no_inline = true;
        let mut weak = func("weak", 5, &[]);
        weak.linkage = Linkage::WeakAny;
        let facts = module(vec![func("a", 10, &[(1, Call), (2, Call)]), ni, weak]);
        let sp = split(&facts, &[Some(0), Some(1), Some(1)]);
        assert_eq!(sp.decision(0, 1), Decision::Declare);
        assert_eq!(sp.decision(0, 2), Decision::Declare);
    }

    #[test]
    fn strong_alias_resolves_to_aliasee_weak_alias_is_declared() {
        let mut strong = alias("strong", 0);
        strong.linkage = Linkage::External;
        let mut weak = alias("weak", 0);
        weak.linkage = Linkage::WeakAny;
        let facts = module(vec![func("impl", 5, &[]), func("user", 5, &[(2, Call), (3, Call)]), strong, weak]);
        assert!(facts.globals[2].resolves_to_aliasee() && !facts.globals[3].resolves_to_aliasee());
        let sp = split(&facts, &[Some(0), Some(1), Some(0), Some(0)]);
        // The aliasee becomes visible to the user's partition for inlining.
        assert_eq!(sp.decision(1, 0), Decision::AvailableExternally);
        assert_eq!(sp.decision(1, 2), Decision::Declare);
        assert_eq!(sp.decision(1, 3), Decision::Declare);
    }

    #[test]
    fn an_odr_alias_resolves_to_its_aliasee() {
        // `template struct Counter<long>;`: the complete-object constructor
        // C1 is a weak_odr alias of the base-object one, C2, which main's
        // partition calls through C1. Declared as itself, the call was not
        // inlined (GlobalOpt resolves it in the whole module).
        let mut c2 = func("C2", 5, &[]);
        c2.linkage = Linkage::WeakOdr;
        let mut c1 = alias("C1", 0);
        c1.linkage = Linkage::WeakOdr;
        let mut linkonce_any = alias("any", 0);
        linkonce_any.linkage = Linkage::LinkOnceAny;
        let mut facts = module(vec![c2, func("main", 5, &[(2, Call), (3, Call)]), c1, linkonce_any]);
        facts.odr_aliases_resolved = true;
        facts.mark_bound_aliases();
        assert!(facts.globals[2].resolves_to_aliasee() && !facts.globals[3].resolves_to_aliasee());
        let sp = split(&facts, &[Some(0), Some(1), Some(0), Some(0)]);
        assert_eq!(sp.decision(1, 0), Decision::AvailableExternally);
        assert_eq!(sp.decision(1, 2), Decision::Declare);
        // From LLVM 17, GlobalOpt keeps an ODR alias in the whole module:
        // so does a partition, which then needs nothing of the aliasee.
        facts.odr_aliases_resolved = false;
        facts.mark_bound_aliases();
        assert!(!facts.globals[2].resolves_to_aliasee());
        assert_eq!(split(&facts, &[Some(0), Some(1), Some(0), Some(0)]).decision(1, 0), Decision::Drop);
        // A strong alias of that ODR alias is resolved, one step, to it.
        let mut strong = alias("strong", 2);
        strong.linkage = Linkage::External;
        facts.globals.push(strong);
        facts.globals[1].refs.push((4, Call));
        facts.mark_bound_aliases();
        assert!(facts.globals[4].resolves_to_aliasee() && !facts.globals[2].resolves_to_aliasee());
    }

    #[test]
    fn a_strong_alias_of_a_weak_definition_is_declared_as_itself() {
        // api = alias of weak impl: another object may override impl, never
        // api; a partition that calls api must not call impl instead.
        let mut weak_impl = func("impl", 5, &[]);
        weak_impl.linkage = Linkage::WeakAny;
        let mut api = alias("api", 0);
        api.linkage = Linkage::External;
        // A strong alias of that strong alias stands for impl too.
        let mut api2 = alias("api2", 2);
        api2.linkage = Linkage::External;
        let facts = module(vec![weak_impl, func("user", 5, &[(2, Call), (3, Call)]), api, api2]);
        assert!(!facts.globals[2].resolves_to_aliasee() && !facts.globals[3].resolves_to_aliasee());
        let sp = split(&facts, &[Some(0), Some(1), Some(0), Some(0)]);
        assert_eq!(sp.decision(1, 0), Decision::Drop);
        assert_eq!(sp.decision(1, 2), Decision::Declare);
        assert_eq!(sp.decision(1, 3), Decision::Declare);
        // An external definition or alias that is not dso_local (-fPIC)
        // may be interposed by another library's: GlobalOpt keeps such an
        // alias, with or without semantic interposition, and so does a
        // partition.
        let mut interposable = module(vec![func("impl", 5, &[]), func("user", 5, &[(2, Call)]), alias("api", 0)]);
        interposable.globals[0].dso_local = false;
        interposable.semantic_interposition = true;
        interposable.mark_bound_aliases();
        assert!(!interposable.globals[2].resolves_to_aliasee());
        interposable.semantic_interposition = false;
        interposable.mark_bound_aliases();
        assert!(!interposable.globals[2].resolves_to_aliasee());
        interposable.globals[0].dso_local = true;
        interposable.mark_bound_aliases();
        assert!(interposable.globals[2].resolves_to_aliasee());
        interposable.globals[2].dso_local = false;
        interposable.mark_bound_aliases();
        assert!(!interposable.globals[2].resolves_to_aliasee());
    }

    #[test]
    fn shared_library_code_names_a_locally_bound_definition_elsewhere_by_a_hidden_alias() {
        // foo (dso_local, default visibility) is defined in partition 0 and
        // called from partition 1; bar is called there too, but is not
        // dso_local (-fsemantic-interposition); baz is hidden already.
        let mut bar = func("bar", 500, &[]);
        bar.dso_local = false;
        let mut baz = func("baz", 500, &[]);
        baz.visibility = Visibility::Hidden;
        let mut facts = module(vec![func("foo", 500, &[]), func("user", 5, &[(0, Call), (2, Call), (3, Call)]), bar, baz]);
        facts.is_shared_library_code = true;
        let sp = split(&facts, &[Some(0), Some(1), Some(0), Some(0)]);
        assert_eq!(sp.decision(1, 0), Decision::Declare);
        assert_eq!(sp.local_aliases, vec![Some("foo.mtpc.local".to_string()), None, None, None]);
        // Not shared-library code (an executable): the linker binds it locally anyway.
        facts.is_shared_library_code = false;
        assert!(split(&facts, &[Some(0), Some(1), Some(0), Some(0)]).local_aliases.iter().all(Option::is_none));
        // Referred to from its own partition only: no alias.
        facts.is_shared_library_code = true;
        assert!(split(&facts, &[Some(0), Some(0), Some(0), Some(0)]).local_aliases.iter().all(Option::is_none));
    }

    #[test]
    fn a_thread_local_alias_is_declared_as_itself_and_a_local_one_promoted() {
        // tls (local-exec, say) with two thread-local aliases, one external
        // and one internal; a function in the other partition reads both.
        let mut tls = internal(var("tls", 8, &[]));
        tls.thread_local = true;
        let mut external = alias("external", 0);
        external.linkage = Linkage::External;
        external.thread_local = true;
        let mut local = alias("local", 0);
        local.linkage = Linkage::Internal;
        local.thread_local = true;
        let facts = module(vec![tls, external, local, func("reader", 5, &[(1, Ref), (2, Ref)])]);
        let sp = split(&facts, &[Some(0), Some(0), Some(0), Some(1)]);
        // Declared (with their own model), not resolved: the reader's
        // partition needs nothing of the aliasee, which stays local.
        assert_eq!(sp.decision(1, 1), Decision::Declare);
        assert_eq!(sp.decision(1, 2), Decision::Declare);
        assert_eq!(sp.decision(1, 0), Decision::Drop);
        assert!(sp.promotions[0].is_none());
        // The internal alias is named across partitions: promoted, hidden.
        let promoted = sp.promotions[2].as_ref().expect("the local alias is promoted");
        assert_eq!((promoted.linkage, promoted.visibility), (Linkage::External, Visibility::Hidden));
        assert!(sp.promotions[1].is_none());
    }

    #[test]
    fn used_arrays_are_in_every_partition_ctors_in_the_primary() {
        let mut used = var("llvm.used", 8, &[(0, Ref)]);
        used.linkage = Linkage::Appending;
        used.special = Some(SpecialArray::Used);
        let mut ctors = var("llvm.global_ctors", 8, &[(1, Ref)]);
        ctors.linkage = Linkage::Appending;
        ctors.special = Some(SpecialArray::PrimaryOnly);
        let facts = module(vec![func("kept", 5, &[]), func("init", 5, &[]), used, ctors]);
        let sp = split(&facts, &[Some(1), Some(0), None, None]);
        assert_eq!(sp.decision(0, 2), Decision::FilterUsed);
        assert_eq!(sp.decision(1, 2), Decision::FilterUsed);
        assert_eq!(sp.decision(0, 3), Decision::Define);
        assert_eq!(sp.decision(1, 3), Decision::Drop);
    }

    #[test]
    fn every_definition_once_on_a_random_module() {
        let facts = module(
            (0..200u32)
                .map(|i| {
                    let mut f = func(&format!("f{i}"), 3 + (i * 37) % 150, &[((i * 7 + 1) % 200, Call), ((i * 13 + 5) % 200, Ref)]);
                    if i % 3 == 0 {
                        f.linkage = Linkage::Internal;
                    }
                    f
                })
                .collect(),
        );
        for n in [2, 8, 64] {
            let plan = make_plan(&facts, n);
            let sp = decide(&facts, &plan);
            check(&facts, &sp).unwrap();
        }
    }
}
