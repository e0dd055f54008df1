//! C++ inline functions, template instantiations and their data: every
//! partition that uses such a `linkonce_odr` COMDAT group gets a
//! discardable copy of the whole group, as a translation unit of its own
//! would. It inlines the group's functions where it pays and drops what it
//! no longer needs; the group's body survives only where something still
//! calls or refers to it out of line. After optimization, one partition
//! emits each member that survives anywhere (the first, in the order the
//! partitions started, that kept it) and the others turn their surviving
//! copies into declarations, so the object holds one copy, as stock's does,
//! and no partition compiles a body another one emits. (A group's members
//! survive together in one module; should two partitions keep different
//! members, each emits its own and the merge joins them in one group.)
//!
//! A group is copied when every member is a discardable (`linkonce`,
//! `linkonce_odr`) function (of any size: `CopyLimits::odr_function` in
//! [`crate::symbol_rules`]), variable (within the constant data limit) or
//! alias of one of them, and nothing about it needs one place: no
//! thread-local, section, `!associated`, inline asm naming it,
//! `blockaddress`, `no_cfi`, `llvm.used` or constructor entry, alias from
//! outside the group, and every global its members refer to can be named
//! from any partition. Any other group keeps the rule for definitions: one
//! owner, made `weak_odr` if other partitions refer to it. A local function
//! only a member calls (and that does not call it back, directly or in
//! turn) rides with the group (`OdrGroups::rider_of`).
//!
//! A local function (C's `static`) that several partitions use is one too,
//! a group of its own: promoted, it becomes `linkonce_odr` under its unique
//! name where it is copied, so a body every partition inlined disappears,
//! as in the whole module, rather than stay as an external definition
//! nothing calls, and one that stays out of line is emitted once (a local
//! copy in each partition would be emitted by each). Those copied only
//! because they are local (not small enough to copy as any callee) are
//! copied within a share of the module (`OdrGroups::limit_local_copies`).

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::ir::{Global, GlobalKey, GlobalKind, GlobalTable, ModuleRef};
use crate::module_facts::{GlobalFacts, Linkage, ModuleFacts, SpecialArray, KINDS};
use crate::symbol_rules::nameable_without_owning;

/// The copied groups of a module.
#[derive(Clone, Debug, Default)]
pub struct OdrGroups {
    /// The copied group of each global, if it is in one.
    pub group_of: Vec<Option<u32>>,
    /// The members of each group (global indices, in module order); none
    /// if the group was dissolved (`limit_local_copies`).
    pub members: Vec<Vec<u32>>,
    /// The group a local function rides with: one that only a member calls
    /// (or, in turn, a rider; see `symbol_rules::sole_callees`). Each
    /// partition with a copy of the member has a local copy of it, so it
    /// has no place of its own: it goes where the group goes.
    pub rider_of: Vec<Option<u32>>,
    /// The riders of each group (global indices, in module order).
    pub riders: Vec<Vec<u32>>,
    /// The local functions only one other function calls, which may be
    /// inlined and do not call it back (see `symbol_rules::sole_callees`).
    pub sole_callee: Vec<bool>,
}

impl OdrGroups {
    /// The groups of `facts` that every partition using them copies.
    pub fn find(facts: &ModuleFacts) -> OdrGroups {
        let n = facts.globals.len();
        let asm_named = facts.asm_named();
        let mut pinned_in_place = vec![false; n];
        for g in &facts.globals {
            if g.special.is_some() {
                for &(r, _) in &g.refs {
                    pinned_in_place[r as usize] = true;
                }
            }
            for &r in g.block_address_of.iter().chain(&g.no_cfi_of).chain(g.associated.iter()) {
                pinned_in_place[r as usize] = true;
            }
        }
        let sole_callers = facts.inlinable_sole_callers();
        let sole_callee = crate::symbol_rules::sole_callees(facts.globals.len(), &sole_callers);
        // Candidate groups: a COMDAT, or a definition without one.
        let mut key_of: Vec<Option<usize>> = vec![None; n];
        let mut candidates: Vec<Vec<u32>> = Vec::new();
        let mut by_comdat: HashMap<u32, usize> = HashMap::new();
        for (i, g) in facts.globals.iter().enumerate() {
            let member_of_comdat = facts.comdat_of(i);
            let slot = match member_of_comdat {
                Some(c) => *by_comdat.entry(c).or_insert_with(|| {
                    candidates.push(Vec::new());
                    candidates.len() - 1
                }),
                None if is_discardable_definition(g) || (is_local_function(g) && !sole_callee[i]) => {
                    candidates.push(Vec::new());
                    candidates.len() - 1
                }
                None => continue,
            };
            candidates[slot].push(i as u32);
            key_of[i] = Some(slot);
        }
        // An alias or ifunc outside a candidate's group pins what it names:
        // a partition whose copy became a declaration would leave it
        // aliasing a declaration.
        for (i, g) in facts.globals.iter().enumerate() {
            if let Some(t) = g.target.map(|t| t as usize) {
                if key_of[t].is_none() || key_of[t] != key_of[i] {
                    pinned_in_place[t] = true;
                }
            }
        }
        let qualifies = |members: &[u32]| {
            members.iter().all(|&m| {
                let (m, g) = (m as usize, &facts.globals[m as usize]);
                member_qualifies(facts, m)
                    && !asm_named[m]
                    && !pinned_in_place[m]
                    && g.refs.iter().all(|&(r, _)| key_of[r as usize] == key_of[m] || nameable_without_owning(facts, &asm_named, r as usize))
            })
        };
        let mut out = OdrGroups { group_of: vec![None; n], members: Vec::new(), rider_of: vec![None; n], riders: Vec::new(), sole_callee };
        for members in candidates {
            if !members.is_empty() && qualifies(&members) {
                let id = out.members.len() as u32;
                for &m in &members {
                    out.group_of[m as usize] = Some(id);
                }
                out.members.push(members);
            }
        }
        out.find_riders(&sole_callers);
        out
    }

    /// Sets `rider_of` (sole callees of members, of those in turn, ...).
    fn find_riders(&mut self, sole_callers: &[(usize, usize)]) {
        loop {
            let mut changed = false;
            for &(callee, caller) in sole_callers {
                let group = self.group_of[caller].or(self.rider_of[caller]);
                if group.is_some() && self.rider_of[callee].is_none() && self.group_of[callee].is_none() {
                    self.rider_of[callee] = group;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.riders = vec![Vec::new(); self.members.len()];
        for (i, group) in self.rider_of.iter().enumerate() {
            if let Some(g) = group {
                self.riders[*g as usize].push(i as u32);
            }
        }
    }

    /// The members of group `g`, then its riders.
    pub fn copied_globals(&self, g: u32) -> impl Iterator<Item = u32> + '_ {
        self.members[g as usize].iter().chain(&self.riders[g as usize]).copied()
    }

    /// Instructions of each group, its riders included: what optimizing a
    /// copy of it costs.
    pub fn instructions(&self, facts: &ModuleFacts) -> Vec<u64> {
        (0..self.count() as u32)
            .map(|g| self.copied_globals(g).map(|i| u64::from(facts.globals[i as usize].instructions)).sum())
            .collect()
    }

    /// The group `i` is a member or a rider of.
    pub fn copied_with(&self, i: usize) -> Option<u32> {
        self.group_of[i].or(self.rider_of[i])
    }

    pub fn count(&self) -> usize {
        self.members.len()
    }

    /// Local functions copied only because they are local (not worth
    /// copying as any callee, `CopyLimits::worth_copying`, but within
    /// `CopyLimits::local_function`) cost a copy in every partition that
    /// uses them, so a split into many partitions repeats most of them many
    /// times. They stay copied, the smallest first, up to the first whose
    /// copies no longer fit in `budget` instructions; it and the larger ones
    /// leave their groups (their riders become plain sole callees), and the
    /// symbol rules then promote them to one external definition, as any
    /// other local several partitions use. What a function's copies add is
    /// estimated from the plan (`owner`): its instructions, riders
    /// included, once per partition beyond the first whose own definitions
    /// refer to it (copies that reach it through other copies are not
    /// counted). Called after planning: packing counted these functions
    /// as copies, which cost their first user's partition nothing, so the
    /// plan's `planned` work of that partition is low by their bodies.
    /// Their groups are left empty, not renumbered. Returns the globals that
    /// left, in module order.
    pub fn limit_local_copies(&mut self, facts: &ModuleFacts, owner: &[Option<u32>], budget: u64) -> Vec<u32> {
        let limits = facts.copy_limits;
        let mut users: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); facts.globals.len()];
        for (i, g) in facts.globals.iter().enumerate() {
            if let Some(p) = owner[i] {
                for &(r, _) in &g.refs {
                    users[r as usize].insert(p);
                }
            }
        }
        // (inline size, group, what its copies add)
        let mut local: Vec<(u32, u32, u64)> = Vec::new();
        for (group, members) in self.members.iter().enumerate() {
            let &[m] = members.as_slice() else { continue };
            let g = &facts.globals[m as usize];
            if !is_local_function(g) || limits.worth_copying(g) {
                continue;
            }
            let copies = users[m as usize].len().saturating_sub(1) as u64;
            let body: u64 = self.copied_globals(group as u32).map(|i| u64::from(facts.globals[i as usize].instructions)).sum();
            if copies > 0 {
                local.push((g.inline_size, group as u32, body * copies));
            }
        }
        local.sort_unstable();
        let mut added = 0u64;
        let mut left = Vec::new();
        let total: u64 = local.iter().map(|&(_, _, copies)| copies).sum();
        for (_, group, copies) in local {
            added += copies;
            if added <= budget {
                continue;
            }
            for m in std::mem::take(&mut self.members[group as usize]) {
                self.group_of[m as usize] = None;
                left.push(m);
            }
            for r in std::mem::take(&mut self.riders[group as usize]) {
                self.rider_of[r as usize] = None;
            }
        }
        left.sort_unstable();
        log::debug!(
            "copies of local functions beyond the size limit: {total} instructions, {budget} allowed; {} functions left their groups",
            left.len()
        );
        left
    }
}

fn is_discardable_definition(g: &GlobalFacts) -> bool {
    g.is_definition && matches!(g.linkage, Linkage::LinkOnceOdr | Linkage::LinkOnceAny) && g.special.is_none()
}

/// A local function defined outside any COMDAT: partitions copy it, if
/// several use it (one that only one function calls, and does not call
/// back, has a local copy wherever that function is:
/// `symbol_rules::sole_callees`).
fn is_local_function(g: &GlobalFacts) -> bool {
    g.is_function() && g.is_definition && g.linkage.is_local() && g.comdat.is_none()
}

fn member_qualifies(facts: &ModuleFacts, i: usize) -> bool {
    let (g, limits) = (&facts.globals[i], facts.copy_limits);
    let kind_ok = match g.id.kind {
        // A local function within the limits for any callee or its own,
        // and that may be inlined; a C++ inline function (linkonce) within
        // those for copies of its group, whatever its attributes (copies
        // cost optimization work only: one partition emits).
        GlobalKind::Function => {
            let copied = if g.linkage.is_local() {
                (limits.worth_copying(g) || g.inline_size <= limits.local_function) && !g.no_inline
            } else {
                g.always_inline || g.inline_size <= limits.odr_function
            };
            limits.functions && copied && g.asm_local_refs.is_empty()
        }
        // (Groups are copied for their functions' inlining: a group of
        // constants alone only where functions are copied too.)
        GlobalKind::Variable => limits.functions && g.size <= limits.constant_bytes,
        // An alias of a member (in its aliasee's group).
        GlobalKind::Alias => facts.comdat_of(i).is_some(),
        GlobalKind::IFunc => false,
    };
    kind_ok
        && (is_discardable_definition(g) || (g.is_function() && g.linkage.is_local()))
        && !g.thread_local
        && g.section.is_none()
        && g.associated.is_none()
        && g.block_address_of.is_empty()
        && g.no_cfi_of.is_empty()
        && g.special != Some(SpecialArray::Used)
}

/// After optimization: which partition emits each member of the copied
/// groups and describes each shared C++ class in its debug information,
/// and when a partition's code generation may start.
///
/// Partition `k` emits a member it kept unless a partition that started
/// before it kept it too; likewise it describes in full a class its debug
/// information reaches (`shim/debug_types.cpp`) unless one that started
/// before it reaches it too, and declares it otherwise. So `k` may start its
/// code generation once it is optimized, and every partition that started
/// before it and held a copy of a member `k` kept (every partition that
/// started before it, if `k` reaches a class) is optimized; `k`'s own
/// choices never wait for a partition that started after it.
pub struct EmitterChoice {
    /// Each partition's place in the order the partitions started.
    rank: Vec<usize>,
    /// The members each partition holds a copy of, from the plan.
    held: Vec<BTreeSet<u32>>,
    /// What each partition kept through optimization, once known.
    kept: Vec<Option<Kept>>,
    /// Each class's number (in the order partitions reported them: only
    /// compared, never written), and the name of each number.
    class_numbers: HashMap<String, u32>,
    class_names: Vec<String>,
    /// Whose code generation was released already.
    released: Vec<bool>,
    /// Whose code generation waits for every partition's optimization.
    waits_for_every_optimization: Vec<bool>,
}

/// What an optimized partition still holds of what the choice is about.
struct Kept {
    /// The members of copied groups it defines.
    members: BTreeSet<u32>,
    /// The classes its debug information reaches (numbered by
    /// `EmitterChoice::class_numbers`).
    classes: BTreeSet<u32>,
}

impl EmitterChoice {
    /// `order`: the partitions in the order they started; `held[k]`: the
    /// members (global indices) partition `k` holds a copy of.
    pub fn new(order: &[u32], held: Vec<BTreeSet<u32>>) -> EmitterChoice {
        let mut rank = vec![0; held.len()];
        for (place, &k) in order.iter().enumerate() {
            rank[k as usize] = place;
        }
        let n = held.len();
        EmitterChoice {
            rank,
            held,
            kept: (0..n).map(|_| None).collect(),
            class_numbers: HashMap::new(),
            class_names: Vec::new(),
            released: vec![false; n],
            waits_for_every_optimization: vec![false; n],
        }
    }

    /// Records the members partition `k` kept through optimization and the
    /// classes (ODR identifiers) its debug information reaches; returns the
    /// partitions whose code generation may start now, in the order they
    /// started.
    pub fn optimized(&mut self, k: u32, members: BTreeSet<u32>, classes: Vec<String>) -> Vec<u32> {
        let classes = classes
            .into_iter()
            .map(|name| match self.class_numbers.get(&name) {
                Some(&number) => number,
                None => {
                    let number = self.class_names.len() as u32;
                    self.class_numbers.insert(name.clone(), number);
                    self.class_names.push(name);
                    number
                }
            })
            .collect();
        self.kept[k as usize] = Some(Kept { members, classes });
        let mut ready: Vec<u32> = (0..self.held.len() as u32).filter(|&p| !self.released[p as usize] && self.ready(p)).collect();
        ready.sort_by_key(|&p| self.rank[p as usize]);
        for &p in &ready {
            self.released[p as usize] = true;
        }
        ready
    }

    /// Partition `k`'s code generation waits for every partition's
    /// optimization (what their AddressSanitizer made decides what its
    /// constructors become: `ModuleRef::bracket_dynamic_initializers`,
    /// `ModuleRef::drop_asan_constructor`).
    /// Call before `optimized(k, ...)`.
    pub fn wait_for_every_optimization(&mut self, k: u32) {
        self.waits_for_every_optimization[k as usize] = true;
    }

    fn ready(&self, p: u32) -> bool {
        let Some(kept) = &self.kept[p as usize] else { return false };
        if self.waits_for_every_optimization[p as usize] && self.kept.iter().any(Option::is_none) {
            return false;
        }
        (0..self.held.len()).all(|j| {
            self.rank[j] >= self.rank[p as usize]
                || self.kept[j].is_some()
                || (self.held[j].is_disjoint(&kept.members) && kept.classes.is_empty())
        })
    }

    /// Whether partition `k`'s debug information reaches a shared class
    /// (then it describes or declares each: `described_elsewhere`). Call
    /// once `k` is released.
    pub fn reaches_classes(&self, k: u32) -> bool {
        !self.kept_by(k).classes.is_empty()
    }

    fn kept_by(&self, k: u32) -> &Kept {
        self.kept[k as usize].as_ref().expect("a released partition was optimized")
    }

    /// Whether a partition that started before `k` has the item `of` picks
    /// from it (kept that member, reaches that class).
    fn earlier_has(&self, k: u32, of: impl Fn(usize) -> bool) -> bool {
        (0..self.held.len()).any(|j| self.rank[j] < self.rank[k as usize] && of(j))
    }

    /// The members partition `k` kept that a partition started before it
    /// emits: `k` must turn its copies into declarations. Call once `k` is
    /// released.
    pub fn emitted_elsewhere(&self, k: u32) -> BTreeSet<u32> {
        self.kept_by(k)
            .members
            .iter()
            .copied()
            .filter(|g| self.earlier_has(k, |j| self.kept[j].as_ref().is_some_and(|kj| kj.members.contains(g))))
            .collect()
    }

    /// The classes partition `k` reaches that a partition started before it
    /// describes: `k` declares them. Call once `k` is released.
    pub fn described_elsewhere(&self, k: u32) -> Vec<String> {
        let mut names: Vec<String> = self
            .kept_by(k)
            .classes
            .iter()
            .filter(|c| self.earlier_has(k, |j| self.kept[j].as_ref().is_some_and(|kj| kj.classes.contains(c))))
            .map(|&c| self.class_names[c as usize].clone())
            .collect();
        names.sort_unstable();
        names
    }
}

/// The members of copied groups that `module`, an optimized partition,
/// still defines (`members`: every member by name).
pub fn kept_members(module: &ModuleRef<'_>, members: &HashMap<String, u32>) -> BTreeSet<u32> {
    if members.is_empty() {
        return BTreeSet::new();
    }
    KINDS
        .iter()
        .flat_map(|&k| module.globals(k))
        .filter(|g| !g.is_declaration() && matches!(g.linkage(), Linkage::LinkOnceOdr | Linkage::LinkOnceAny))
        .filter_map(|g| members.get(&g.name()).copied())
        .collect()
}

/// Turns `module`'s copies of `emitted_elsewhere` (members another
/// partition emits) into declarations; returns how many it changed.
pub fn declare_emitted_elsewhere(
    module: &mut ModuleRef<'_>,
    members: &HashMap<String, u32>,
    emitted_elsewhere: &BTreeSet<u32>,
) -> usize {
    if emitted_elsewhere.is_empty() {
        return 0;
    }
    let mut table = GlobalTable::new(module, &KINDS);
    let mut copies: Vec<(bool, usize)> = (0..table.len())
        .filter_map(|i| {
            let g = table.get(i)?;
            let member = members.get(&g.name())?;
            let copy = !g.is_declaration() && emitted_elsewhere.contains(member);
            copy.then(|| (g.kind() != GlobalKind::Alias, i))
        })
        .collect();
    // Aliases first: what they alias may be turned into a declaration too.
    copies.sort_unstable();
    let groups: HashSet<String> = copies.iter().filter_map(|&(_, i)| table.get(i)?.comdat_key()).collect();
    let declared = copies.into_iter().filter(|&(_, i)| table.make_declaration(i)).count();
    drop_pipeline_group_data(&mut table, members, &groups);
    declared
}

/// Erases the local data a partition's pipeline added to `groups`, whose
/// members another partition emits: SanitizerCoverage's guards, counters
/// and PC tables of a function (`private`, in the function's COMDAT, kept
/// by `llvm.compiler.used`). The partition that emits the group writes its
/// own; this one's would be a second copy of the group's sections in the
/// object, its PC table full of `1`s where the blocks of the body it no
/// longer has were (so the merge refused it, and every C++ module built for
/// fuzzing compiled whole). A group some member still defines here is left
/// as it is, and so is data something else still uses.
fn drop_pipeline_group_data(table: &mut GlobalTable<'_>, members: &HashMap<String, u32>, groups: &HashSet<String>) {
    if groups.is_empty() {
        return;
    }
    // The definitions in those groups: (index, group, a member's or not).
    let in_groups: Vec<(usize, String, bool)> = (0..table.len())
        .filter_map(|i| {
            let g = table.get(i).filter(|g| !g.is_declaration())?;
            let group = g.comdat_key().filter(|c| groups.contains(c))?;
            let member = members.contains_key(&g.name());
            (member || g.linkage().is_local()).then_some((i, group, member))
        })
        .collect();
    let still_defined: HashSet<&str> = in_groups.iter().filter(|(_, _, member)| *member).map(|(_, c, _)| c.as_str()).collect();
    let dropped: Vec<usize> =
        in_groups.iter().filter(|(_, c, member)| !member && !still_defined.contains(c.as_str())).map(|&(i, _, _)| i).collect();
    if dropped.is_empty() {
        return;
    }
    let keys: HashSet<GlobalKey> = dropped.iter().filter_map(|&i| table.get(i)).map(Global::id).collect();
    let used_arrays: Vec<usize> = (0..table.len())
        .filter(|&i| table.get(i).is_some_and(|g| matches!(g.name().as_str(), "llvm.used" | "llvm.compiler.used")))
        .collect();
    for i in used_arrays {
        table.filter_appending_array(i, |e| !e.underlying_global().is_some_and(|g| keys.contains(&g.id())));
    }
    // Until nothing more goes: one may use another.
    let mut left = dropped;
    while !left.is_empty() {
        let before = left.len();
        left.retain(|&i| !table.erase_if_unused(i));
        if left.len() == before {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module_facts::RefKind::*;
    use crate::test_support::*;

    fn linkonce(mut g: GlobalFacts, comdat: u32) -> GlobalFacts {
        g.linkage = Linkage::LinkOnceOdr;
        g.comdat = Some(comdat);
        g
    }

    fn facts_with_comdats(globals: Vec<GlobalFacts>) -> ModuleFacts {
        let mut facts = module(globals);
        facts.comdat_count = facts.globals.iter().filter_map(|g| g.comdat).max().map_or(0, |c| c + 1);
        facts
    }

    #[test]
    fn an_inline_function_and_its_static_local_are_copied_groups() {
        let facts = facts_with_comdats(vec![
            func("user", 50, &[(1, Call)]),
            linkonce(func("_Z6inlinev", 20, &[(2, Ref), (3, Ref)]), 0),
            linkonce(var("_ZZ6inlinevE1x", 4, &[]), 1),
            linkonce(var("_ZGVZ6inlinevE1x", 8, &[]), 1),
        ]);
        let groups = OdrGroups::find(&facts);
        assert_eq!(groups.count(), 2);
        assert_eq!(groups.group_of[0], None);
        assert_eq!(groups.group_of[2], groups.group_of[3], "a static local and its guard share a group");
        assert_ne!(groups.group_of[1], groups.group_of[2]);
    }

    #[test]
    fn a_group_with_any_member_that_needs_one_place_is_not_copied() {
        let mut placed = linkonce(func("_Z6placedv", 50, &[]), 0);
        placed.section = Some(".text.placed".into());
        let mut weak = func("_Z4weakv", 5, &[]);
        weak.linkage = Linkage::WeakOdr;
        weak.comdat = Some(1);
        let mut tls = linkonce(var("_ZTW1t", 4, &[]), 2);
        tls.thread_local = true;
        let mut ctors = var("llvm.global_ctors", 8, &[(5, Ref)]);
        ctors.linkage = Linkage::Appending;
        ctors.special = Some(SpecialArray::PrimaryOnly);
        let facts = facts_with_comdats(vec![
            placed,
            linkonce(func("_Z5smallv", 5, &[]), 1),
            weak,
            tls,
            ctors,
            linkonce(var("_Z6initedv", 4, &[]), 3),
        ]);
        let groups = OdrGroups::find(&facts);
        assert_eq!(groups.count(), 0, "{groups:?}");
    }

    #[test]
    fn a_cpp_inline_function_is_copied_whatever_its_size_or_attributes() {
        let mut big = linkonce(func("_Z3bigv", 50_000, &[]), 0);
        big.no_inline = true;
        let facts = facts_with_comdats(vec![big]);
        assert_eq!(OdrGroups::find(&facts).count(), 1);
    }

    #[test]
    fn a_group_referring_to_an_asm_named_local_is_not_copied() {
        let mut local = internal(func("helper", 5, &[]));
        local.comdat = None;
        let mut user = func("asm_user", 5, &[(0, Ref)]);
        user.asm_local_refs = vec![0];
        let facts = facts_with_comdats(vec![local, user, linkonce(func("_Z1fv", 5, &[(0, Call)]), 0)]);
        assert_eq!(OdrGroups::find(&facts).count(), 0);
    }

    #[test]
    fn a_constructor_alias_is_in_its_aliasee_group() {
        let c2 = linkonce(func("_ZN1AC2Ev", 10, &[]), 0);
        let mut c1 = alias("_ZN1AC1Ev", 0);
        c1.linkage = Linkage::LinkOnceOdr;
        let facts = facts_with_comdats(vec![c2, c1]);
        let groups = OdrGroups::find(&facts);
        assert_eq!(groups.count(), 1);
        assert_eq!(groups.members[0], vec![0, 1]);
    }

    #[test]
    fn a_function_an_alias_outside_its_group_names_is_not_copied() {
        // impl is static and called from two functions, but api aliases it:
        // a partition whose copy of impl became a declaration would leave
        // api aliasing a declaration. other, without an alias, is copied.
        let facts = module(vec![
            internal(func("impl", 10, &[])),
            alias("api", 0),
            func("a", 10, &[(0, Call), (3, Call)]),
            internal(func("other", 10, &[])),
            func("b", 10, &[(0, Call), (3, Call)]),
        ]);
        let groups = OdrGroups::find(&facts);
        assert_eq!(groups.group_of[0], None);
        assert_eq!(groups.members, vec![vec![3]]);
    }

    #[test]
    fn local_functions_copied_for_their_locality_stay_within_the_budget() {
        // Three partitions call s0 (small enough to copy anywhere), s2
        // (120) and s1 (90), copied only because they are local; s2 alone
        // calls r (a rider); two functions of one partition call s3.
        // Copies beyond the first partition: s1 180, s2 with r 300, s3 none.
        let calls: &[(u32, crate::module_facts::RefKind)] = &[(3, Call), (4, Call), (5, Call)];
        let facts = module(vec![
            func("a", 10, &[(3, Call), (4, Call), (5, Call), (6, Call)]),
            func("b", 10, calls),
            func("c", 10, calls),
            internal(func("s0", 10, &[])),
            internal(func("s2", 120, &[(8, Call)])),
            internal(func("s1", 90, &[])),
            internal(func("s3", 100, &[])),
            func("d", 10, &[(6, Call)]),
            internal(func("r", 30, &[])),
        ]);
        let owner = [Some(0), Some(1), Some(2), Some(0), Some(0), Some(0), Some(0), Some(0), Some(0)];
        let mut groups = OdrGroups::find(&facts);
        assert!((3..=6).all(|i| groups.group_of[i].is_some()), "{groups:?}");
        let s2_group = groups.group_of[4].unwrap();
        assert_eq!(groups.rider_of[8], Some(s2_group));
        assert_eq!(groups.clone().limit_local_copies(&facts, &owner, 480), Vec::<u32>::new(), "all within 480");
        // The smallest first: s1 fits in 200, s2 (with its rider) does not.
        assert_eq!(groups.limit_local_copies(&facts, &owner, 200), vec![4]);
        assert_eq!(groups.group_of[4], None);
        assert!(groups.members[s2_group as usize].is_empty());
        assert_eq!(groups.rider_of[8], None, "the rider is a plain sole callee again");
        assert!(groups.riders[s2_group as usize].is_empty());
        assert!([3, 5].iter().all(|&i| groups.group_of[i].is_some()), "s0 is not counted, s1 fits");
        assert!(groups.group_of[6].is_some(), "one partition uses s3: copying it adds nothing");
        assert_eq!(OdrGroups::find(&facts).limit_local_copies(&facts, &owner, 0), vec![4, 5]);
    }

    #[test]
    fn a_local_function_only_a_member_calls_rides_with_its_group() {
        // _Z1fv (inline) alone calls static r, which alone calls static s:
        // both ride with f's group, and are no members of it.
        let facts = facts_with_comdats(vec![
            func("user", 10, &[(1, Call)]),
            linkonce(func("_Z1fv", 10, &[(2, Call)]), 0),
            internal(func("r", 10, &[(3, Call)])),
            internal(func("s", 10, &[])),
        ]);
        let groups = OdrGroups::find(&facts);
        assert_eq!(groups.members, vec![vec![1]]);
        assert_eq!(groups.riders, vec![vec![2, 3]]);
        assert_eq!(groups.copied_globals(0).collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!((groups.copied_with(0), groups.copied_with(3)), (None, Some(0)));
    }

    fn set(groups: &[u32]) -> BTreeSet<u32> {
        groups.iter().copied().collect()
    }

    #[test]
    fn the_first_started_partition_that_kept_a_group_emits_it() {
        // Started in the order 2, 0, 1; all hold group 7.
        let mut choice = EmitterChoice::new(&[2, 0, 1], vec![set(&[7]), set(&[7]), set(&[7])]);
        // 1 and 0 are optimized first, but wait for 2, which started before them.
        assert!(choice.optimized(1, set(&[7]), vec![]).is_empty());
        assert!(choice.optimized(0, set(&[7]), vec![]).is_empty());
        // 2 dropped its copy (inlined everywhere): 0 emits, 1 does not.
        assert_eq!(choice.optimized(2, set(&[]), vec![]), vec![2, 0, 1]);
        assert!(choice.emitted_elsewhere(2).is_empty());
        assert!(choice.emitted_elsewhere(0).is_empty());
        assert_eq!(choice.emitted_elsewhere(1), set(&[7]));
    }

    fn names(classes: &[&str]) -> Vec<String> {
        classes.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn the_first_started_partition_reaching_a_class_describes_it() {
        // Started in the order 1, 0, 2; no copied groups.
        let mut choice = EmitterChoice::new(&[1, 0, 2], vec![set(&[]), set(&[]), set(&[])]);
        // 2 reaches a class: it waits for 1 and 0, which started before it.
        assert!(choice.optimized(2, set(&[]), names(&["_ZTS1A", "_ZTS1C"])).is_empty());
        // 0 reaches none: it waits for no one.
        assert_eq!(choice.optimized(0, set(&[]), vec![]), vec![0]);
        assert_eq!(choice.optimized(1, set(&[]), names(&["_ZTS1A", "_ZTS1B"])), vec![1, 2]);
        assert!(choice.described_elsewhere(1).is_empty(), "1 started first: it describes A and B");
        assert!(choice.described_elsewhere(0).is_empty());
        assert_eq!(choice.described_elsewhere(2), names(&["_ZTS1A"]), "2 declares A and describes C");
    }

    #[test]
    fn a_partition_waiting_for_every_optimization_is_released_with_the_last() {
        let mut choice = EmitterChoice::new(&[0, 1, 2], vec![set(&[]), set(&[]), set(&[])]);
        choice.wait_for_every_optimization(0);
        assert!(choice.optimized(0, set(&[]), Vec::new()).is_empty());
        // The others wait for nothing.
        assert_eq!(choice.optimized(2, set(&[]), Vec::new()), vec![2]);
        assert_eq!(choice.optimized(1, set(&[]), Vec::new()), vec![0, 1]);
    }

    #[test]
    fn a_partition_waits_only_for_earlier_ones_holding_what_it_kept() {
        // Order 0, 1, 2: partition 2 kept group 5, which only 2 holds.
        let mut choice = EmitterChoice::new(&[0, 1, 2], vec![set(&[1]), set(&[1]), set(&[5])]);
        assert_eq!(choice.optimized(2, set(&[5]), vec![]), vec![2]);
        assert!(choice.optimized(1, set(&[1]), vec![]).is_empty(), "1 waits for 0, which holds group 1");
        assert_eq!(choice.optimized(0, set(&[]), vec![]), vec![0, 1]);
        assert!(choice.emitted_elsewhere(1).is_empty(), "0 dropped group 1: 1 emits it");
    }
}
