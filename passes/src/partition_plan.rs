//! Which partition owns each definition.
//!
//! 1. Groups: definitions that must share a partition are united — call
//!    SCCs, COMDAT groups, a function and the users of its block addresses,
//!    an alias and its aliasee, `!associated` pairs, a local symbol named by
//!    inline asm and its users, and variables placed in one explicit section
//!    (their order in the section may matter), and an internal function
//!    called from one function only, with its caller (the inliner takes
//!    such a function whatever its size, then deletes it; apart, it would
//!    stay out of line). Some groups are pinned to the
//!    primary partition 0: `llvm.global_ctors`/`dtors` entries, ifuncs and
//!    their resolvers, weak aliases and their aliasees, locals named by
//!    module-level asm.
//! 2. Units: the groups' dominator tree, from a virtual root above every
//!    group nothing else reaches. A subtree is reachable only through its
//!    root, so a subtree kept together costs no cross-partition reference.
//!    Subtrees within the size cap become units; larger ones are cut below
//!    their root.
//! 3. Packing: units go, largest first, to the partition where they add the
//!    least work: their own, and the C++ inline and template definitions
//!    (`odr_copies`) they need that the partition does not copy yet, since
//!    every partition that uses such a definition optimizes a copy of its
//!    own. Units that share many of them end up together; a C module has
//!    none, and its units go to the least loaded partition. A unit joins
//!    the partition of the unit that dominates it while that stays within
//!    its fair share. Then units move between partitions where that lowers
//!    the work of the two (their larger and their sum: copies no longer
//!    needed twice), the most loaded partition staying within 1 %. Last,
//!    partitions merge while two together stay within four fifths of the
//!    heaviest: that happens when one unit outweighs the fair share, whose
//!    partition bounds the compile anyway, and each partition more is
//!    copies more.
//! 4. The copied definitions cost nothing to the unit they are in and are
//!    owned by the partition of their first user: a partition of nothing
//!    but such copies would only repeat its users' work.
//!
//! Every step iterates in module order and breaks ties by index, so the
//! same module and parameters always give the same plan.

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::unionfind::UnionFind;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use crate::call_graph::CallGraph;
use crate::module_facts::{Linkage, ModuleFacts, SpecialArray};
use crate::odr_copies::OdrGroups;

/// Cost given to every definition on top of its instructions, so that
/// variables and tiny functions still weigh something.
const COST_PER_DEFINITION: u64 = 1;

/// Units are cut to at most this fraction of a partition's fair share, so
/// that packing can balance them.
const UNIT_FRACTION_OF_SHARE: u64 = 2;

/// Partitions merge while together within the heaviest one's work less
/// this part of it, 1/5 (see `merge_within_the_heaviest`).
const MERGED_HEADROOM: u64 = 5;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionPlan {
    pub partitions: u32,
    /// The owning partition of every definition; `None` for declarations,
    /// `available_externally` input and the special arrays.
    pub owner: Vec<Option<u32>>,
    /// Cost (instructions) owned by each partition.
    pub cost: Vec<u64>,
    /// The work packing expected of each partition: the instructions of
    /// its units and of the copied groups they need (the definitions the
    /// symbol rules copy by size aside, which bring in few: see
    /// `CopyLimits::brought_along`). Compare with the partitions'
    /// `held_instructions` in `MTPC_STATS`.
    pub planned: Vec<u64>,
    /// The group that weighs most with the copies it needs, which no plan
    /// divides: what bounds the gain of more partitions (`None` for a
    /// single partition).
    pub largest_unit: Option<LargestUnit>,
}

/// The heaviest group of a plan with the copies it needs: the work of the
/// partition that holds it, at the least (see `bench/model.py`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LargestUnit {
    pub partition: u32,
    /// Instructions of its own functions.
    pub instructions: u64,
    /// With those of the copied definitions it needs (C++ inline and
    /// template functions, small C statics), which its partition optimizes
    /// whatever else it holds. Not counted: the small external functions
    /// its partition is given to inline (`available_externally`).
    pub held_instructions: u64,
    /// Its partition owns no other code (its data, and the copied
    /// definitions it is the first user of, aside): that partition's work
    /// is the unit's.
    pub alone: bool,
}

impl PartitionPlan {
    /// Everything in the primary partition: what `min-size` gives small modules.
    pub fn single(facts: &ModuleFacts) -> Self {
        let owner = facts.globals.iter().map(|g| owns_a_definition(g).then_some(0)).collect();
        let total = facts.total_instructions();
        PartitionPlan { partitions: 1, owner, cost: vec![total], planned: vec![total], largest_unit: None }
    }
}

fn owns_a_definition(g: &crate::module_facts::GlobalFacts) -> bool {
    g.is_definition && g.special.is_none() && g.linkage != Linkage::AvailableExternally
}

/// Plans `requested` partitions (fewer if the module has fewer units, or
/// if partitions lighter than the heaviest merge): the tests' shorthand for
/// [`Grouped::plan`].
#[cfg(test)]
pub(crate) fn plan(facts: &ModuleFacts, requested: u32) -> PartitionPlan {
    match Grouped::of(facts) {
        Some(grouped) => grouped.plan(requested, true),
        None => PartitionPlan::single(facts),
    }
}

/// A module's definitions in the groups no plan divides: the first step of
/// planning, which tells the instructions of the largest group's own code
/// (no plan divides it: what bounds the gain of more partitions; see
/// [`PartitionPlan::largest_unit`] for the group heaviest with the copies
/// it needs) before the partition count is chosen. Plain data, so that the
/// rest of the plan can be made on any thread.
pub struct Grouped<'f> {
    facts: &'f ModuleFacts,
    groups: GroupGraph,
}

impl<'f> Grouped<'f> {
    /// `None` for a module without a group to place (nothing defined).
    pub fn of(facts: &'f ModuleFacts) -> Option<Grouped<'f>> {
        if facts.globals.is_empty() {
            return None;
        }
        let cg = CallGraph::build(facts);
        let groups = GroupGraph::build(facts, &cg);
        (groups.count() > 0).then_some(Grouped { facts, groups })
    }

    /// The instructions of the largest group's own code.
    pub fn largest_group(&self) -> u64 {
        self.groups.code.iter().copied().max().unwrap_or(0)
    }

    /// Plans `requested` partitions (fewer if the module has fewer units,
    /// or, with `merge_lighter`, if partitions lighter than the heaviest
    /// fit together within it: see [`merge_within_the_heaviest`]).
    pub fn plan(&self, requested: u32, merge_lighter: bool) -> PartitionPlan {
        let (facts, groups) = (self.facts, &self.groups);
        if requested <= 1 {
            return PartitionPlan::single(facts);
        }
        let children = groups.dominator_tree();
        let total: u64 = groups.cost.iter().sum();
        let cap = (total / (u64::from(requested) * UNIT_FRACTION_OF_SHARE)).max(1);
        let units = cut_units(&children, &groups.cost, groups.count(), cap);
        // More partitions than units would stay empty.
        let partitions = requested.min(u32::try_from(units.len()).unwrap_or(u32::MAX)).max(1);
        let finder = CopyFinder::new(facts, groups);
        let copies = UnitCopies::of(&finder, &units);
        let traits = UnitTraits::of(&units, groups);
        let heaviest = heaviest_group(&finder, &units, &traits, &copies);
        let (mut unit_partition, mut loads) = pack(&units, &traits, &copies, partitions);
        rebalance(&units, &traits, &mut loads, &mut unit_partition);
        if merge_lighter {
            merge_within_the_heaviest(&mut loads, &mut unit_partition);
        }

        let mut unit_of_group = vec![0usize; groups.count()];
        for (u, unit) in units.iter().enumerate() {
            for &g in &unit.groups {
                unit_of_group[g] = u;
            }
        }
        let mut owner: Vec<Option<u32>> = groups
            .group_of
            .iter()
            .map(|g| g.map(|g| unit_partition[unit_of_group[g]]))
            .collect();
        place_data_with_first_user(facts, groups, &mut owner);
        place_copied_groups_with_first_user(facts, &groups.odr, &mut owner);
        let renumbered = renumber_without_empty(&mut owner, partitions);
        let planned = renumbered.iter().map(|&p| loads.work[p as usize]).collect();
        let partitions = renumbered.len() as u32;
        let mut cost = vec![0u64; partitions as usize];
        for (i, o) in owner.iter().enumerate() {
            if let Some(p) = o {
                cost[*p as usize] += u64::from(facts.globals[i].instructions);
            }
        }
        let largest_unit = heaviest.and_then(|heaviest| largest_unit(facts, groups, &owner, heaviest));
        PartitionPlan { partitions, owner, cost, planned, largest_unit }
    }
}

/// The group that weighs most with the copies it needs (its own code and
/// theirs; the lowest index on ties) and that weight: no plan divides it,
/// and the partition that holds it has at least that work. Its own code
/// need not be the most: in C++ a small function may need the inline and
/// template functions of a third of the module (HarfBuzz: 106
/// instructions needing 64,000). A unit weighs at least as much as each
/// of its groups (it needs every copy they need), so units are searched
/// heaviest first, only while they could hold a heavier group, and in a
/// unit only the groups whose code with the unit's copies could be.
fn heaviest_group(finder: &CopyFinder<'_>, units: &[Unit], traits: &UnitTraits, copies: &UnitCopies) -> Option<(usize, u64)> {
    let mut order: Vec<(u64, usize)> = (0..units.len()).map(|u| (copies.alone(traits, u), u)).collect();
    order.sort_unstable_by(|a, b| b.cmp(a));
    let mut seen = vec![usize::MAX; finder.weight.len()];
    let mut heaviest: Option<(usize, u64)> = None;
    for (alone, u) in order {
        if heaviest.is_some_and(|(_, held)| alone < held) {
            break;
        }
        let unit_copies = copies.weight_of(&copies.needs[u]);
        let beats = |held: u64, g: usize, heaviest: Option<(usize, u64)>| {
            heaviest.is_none_or(|(best, most)| (held, Reverse(g)) > (most, Reverse(best)))
        };
        for &g in units[u].groups.iter().filter(|&&g| finder.groups.code[g] > 0) {
            if !beats(finder.groups.code[g] + unit_copies, g, heaviest) {
                continue;
            }
            let held = finder.groups.code[g] + copies.weight_of(&finder.needs(&[g], &mut seen, g));
            if beats(held, g, heaviest) {
                heaviest = Some((g, held));
            }
        }
    }
    heaviest
}

/// Where the plan put the heaviest group (see [`heaviest_group`]), and
/// whether its partition owns other code.
fn largest_unit(facts: &ModuleFacts, groups: &GroupGraph, owner: &[Option<u32>], (largest, held): (usize, u64)) -> Option<LargestUnit> {
    let copied_in = |i: usize| groups.odr.copied_with(i).is_some();
    let partition = (0..facts.globals.len()).find(|&i| groups.group_of[i] == Some(largest) && !copied_in(i)).and_then(|i| owner[i])?;
    // No code of another group there (copied definitions and data aside).
    let alone = (0..facts.globals.len()).all(|i| {
        owner[i] != Some(partition) || groups.group_of[i] == Some(largest) || copied_in(i) || facts.globals[i].instructions == 0
    });
    Some(LargestUnit { partition, instructions: groups.code[largest], held_instructions: held, alone })
}

/// The groups (see [`groups`]) and the references between them.
struct GroupGraph {
    /// The C++ inline and template definitions every user copies.
    odr: OdrGroups,
    /// The group of each global that owns a definition.
    group_of: Vec<Option<usize>>,
    cost: Vec<u64>,
    /// Instructions of the group's own functions (data and copied
    /// definitions aside): what stays where the group is placed.
    code: Vec<u64>,
    pinned: Vec<bool>,
    /// Successors of each group, sorted, without duplicates or self-edges.
    succ: Vec<Vec<usize>>,
}

impl GroupGraph {
    /// Groups are numbered in the order of their first member.
    fn build(facts: &ModuleFacts, cg: &CallGraph) -> Self {
        let n = facts.globals.len();
        let odr = OdrGroups::find(facts);
        let (leader, pinned_global) = groups(facts, &odr);
        let mut id_of_leader: Vec<Option<usize>> = vec![None; n];
        let mut group_of = vec![None; n];
        let (mut cost, mut code, mut pinned) = (Vec::new(), Vec::new(), Vec::new());
        for (i, g) in facts.globals.iter().enumerate() {
            if !owns_a_definition(g) {
                continue;
            }
            let id = *id_of_leader[leader[i]].get_or_insert_with(|| {
                cost.push(0);
                code.push(0);
                pinned.push(false);
                cost.len() - 1
            });
            group_of[i] = Some(id);
            if odr.copied_with(i).is_none() {
                cost[id] += u64::from(g.instructions) + COST_PER_DEFINITION;
                code[id] += u64::from(g.instructions);
            }
            pinned[id] |= pinned_global[i];
        }
        let mut succ = vec![Vec::new(); cost.len()];
        for e in cg.graph.edge_indices() {
            let (a, b) = cg.graph.edge_endpoints(e).expect("edge of this graph");
            if let (Some(ga), Some(gb)) = (group_of[cg.graph[a] as usize], group_of[cg.graph[b] as usize]) {
                if ga != gb {
                    succ[ga].push(gb);
                }
            }
        }
        for s in &mut succ {
            s.sort_unstable();
            s.dedup();
        }
        GroupGraph { odr, group_of, cost, code, pinned, succ }
    }

    fn count(&self) -> usize {
        self.cost.len()
    }

    /// The children of each group in the dominator tree; index `count()`
    /// is the virtual root, which points at every group without
    /// predecessors and then (in order) at any group still unreached, such
    /// as a cycle nothing else enters.
    fn dominator_tree(&self) -> Vec<Vec<usize>> {
        let count = self.count();
        let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(count + 1, 0);
        let nodes: Vec<NodeIndex> = (0..=count).map(|_| graph.add_node(())).collect();
        let root = nodes[count];
        let mut has_pred = vec![false; count];
        for (a, succ) in self.succ.iter().enumerate() {
            for &b in succ {
                graph.add_edge(nodes[a], nodes[b], ());
                has_pred[b] = true;
            }
        }
        let mut reached = vec![false; count];
        let enter = |g: usize, graph: &mut DiGraph<(), ()>, reached: &mut Vec<bool>| {
            graph.add_edge(root, nodes[g], ());
            let mut stack = vec![g];
            while let Some(x) = stack.pop() {
                if !std::mem::replace(&mut reached[x], true) {
                    stack.extend(self.succ[x].iter().copied().filter(|&s| !reached[s]));
                }
            }
        };
        for g in 0..count {
            if !has_pred[g] {
                enter(g, &mut graph, &mut reached);
            }
        }
        for g in 0..count {
            if !reached[g] {
                enter(g, &mut graph, &mut reached);
            }
        }
        let dom = simple_fast(&graph, root);
        let mut children = vec![Vec::new(); count + 1];
        for g in 0..count {
            let parent = dom.immediate_dominator(nodes[g]).map_or(count, |p| p.index());
            children[parent].push(g);
        }
        children
    }
}

/// The copied definitions (C++ inline and template groups, see
/// `odr_copies`) each unit needs: those its members are or refer to, and
/// what those refer to in turn. A partition optimizes a copy of each group
/// any of its units needs.
struct UnitCopies {
    /// Per unit, the copied groups it needs (sorted).
    needs: Vec<Vec<u32>>,
    /// Per copied group, the work of optimizing a copy (instructions).
    weight: Vec<u64>,
}

impl UnitCopies {
    fn of(finder: &CopyFinder<'_>, units: &[Unit]) -> UnitCopies {
        let mut seen = vec![usize::MAX; finder.weight.len()];
        let needs = units.iter().enumerate().map(|(u, unit)| finder.needs(&unit.groups, &mut seen, u)).collect();
        UnitCopies { needs, weight: finder.weight.clone() }
    }

    /// What unit `u` and the copies it needs weigh: the work of a
    /// partition that held nothing else.
    fn alone(&self, traits: &UnitTraits, u: usize) -> u64 {
        traits.cost[u] + self.weight_of(&self.needs[u])
    }

    fn weight_of(&self, needed: &[u32]) -> u64 {
        needed.iter().map(|&g| self.weight[g as usize]).sum()
    }
}

/// Finds the copied groups a set of groups needs (see [`UnitCopies`]).
struct CopyFinder<'a> {
    facts: &'a ModuleFacts,
    groups: &'a GroupGraph,
    /// Per copied group, the work of optimizing a copy (instructions).
    weight: Vec<u64>,
    /// Per copied group, the copied groups its members refer to.
    odr_refs: Vec<Vec<u32>>,
    /// Per group, its members that are not copied definitions.
    members_of: Vec<Vec<usize>>,
}

impl<'a> CopyFinder<'a> {
    fn new(facts: &'a ModuleFacts, groups: &'a GroupGraph) -> Self {
        let odr = &groups.odr;
        let weight = odr.instructions(facts);
        if odr.count() == 0 {
            return CopyFinder { facts, groups, weight, odr_refs: Vec::new(), members_of: Vec::new() };
        }
        // Through the members only, not their riders (which are copied too):
        // with the riders' references, most units seem to need most of a
        // C++ module's templates, and packing spreads what they share (two
        // HarfBuzz partitions then held 480,000 instructions, not 433,000).
        // So a partition holds a little more than planned.
        let odr_refs = odr.members.iter().map(|m| Self::refers(facts, groups, &mut m.iter().map(|&i| i as usize))).collect();
        // A unit's own definitions: the copied ones in it go to their
        // first user's partition (`place_copied_groups_with_first_user`),
        // and their needs with them.
        let mut members_of: Vec<Vec<usize>> = vec![Vec::new(); groups.count()];
        for (i, g) in groups.group_of.iter().enumerate() {
            if let (Some(g), None) = (g, odr.copied_with(i)) {
                members_of[*g].push(i);
            }
        }
        CopyFinder { facts, groups, weight, odr_refs, members_of }
    }

    /// The copied groups `members` are or refer to (sorted, once each).
    fn refers(facts: &ModuleFacts, groups: &GroupGraph, members: &mut dyn Iterator<Item = usize>) -> Vec<u32> {
        let odr = &groups.odr;
        let mut out: Vec<u32> = members
            .flat_map(|m| odr.group_of[m].into_iter().chain(facts.globals[m].refs.iter().filter_map(|&(r, _)| odr.group_of[r as usize])))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The copied groups `of` (groups) needs, and what those refer to in
    /// turn (sorted). `seen` has an entry per copied group, and `mark` is
    /// a value no earlier call with the same `seen` was given.
    fn needs(&self, of: &[usize], seen: &mut [usize], mark: usize) -> Vec<u32> {
        if self.odr_refs.is_empty() {
            return Vec::new();
        }
        let mut stack = Self::refers(self.facts, self.groups, &mut of.iter().flat_map(|&g| self.members_of[g].iter().copied()));
        let mut needed = Vec::new();
        while let Some(g) = stack.pop() {
            if std::mem::replace(&mut seen[g as usize], mark) != mark {
                needed.push(g);
                stack.extend(self.odr_refs[g as usize].iter().copied().filter(|&r| seen[r as usize] != mark));
            }
        }
        needed.sort_unstable();
        needed
    }
}

/// What packing asks of each unit, worked out once.
struct UnitTraits {
    /// Instructions of its own definitions (copied ones aside).
    cost: Vec<u64>,
    /// It holds code of its own (not only data, which goes with its first
    /// user, nor only copied definitions).
    has_code: Vec<bool>,
    /// It holds a group pinned to the primary partition.
    pinned: Vec<bool>,
}

impl UnitTraits {
    fn of(units: &[Unit], groups: &GroupGraph) -> UnitTraits {
        UnitTraits {
            cost: units.iter().map(|u| u.groups.iter().map(|&g| groups.cost[g]).sum()).collect(),
            has_code: units.iter().map(|u| u.groups.iter().any(|&g| groups.code[g] > 0)).collect(),
            pinned: units.iter().map(|u| u.groups.iter().any(|&g| groups.pinned[g])).collect(),
        }
    }
}

/// The work of each partition as units are placed and moved: their own
/// cost, and once each copied group any of them needs.
struct Loads<'a> {
    cost: &'a [u64],
    copies: &'a UnitCopies,
    work: Vec<u64>,
    /// How many of each partition's units need each copied group.
    users: Vec<Vec<u32>>,
}

impl<'a> Loads<'a> {
    fn new(cost: &'a [u64], copies: &'a UnitCopies, partitions: u32) -> Self {
        let n = partitions as usize;
        Loads { cost, copies, work: vec![0; n], users: vec![vec![0; copies.weight.len()]; n] }
    }

    /// The work of unit `u` and of the copies it needs that `p` has for no
    /// other unit (`count`: the users of a group that make it `p`'s anyway).
    fn work_of(&self, u: usize, p: usize, count: u32) -> u64 {
        let copies = self.copies.needs[u].iter().filter(|&&g| self.users[p][g as usize] == count);
        self.cost[u] + copies.map(|&g| self.copies.weight[g as usize]).sum::<u64>()
    }

    /// The work unit `u` would add to partition `p`.
    fn added(&self, u: usize, p: usize) -> u64 {
        self.work_of(u, p, 0)
    }

    /// The work partition `p`, which holds unit `u`, would lose without it.
    fn freed(&self, u: usize, p: usize) -> u64 {
        self.work_of(u, p, 1)
    }

    fn place(&mut self, u: usize, p: usize) {
        self.work[p] += self.added(u, p);
        for &g in &self.copies.needs[u] {
            self.users[p][g as usize] += 1;
        }
    }

    fn remove(&mut self, u: usize, p: usize) {
        self.work[p] -= self.freed(u, p);
        for &g in &self.copies.needs[u] {
            self.users[p][g as usize] -= 1;
        }
    }
}

/// Places units on `partitions`: units holding a pinned group go to the
/// primary first; the rest, largest first (their work and that of the
/// copies they need), join the partition of the unit that dominates them
/// while it stays within its fair share, else the partition where they add
/// the least work (lowest index on ties): their own, and the copies they
/// need that it does not hold yet. Returns each unit's partition, and the
/// partitions' loads.
fn pack<'a>(units: &[Unit], traits: &'a UnitTraits, copies: &'a UnitCopies, partitions: u32) -> (Vec<u32>, Loads<'a>) {
    let unit_cost = &traits.cost;
    let mut needed_anywhere = vec![false; copies.weight.len()];
    for &g in copies.needs.iter().flatten() {
        needed_anywhere[g as usize] = true;
    }
    let copy_work: u64 = copies.weight.iter().zip(&needed_anywhere).filter(|(_, &n)| n).map(|(w, _)| w).sum();
    let total: u64 = unit_cost.iter().sum::<u64>() + copy_work;
    let n = u64::from(partitions);
    let share = total.div_ceil(n) + total / (20 * n);
    let mut loads = Loads::new(unit_cost, copies, partitions);
    let mut placed: Vec<Option<u32>> = vec![None; units.len()];
    for u in 0..units.len() {
        if traits.pinned[u] {
            loads.place(u, 0);
            placed[u] = Some(0);
        }
    }
    let alone: Vec<u64> = (0..units.len()).map(|u| copies.alone(traits, u)).collect();
    let mut order: Vec<usize> = (0..units.len()).filter(|&u| placed[u].is_none()).collect();
    order.sort_by(|&a, &b| alone[b].cmp(&alone[a]).then(a.cmp(&b)));
    // Min-heap of (load, partition) for units that need no copies (their
    // best partition is the least loaded); entries go stale when a load
    // changes and are skipped when popped.
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = (0..partitions).map(|p| Reverse((loads.work[p as usize], p))).collect();
    // Partitions that no unit with code of its own (not data, which goes
    // with its first user, nor copies) went to yet: each gets one (largest
    // first, but for a unit that joins its dominator) before
    // units may gather where their copies are (a partition of copies only
    // would be left empty, one thread idle).
    let mut unseeded: Vec<u32> = (0..partitions).filter(|&p| loads.work[p as usize] == 0).collect();
    for u in order {
        let with_parent = units[u]
            .parent
            .and_then(|p| placed[p])
            .filter(|&p| loads.work[p as usize] + loads.added(u, p as usize) <= share);
        let has_code = traits.has_code[u];
        // The least loaded of them (data may have gone there).
        let seed = (with_parent.is_none() && has_code && !unseeded.is_empty()).then(|| {
            let at = (0..unseeded.len()).min_by_key(|&i| (loads.work[unseeded[i] as usize], unseeded[i])).expect("not empty");
            unseeded.remove(at)
        });
        let p = match (seed, with_parent) {
            (Some(p), _) | (None, Some(p)) => p,
            (None, None) if copies.needs[u].is_empty() => loop {
                let Reverse((l, p)) = heap.pop().expect("every partition is in the heap");
                if l == loads.work[p as usize] {
                    break p;
                }
            },
            (None, None) => (0..partitions)
                .min_by_key(|&p| (loads.work[p as usize] + loads.added(u, p as usize), p))
                .expect("at least one partition"),
        };
        loads.place(u, p as usize);
        if has_code {
            unseeded.retain(|&q| q != p);
        }
        heap.push(Reverse((loads.work[p as usize], p)));
        placed[u] = Some(p);
    }
    (placed.into_iter().map(|p| p.expect("every unit placed")).collect(), loads)
}

/// Passes over the packed units that move a unit to another partition
/// when that lowers the two partitions' larger work plus their summed work
/// and keeps every partition within 1 % of the most loaded one before:
/// packing placed each unit knowing only those before it (and gave every
/// partition one of the largest units first), so two partitions may both
/// copy what one unit moved would leave in one. The larger work is what
/// the partitions' threads wait for; the sum, what a machine with fewer
/// cores than partitions does. Units stay where they must (pinned), with
/// the units they dominate or that dominate them, and no partition is
/// emptied (or left without code, if it had some).
fn rebalance(units: &[Unit], traits: &UnitTraits, loads: &mut Loads<'_>, placed: &mut [u32]) {
    const PASSES: usize = 4;
    let n = loads.work.len();
    let mut code_units = vec![0u32; n];
    let mut units_in = vec![0u32; n];
    for (u, &p) in placed.iter().enumerate() {
        code_units[p as usize] += u32::from(traits.has_code[u]);
        units_in[p as usize] += 1;
    }
    // The units each unit dominates, and how many of them share its partition.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); units.len()];
    let mut children_with = vec![0u32; units.len()];
    for (u, unit) in units.iter().enumerate() {
        if let Some(parent) = unit.parent {
            children[parent].push(u);
            children_with[parent] += u32::from(placed[parent] == placed[u]);
        }
    }
    let highest = loads.work.iter().copied().max().unwrap_or(0);
    let ceiling = highest + highest / 100;
    for _ in 0..PASSES {
        let mut moved = false;
        for u in 0..units.len() {
            let from = placed[u] as usize;
            let with_parent = units[u].parent.is_some_and(|parent| placed[parent] == placed[u]);
            let last = units_in[from] == 1 || (traits.has_code[u] && code_units[from] == 1);
            if traits.pinned[u] || with_parent || children_with[u] > 0 || last {
                continue;
            }
            let a = loads.work[from] - loads.freed(u, from);
            // The move that lowers the pair's larger plus summed work most.
            let best = (0..n)
                .filter(|&to| to != from)
                .filter_map(|to| {
                    let before = loads.work[from].max(loads.work[to]) + loads.work[from] + loads.work[to];
                    // What the unit's own cost alone would make it (skips
                    // counting the copies where that is already no gain).
                    let least = loads.work[to] + traits.cost[u];
                    if a.max(least) + a + least >= before || least > ceiling {
                        return None;
                    }
                    let b = loads.work[to] + loads.added(u, to);
                    let after = a.max(b) + a + b;
                    (after < before && b <= ceiling).then(|| (before - after, to))
                })
                .max_by_key(|&(gain, to)| (gain, Reverse(to)));
            if let Some((_, to)) = best {
                loads.remove(u, from);
                loads.place(u, to);
                code_units[from] -= u32::from(traits.has_code[u]);
                code_units[to] += u32::from(traits.has_code[u]);
                units_in[from] -= 1;
                units_in[to] += 1;
                // It had none of them with it, nor its parent; now it may have.
                if let Some(parent) = units[u].parent.filter(|&parent| placed[parent] == to as u32) {
                    children_with[parent] += 1;
                }
                placed[u] = to as u32;
                children_with[u] = children[u].iter().filter(|&&c| placed[c] == to as u32).count() as u32;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
}

/// Merges partitions while two together hold no more work than the most
/// loaded one less a fifth of it (`MERGED_HEADROOM`), so the heaviest
/// partition never merges and at least two partitions stay. That happens
/// when one unit with the copies it needs outweighs the fair share
/// (HarfBuzz at 16 partitions: a unit of 106 instructions needing 64,000
/// of templates, against a share of 38,000): its partition is what every
/// thread waits for, and partitions lighter than it only add copies (each
/// one optimizes its own of every inline and template function and small
/// callee it uses) and the per-partition costs (reading the module's
/// bitcode, a part of text to check and merge). The pair merged first is
/// the one that shares the most copied work, then the lightest together
/// (lowest indices on ties); the partition of the higher index is emptied
/// into the other (so the primary keeps its pinned units), and emptied
/// partitions are dropped afterwards (`renumber_without_empty`).
/// Partitions of work as even as the share allows merge nowhere: two
/// together outweigh four fifths of the heaviest.
///
/// The headroom is for what planned work does not count: the small
/// callees a partition of many units is given to inline (by size, see
/// `symbol_rules`) make it hold 10-40 % more than planned, while the
/// heaviest partition, one large unit, holds 1-5 % more. Merged up to the
/// heaviest's planned work, sqlite3's 16 partitions became 4, one of them
/// slower than the heaviest (5.8 s against 5.5 s).
fn merge_within_the_heaviest(loads: &mut Loads<'_>, placed: &mut [u32]) {
    let n = loads.work.len();
    let heaviest = loads.work.iter().copied().max().unwrap_or(0);
    if heaviest == 0 {
        return;
    }
    let ceiling = heaviest - heaviest.div_ceil(MERGED_HEADROOM);
    let mut units_in: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (u, &p) in placed.iter().enumerate() {
        units_in[p as usize].push(u);
    }
    // A partition over the ceiling fits with none.
    let mut candidates = MergeCandidates::new(loads, (0..n).filter(|&p| !units_in[p].is_empty() && loads.work[p] <= ceiling));
    while let Some((into, from, saved)) = candidates.next_within(loads, ceiling) {
        let together = loads.work[into] + loads.work[from] - saved;
        log::debug!("partition {from} merged into {into}: {together} instructions, {saved} of copies shared, ceiling {ceiling}");
        let held_by_from = candidates.held(loads, from);
        let work_before = [loads.work[into], loads.work[from]];
        for u in std::mem::take(&mut units_in[from]) {
            loads.remove(u, from);
            loads.place(u, into);
            placed[u] = into as u32;
            units_in[into].push(u);
        }
        candidates.merged(loads, into, from, &held_by_from, work_before);
    }
}

/// The candidate merges of [`merge_within_the_heaviest`]: which partitions
/// hold each copied group, the pairs that share copied work (best first,
/// in a heap whose entries a merge of either partition makes stale), and
/// the partitions by work, whose lightest two are the best pair that
/// shares nothing. Finding the pairs costs, per copied group, the square
/// of the partitions that hold it, not the square of the partitions (a
/// request for one partition per unit plans hundreds): HarfBuzz asked for
/// 256 partitions is planned in 50-56 ms, 34-37 ms without merging.
struct MergeCandidates {
    /// Per copied group, the candidate partitions that hold it.
    holders: Vec<Vec<u32>>,
    /// (copied work shared, lightest together first, lowest pair first),
    /// with the partitions' versions when it was pushed.
    pairs: BinaryHeap<(u64, Reverse<u64>, Reverse<(usize, usize)>, [u32; 2])>,
    /// Per partition, how many times it merged: a pair pushed before is
    /// stale.
    version: Vec<u32>,
    /// The candidate partitions, lightest first.
    by_work: BTreeSet<(u64, usize)>,
    /// Per partition, the copied work it shares with the one whose pairs
    /// are being pushed; and which partitions that touched.
    shared: Vec<u64>,
    touched: Vec<usize>,
}

impl MergeCandidates {
    fn new(loads: &Loads<'_>, candidates: impl Iterator<Item = usize>) -> Self {
        let n = loads.work.len();
        let by_work: BTreeSet<(u64, usize)> = candidates.map(|p| (loads.work[p], p)).collect();
        let mut holders: Vec<Vec<u32>> = vec![Vec::new(); loads.copies.weight.len()];
        for &(_, p) in &by_work {
            for (g, &users) in loads.users[p].iter().enumerate() {
                if users > 0 {
                    holders[g].push(p as u32);
                }
            }
        }
        let mut candidates =
            MergeCandidates { holders, pairs: BinaryHeap::new(), version: vec![0; n], by_work, shared: vec![0; n], touched: Vec::new() };
        let partitions: Vec<usize> = candidates.by_work.iter().map(|&(_, p)| p).collect();
        for p in partitions {
            candidates.push_pairs_of(loads, p, |q| q > p);
        }
        candidates
    }

    /// The copied groups partition `p` holds.
    fn held(&self, loads: &Loads<'_>, p: usize) -> Vec<usize> {
        (0..self.holders.len()).filter(|&g| loads.users[p][g] > 0).collect()
    }

    /// Pushes the pairs of `p` and the partitions `with` that share copied
    /// work with it.
    fn push_pairs_of(&mut self, loads: &Loads<'_>, p: usize, with: impl Fn(usize) -> bool) {
        for g in self.held(loads, p) {
            for &q in &self.holders[g] {
                let q = q as usize;
                if q != p && with(q) {
                    if self.shared[q] == 0 {
                        self.touched.push(q);
                    }
                    self.shared[q] += loads.copies.weight[g];
                }
            }
        }
        for q in std::mem::take(&mut self.touched) {
            let saved = std::mem::replace(&mut self.shared[q], 0);
            let (a, b) = (p.min(q), p.max(q));
            let together = loads.work[a] + loads.work[b] - saved;
            self.pairs.push((saved, Reverse(together), Reverse((a, b)), [self.version[a], self.version[b]]));
        }
    }

    /// The next pair to merge (into, from, copied work shared), if any fits
    /// within `ceiling`.
    fn next_within(&mut self, loads: &Loads<'_>, ceiling: u64) -> Option<(usize, usize, u64)> {
        while let Some((saved, Reverse(together), Reverse((a, b)), versions)) = self.pairs.pop() {
            if versions == [self.version[a], self.version[b]] && together <= ceiling {
                return Some((a, b, saved));
            }
        }
        // Nothing shared fits: the lightest two, if they do.
        let mut lightest = self.by_work.iter().take(2);
        let (Some(&(_, p)), Some(&(_, q))) = (lightest.next(), lightest.next()) else { return None };
        (loads.work[p] + loads.work[q] <= ceiling).then_some((p.min(q), p.max(q), 0))
    }

    /// Records that `from`, which held the copied groups `held_by_from`,
    /// was emptied into `into` (`work_before`: their work before), and
    /// pushes `into`'s new pairs.
    fn merged(&mut self, loads: &Loads<'_>, into: usize, from: usize, held_by_from: &[usize], work_before: [u64; 2]) {
        self.by_work.remove(&(work_before[0], into));
        self.by_work.remove(&(work_before[1], from));
        self.by_work.insert((loads.work[into], into));
        for &g in held_by_from {
            let holders = &mut self.holders[g];
            if let Some(at) = holders.iter().position(|&p| p as usize == from) {
                holders.swap_remove(at);
            }
            if !holders.contains(&(into as u32)) {
                holders.push(into as u32);
            }
        }
        self.version[into] += 1;
        self.version[from] += 1;
        self.push_pairs_of(loads, into, |_| true);
    }
}

/// Renumbers partitions so that none is empty, keeping 0 as the primary;
/// returns the old number of each partition kept.
fn renumber_without_empty(owner: &mut [Option<u32>], partitions: u32) -> Vec<u32> {
    let mut used = vec![false; partitions as usize];
    used[0] = true;
    for &p in owner.iter().flatten() {
        used[p as usize] = true;
    }
    let kept: Vec<u32> = (0..partitions).filter(|&p| used[p as usize]).collect();
    let mut renumber = vec![0u32; partitions as usize];
    for (new, &old) in kept.iter().enumerate() {
        renumber[old as usize] = new as u32;
    }
    for p in owner.iter_mut().flatten() {
        *p = renumber[*p as usize];
    }
    kept
}

/// A variable that is a group of its own goes to the partition of the
/// first function (in module order) that refers to it: the dominator cut
/// may have made it a unit of its own, and data costs nothing to compile.
fn place_data_with_first_user(facts: &ModuleFacts, groups: &GroupGraph, owner: &mut [Option<u32>]) {
    let mut members = vec![0u32; groups.count()];
    for g in groups.group_of.iter().flatten() {
        members[*g] += 1;
    }
    let movable = |r: usize| match groups.group_of[r] {
        Some(g) => facts.globals[r].is_variable() && members[g] == 1 && !groups.pinned[g],
        None => false,
    };
    let mut placed = vec![false; facts.globals.len()];
    for (i, f) in facts.globals.iter().enumerate() {
        let Some(p) = owner[i].filter(|_| f.is_function()) else { continue };
        for &(r, _) in &f.refs {
            let r = r as usize;
            if movable(r) && !std::mem::replace(&mut placed[r], true) {
                owner[r] = Some(p);
            }
        }
    }
}

/// Each copied group, with its riders, goes to the partition of its first
/// user, in module order (a group only other copied groups use, to
/// theirs); a group nothing uses stays where packing put it.
fn place_copied_groups_with_first_user(facts: &ModuleFacts, odr: &OdrGroups, owner: &mut [Option<u32>]) {
    let mut group_owner: Vec<Option<u32>> = vec![None; odr.count()];
    let mut reached = std::collections::VecDeque::new();
    let reach = |refs: &[(u32, crate::module_facts::RefKind)], p: u32, group_owner: &mut [Option<u32>], reached: &mut std::collections::VecDeque<u32>| {
        for &(r, _) in refs {
            if let Some(g) = odr.group_of[r as usize] {
                if group_owner[g as usize].is_none() {
                    group_owner[g as usize] = Some(p);
                    reached.push_back(g);
                }
            }
        }
    };
    for (i, g) in facts.globals.iter().enumerate() {
        if let (None, Some(p)) = (odr.copied_with(i), owner[i]) {
            reach(&g.refs, p, &mut group_owner, &mut reached);
        }
    }
    while let Some(g) = reached.pop_front() {
        let p = group_owner[g as usize].expect("reached groups have an owner");
        for m in odr.copied_globals(g) {
            reach(&facts.globals[m as usize].refs, p, &mut group_owner, &mut reached);
        }
    }
    for (g, p) in group_owner.into_iter().enumerate() {
        if let Some(p) = p {
            for m in odr.copied_globals(g as u32) {
                owner[m as usize] = Some(p);
            }
        }
    }
}

fn subtree_costs(children: &[Vec<usize>], cost: &[u64], root: usize) -> Vec<u64> {
    let mut subtree = vec![0u64; children.len()];
    // Post-order without recursion (dominator trees can be deep).
    let mut stack = vec![(root, false)];
    while let Some((node, done)) = stack.pop() {
        if done {
            let own = if node == root { 0 } else { cost[node] };
            subtree[node] = own + children[node].iter().map(|&c| subtree[c]).sum::<u64>();
        } else {
            stack.push((node, true));
            stack.extend(children[node].iter().map(|&c| (c, false)));
        }
    }
    subtree
}

/// A set of groups placed together, and the unit that dominates it.
struct Unit {
    groups: Vec<usize>,
    parent: Option<usize>,
}

/// Cuts the dominator tree into units of at most `cap` (a single group
/// may exceed it). A node whose subtree is too large becomes a unit with as
/// many of its small child subtrees as fit; the other children are cut in turn.
fn cut_units(children: &[Vec<usize>], cost: &[u64], root: usize, cap: u64) -> Vec<Unit> {
    let subtree = subtree_costs(children, cost, root);
    let collect = |start: usize, out: &mut Vec<usize>| {
        let mut stack = vec![start];
        while let Some(g) = stack.pop() {
            out.push(g);
            stack.extend(children[g].iter().rev().copied());
        }
    };
    let mut units: Vec<Unit> = Vec::new();
    let mut pending: Vec<(usize, Option<usize>)> = vec![(root, None)];
    while let Some((node, parent)) = pending.pop() {
        let here = if node == root {
            parent
        } else {
            units.push(Unit { groups: vec![node], parent });
            Some(units.len() - 1)
        };
        let mut unit_cost = if node == root { 0 } else { cost[node] };
        let mut to_cut = Vec::new();
        for &c in &children[node] {
            if subtree[c] > cap {
                to_cut.push(c);
            } else if let (Some(u), true) = (here, unit_cost + subtree[c] <= cap) {
                collect(c, &mut units[u].groups);
                unit_cost += subtree[c];
            } else {
                let mut own = Vec::new();
                collect(c, &mut own);
                units.push(Unit { groups: own, parent: here });
            }
        }
        pending.extend(to_cut.into_iter().rev().map(|c| (c, here)));
    }
    for u in &mut units {
        u.groups.sort_unstable();
    }
    units
}

/// Unites the definitions that must share a partition; also says which
/// must be in the primary partition. Returns each global's group leader.
fn groups(facts: &ModuleFacts, odr: &OdrGroups) -> (Vec<usize>, Vec<bool>) {
    let n = facts.globals.len();
    let mut uf = UnionFind::<usize>::new(n);
    let mut pinned = vec![false; n];
    for scc in facts.recursive_sccs() {
        for w in scc.windows(2) {
            uf.union(w[0] as usize, w[1] as usize);
        }
    }
    let mut comdat_leader: Vec<Option<usize>> = vec![None; facts.comdat_count as usize];
    let mut section_leader: std::collections::BTreeMap<&str, usize> = Default::default();
    for &l in &facts.module_asm_locals {
        pinned[l as usize] = true;
    }
    let asm_named = facts.asm_named();
    for (i, g) in facts.globals.iter().enumerate() {
        if let Some(c) = g.comdat {
            let leader = *comdat_leader[c as usize].get_or_insert(i);
            uf.union(leader, i);
        }
        // A function `no_cfi` names is defined where its users are (see
        // `GlobalFacts::no_cfi_of`), so a declaration of it never dies
        // before them.
        for &f in g.block_address_of.iter().chain(&g.no_cfi_of) {
            uf.union(i, f as usize);
        }
        if let Some(a) = g.associated {
            uf.union(i, a as usize);
        }
        for &(r, _) in &g.refs {
            let target = &facts.globals[r as usize];
            // A symbol inline asm names cannot be renamed, so cannot be
            // promoted; a local in a COMDAT (an alias: in its aliasee's)
            // cannot be promoted either (the linker may discard the group).
            // Their users stay with them.
            if asm_named[r as usize] || (target.linkage.is_local() && facts.comdat_of(r as usize).is_some()) {
                uf.union(i, r as usize);
            }
        }
        if let Some(t) = g.target {
            uf.union(i, t as usize);
            let is_ifunc = g.id.kind == crate::ir::GlobalKind::IFunc;
            // A C++ constructor's alias is copied with its group wherever
            // it is used (see `odr_copies`): no one place is its.
            let copied = odr.group_of[i].is_some();
            if is_ifunc || !(g.is_strong_alias() || copied) {
                pinned[i] = true;
                pinned[t as usize] = true;
            }
        }
        if g.is_variable() && g.is_definition && g.special.is_none() {
            if let Some(s) = g.section.as_deref() {
                let leader = *section_leader.entry(s).or_insert(i);
                uf.union(leader, i);
            }
        }
        if g.special == Some(SpecialArray::PrimaryOnly) {
            for &(r, _) in &g.refs {
                pinned[r as usize] = true;
            }
        }
    }
    for (callee, caller) in facts.sole_callers() {
        uf.union(callee, caller);
    }
    let leaders: Vec<usize> = (0..n).map(|i| uf.find(i)).collect();
    (leaders, pinned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module_facts::RefKind::*;

    /// `g` made an inline function: `linkonce_odr`, in COMDAT `comdat`.
    fn linkonce(mut g: crate::module_facts::GlobalFacts, comdat: u32) -> crate::module_facts::GlobalFacts {
        g.linkage = Linkage::LinkOnceOdr;
        g.comdat = Some(comdat);
        g
    }
    use crate::test_support::*;

    #[test]
    fn callees_only_reached_through_one_root_stay_with_it() {
        // a -> {a1, a2}, b -> {b1}: two roots, each with its private callees.
        let facts = module(vec![
            func("a", 100, &[(1, Call), (2, Call)]),
            func("a1", 100, &[]),
            func("a2", 100, &[]),
            func("b", 150, &[(4, Call)]),
            func("b1", 150, &[]),
        ]);
        let plan = plan(&facts, 2);
        assert_eq!(plan.partitions, 2);
        let o = &plan.owner;
        assert_eq!(o[0], o[1]);
        assert_eq!(o[0], o[2]);
        assert_eq!(o[3], o[4]);
        assert_ne!(o[0], o[3]);
    }

    #[test]
    fn balances_many_roots() {
        let facts = module((0..8).map(|i| func(&format!("f{i}"), 100, &[])).collect());
        let plan = plan(&facts, 4);
        assert_eq!(plan.partitions, 4);
        assert!(plan.cost.iter().all(|&c| c == 200), "{:?}", plan.cost);
    }

    #[test]
    fn same_input_same_plan() {
        let facts = module(
            (0..50)
                .map(|i| func(&format!("f{i}"), 10 + (i * 7) % 13, &[((i + 1) % 50, Call), ((i * 3) % 50, Ref)]))
                .collect(),
        );
        assert_eq!(plan(&facts, 8), plan(&facts, 8));
    }

    #[test]
    fn comdat_members_share_a_partition() {
        let mut f = func("f", 100, &[]);
        let mut g = func("g", 100, &[]);
        f.comdat = Some(0);
        g.comdat = Some(0);
        let mut facts = module(vec![f, func("x", 100, &[]), g, func("y", 100, &[])]);
        facts.comdat_count = 1;
        let plan = plan(&facts, 4);
        assert_eq!(plan.owner[0], plan.owner[2]);
    }

    #[test]
    fn users_of_a_local_alias_of_a_comdat_member_stay_with_it() {
        // An internal thread-local alias of an inline thread_local variable
        // is in the variable's group, which the linker may discard: it
        // cannot be promoted, so its readers stay where it is.
        let mut inline_tls = linkonce(var("inline_tls", 8, &[]), 0);
        inline_tls.thread_local = true;
        let mut local_alias = alias("local_alias", 0);
        local_alias.linkage = Linkage::Internal;
        local_alias.thread_local = true;
        let mut facts = module(vec![
            inline_tls,
            local_alias,
            func("reader_a", 100, &[(1, Ref)]),
            func("reader_b", 100, &[(1, Ref)]),
            func("other", 100, &[]),
        ]);
        facts.comdat_count = 1;
        let plan = plan(&facts, 3);
        assert_eq!(plan.owner[2], plan.owner[1]);
        assert_eq!(plan.owner[3], plan.owner[1]);
    }

    #[test]
    fn blockaddress_users_share_the_function() {
        let mut table = var("labels", 16, &[(1, Ref)]);
        table.block_address_of = vec![1];
        let facts = module(vec![func("user", 100, &[(2, Ref)]), func("interp", 100, &[]), table]);
        let plan = plan(&facts, 3);
        assert_eq!(plan.owner[1], plan.owner[2]);
    }

    #[test]
    fn no_cfi_users_share_the_function() {
        let mut user = func("user", 100, &[(1, Ref)]);
        user.no_cfi_of = vec![1];
        let facts = module(vec![user, func("target", 100, &[]), func("other", 100, &[(1, Call)])]);
        let plan = plan(&facts, 3);
        assert_eq!(plan.owner[0], plan.owner[1]);
    }

    #[test]
    fn constructors_are_pinned_to_the_primary() {
        let mut ctors = var("llvm.global_ctors", 16, &[(2, Ref)]);
        ctors.linkage = Linkage::Appending;
        ctors.special = Some(SpecialArray::PrimaryOnly);
        let facts = module(vec![func("big", 1000, &[]), ctors, func("init", 10, &[])]);
        let plan = plan(&facts, 2);
        assert_eq!(plan.owner[2], Some(0));
        assert_eq!(plan.owner[1], None);
    }

    #[test]
    fn data_goes_with_its_first_user() {
        let facts = module(vec![
            func("a", 1000, &[(2, Ref)]),
            func("b", 1000, &[(2, Ref)]),
            var("shared", 8, &[]),
        ]);
        let plan = plan(&facts, 2);
        assert_eq!(plan.owner[2], plan.owner[0]);
    }

    #[test]
    fn internal_function_with_one_caller_stays_with_it() {
        // Two large roots; each calls a large static helper of its own,
        // and b also calls a shared external one.
        let ha = internal(func("helper_a", 5000, &[]));
        let hb = internal(func("helper_b", 5000, &[]));
        let facts = module(vec![
            func("a", 100, &[(2, Call), (4, Call)]),
            func("b", 100, &[(3, Call), (4, Call)]),
            ha,
            hb,
            func("shared", 5000, &[]),
        ]);
        let plan = plan(&facts, 3);
        assert_eq!(plan.owner[0], plan.owner[2]);
        assert_eq!(plan.owner[1], plan.owner[3]);
    }

    #[test]
    fn a_copied_group_and_its_riders_go_with_the_first_user() {
        // a and b each call inline f, which alone calls static r: every
        // partition with a copy of f has one of r, so r has no place of its
        // own and goes with f, to a's partition (the first user).
        let mut f = func("_Z1fv", 10, &[(3, Call)]);
        f.linkage = crate::module_facts::Linkage::LinkOnceOdr;
        f.comdat = Some(0);
        let mut facts = module(vec![
            func("a", 6000, &[(2, Call)]),
            func("b", 5000, &[(2, Call)]),
            f,
            internal(func("r", 3000, &[])),
        ]);
        facts.comdat_count = 1;
        let plan = plan(&facts, 2);
        assert_eq!(plan.partitions, 2);
        assert_ne!(plan.owner[0], plan.owner[1]);
        assert_eq!(plan.owner[2], plan.owner[0]);
        assert_eq!(plan.owner[3], plan.owner[0], "the rider goes where its group goes");
    }

    #[test]
    fn the_largest_unit_is_the_largest_group_with_the_copies_it_needs() {
        // a and a2 call each other (one group of 9,000); a2 and b call
        // inline f, which alone calls static r: f's partitions copy both.
        let mut f = func("_Z1fv", 10, &[(4, Call)]);
        f.linkage = crate::module_facts::Linkage::LinkOnceOdr;
        f.comdat = Some(0);
        let mut facts = module(vec![
            func("a", 6000, &[(1, Call)]),
            func("a2", 3000, &[(0, Call), (3, Call)]),
            func("b", 5000, &[(3, Call)]),
            f,
            internal(func("r", 300, &[])),
        ]);
        facts.comdat_count = 1;
        let plan = plan(&facts, 2);
        let unit = plan.largest_unit.expect("a split plan has a largest unit");
        assert_eq!(Some(unit.partition), plan.owner[0]);
        assert_eq!(unit.instructions, 9000);
        assert_eq!(unit.held_instructions, 9000 + 10 + 300, "the group, its copy of f and f's rider");
        assert!(unit.alone, "b went to the other partition");
    }

    #[test]
    fn the_largest_unit_shares_its_partition_when_the_others_outweigh_it() {
        // {a, a2} (9,000) and b, c, d (5,000 each) on 2 partitions: b and c
        // fill the other one (10,000), so d joins the unit's.
        let facts = module(vec![
            func("a", 6000, &[(1, Call)]),
            func("a2", 3000, &[(0, Call)]),
            func("b", 5000, &[]),
            func("c", 5000, &[]),
            func("d", 5000, &[]),
        ]);
        let plan = plan(&facts, 2);
        let unit = plan.largest_unit.expect("a split plan has a largest unit");
        assert_eq!((unit.instructions, unit.held_instructions), (9000, 9000));
        assert_eq!(plan.owner[4], Some(unit.partition));
        assert!(!unit.alone);
    }

    /// The largest unit is the group that weighs most with the copies it
    /// needs, not the one with the most code: a small C++ function that
    /// calls an inline function, which calls another, brings both along,
    /// and no plan gives its partition less.
    #[test]
    fn the_largest_unit_counts_the_copies_a_small_function_needs() {
        let mut facts = module(vec![
            func("big", 5000, &[]),
            func("small", 50, &[(2, Call)]),
            linkonce(func("_Z1fv", 4000, &[(3, Call)]), 0),
            linkonce(func("_Z1gv", 3000, &[]), 1),
            func("other", 2000, &[]),
        ]);
        facts.comdat_count = 2;
        let plan = plan(&facts, 3);
        let unit = plan.largest_unit.expect("a split plan has a largest unit");
        assert_eq!(Some(unit.partition), plan.owner[1], "small's group, not big's");
        assert_eq!((unit.instructions, unit.held_instructions), (50, 50 + 4000 + 3000));
        assert!(unit.alone, "three partitions: big, small and other apart");
        let symbols = crate::symbol_rules::decide(&facts, &plan);
        assert_eq!(symbols.bodies_held(&facts, unit.partition), unit.held_instructions, "what its partition holds");
    }

    /// The search that skips units and groups which cannot weigh more
    /// finds what weighing every group finds, ties included (to the lowest
    /// index), on modules of plain and inline functions calling each other.
    #[test]
    fn the_heaviest_group_search_finds_what_weighing_every_group_finds() {
        for seed in 0..40u32 {
            let n = 60;
            let globals = (0..n)
                .map(|i| {
                    // Calls to later functions only: no cycle, many groups.
                    let callees: Vec<(u32, crate::module_facts::RefKind)> = (1..3)
                        .map(|k| i + 1 + (i * 7 + k * (seed + 3) + seed * k * k) % 9)
                        .filter(|&c| c < n)
                        .map(|c| (c, Call))
                        .collect();
                    let size = 10 + (i * 13 + seed * 5) % 40;
                    match (i + seed) % 3 {
                        0 => linkonce(func(&format!("_Z1f{i}v"), size, &callees), i),
                        _ => func(&format!("f{i}"), size, &callees),
                    }
                })
                .collect();
            let mut facts = module(globals);
            facts.comdat_count = n;
            let cg = CallGraph::build(&facts);
            let groups = GroupGraph::build(&facts, &cg);
            let children = groups.dominator_tree();
            let cap = (groups.cost.iter().sum::<u64>() / 8).max(1);
            let units = cut_units(&children, &groups.cost, groups.count(), cap);
            let finder = CopyFinder::new(&facts, &groups);
            let copies = UnitCopies::of(&finder, &units);
            let traits = UnitTraits::of(&units, &groups);
            let mut brute: Option<(usize, u64)> = None;
            for g in (0..groups.count()).filter(|&g| groups.code[g] > 0) {
                let held = groups.code[g] + copies.weight_of(&finder.needs(&[g], &mut vec![usize::MAX; finder.weight.len()], 0));
                if brute.is_none_or(|(_, most)| held > most) {
                    brute = Some((g, held));
                }
            }
            assert_eq!(heaviest_group(&finder, &units, &traits, &copies), brute, "seed {seed}");
        }
    }

    /// Packing weighs each partition's work as the symbol rules will make
    /// it: its own code and the copies of the C++ inline and template
    /// groups its code needs. A unit of a copied group is not charged that
    /// group: the group goes to its first user, and every user copies it.
    #[test]
    fn planned_work_is_the_work_each_partition_gets() {
        // a and b call inline X; X calls inline Y and f, which nothing else
        // calls: X, Y and f form one unit, whose only code is f's.
        let mut facts = module(vec![
            func("a", 500, &[(4, Call)]),
            func("b", 500, &[(4, Call)]),
            func("c", 1000, &[]),
            func("d", 1000, &[]),
            linkonce(func("_Z1Xv", 10, &[(5, Call), (6, Call)]), 0),
            linkonce(func("_Z1Yv", 1000, &[]), 1),
            func("f", 900, &[]),
        ]);
        facts.comdat_count = 2;
        let plan = plan(&facts, 2);
        let symbols = crate::symbol_rules::decide(&facts, &plan);
        for p in 0..plan.partitions {
            let held = symbols.bodies_held(&facts, p);
            let owned = plan.owner.iter().filter(|&&o| o == Some(p)).count() as u64;
            // The plan counts each definition it places one more (COST_PER_DEFINITION).
            assert!(plan.planned[p as usize].abs_diff(held) <= owned, "partition {p}: planned {} held {held}", plan.planned[p as usize]);
        }
    }

    /// Packing seeds each partition with one of the largest units, so a
    /// and b, which share a large template, start apart and both copy it;
    /// moving a to b's partition afterwards leaves one copy and c alone.
    #[test]
    fn units_sharing_copies_are_moved_together() {
        let mut t = func("_Z1tv", 1000, &[]);
        t.linkage = crate::module_facts::Linkage::LinkOnceOdr;
        t.comdat = Some(0);
        let mut facts = module(vec![func("a", 100, &[(3, Call)]), func("b", 100, &[(3, Call)]), func("c", 1100, &[]), t]);
        facts.comdat_count = 1;
        let plan = plan(&facts, 2);
        assert_eq!(plan.owner[0], plan.owner[1]);
        assert_ne!(plan.owner[0], plan.owner[2]);
        let symbols = crate::symbol_rules::decide(&facts, &plan);
        let held: Vec<u64> = (0..2).map(|p| symbols.bodies_held(&facts, p)).collect();
        assert_eq!(held.iter().sum::<u64>(), 100 + 100 + 1000 + 1100, "one copy of t: {held:?}");
    }

    /// One unit outweighs the fair share: the partitions lighter than it
    /// are merged while two together stay within the heaviest's work less
    /// its headroom, so they copy less and wait no longer.
    #[test]
    fn partitions_lighter_than_the_heaviest_are_merged_around_it() {
        let mut facts = module((0..4).map(|i| func(&format!("f{i}"), 100, &[])).collect());
        facts.globals.insert(0, func("big", 1000, &[]));
        let plan = plan(&facts, 5);
        // big (1,001 planned) alone; f0-f3 (101 each) together: 404 <= 801.
        assert_eq!(plan.partitions, 2, "{:?}", plan.planned);
        assert!(plan.owner[1..].iter().all(|&o| o == plan.owner[1]));
        assert_ne!(plan.owner[0], plan.owner[1]);
        assert_eq!(plan.planned.iter().sum::<u64>(), 1001 + 4 * 101);
    }

    /// The pair merged first is the one that shares the most copied work,
    /// not the lightest: a and b need template t (300) and merge (400 +
    /// 400 - 300 = 500), though a and c would be lighter (450); c joining
    /// them would make 550, over the ceiling of 651 - 130.
    #[test]
    fn the_partitions_sharing_most_copies_merge_first() {
        let mut facts = module(vec![
            func("big", 650, &[]),
            func("a", 99, &[(4, Call)]),
            func("b", 99, &[(4, Call)]),
            func("c", 49, &[]),
            linkonce(func("_Z1tv", 300, &[]), 0),
        ]);
        facts.comdat_count = 1;
        let plan = plan(&facts, 4);
        let o = &plan.owner;
        assert_eq!(plan.partitions, 3, "{:?}", plan.planned);
        assert_eq!(o[1], o[2]);
        assert_ne!(o[1], o[3]);
        assert_ne!(o[0], o[1]);
        assert_ne!(o[0], o[3]);
    }

    /// Merging empties the higher partition into the lower: the primary,
    /// holding the constructor pinned to it, takes the small functions in
    /// and keeps it. Without merging, packing's four partitions stay.
    #[test]
    fn merging_keeps_the_primary_and_no_merge_keeps_the_count() {
        let mut ctors = var("llvm.global_ctors", 16, &[(2, Ref)]);
        ctors.linkage = Linkage::Appending;
        ctors.special = Some(SpecialArray::PrimaryOnly);
        let mut globals = vec![func("big", 1000, &[]), ctors, func("init", 10, &[])];
        globals.extend((0..3).map(|i| func(&format!("f{i}"), 100, &[])));
        let facts = module(globals);
        let plan = plan(&facts, 4);
        assert_eq!(plan.partitions, 2, "{:?}", plan.planned);
        assert_eq!(plan.owner[2], Some(0));
        assert!(plan.owner[3..].iter().all(|&o| o == Some(0)), "{:?}", plan.owner);
        let unmerged = Grouped::of(&facts).expect("groups").plan(4, false);
        assert_eq!(unmerged.partitions, 4, "{:?}", unmerged.planned);
        assert_eq!(unmerged.owner[2], Some(0));
    }

    /// Partitions as even as the share allows are left as they are: no
    /// two together fit within the heaviest.
    #[test]
    fn even_partitions_are_not_merged() {
        let facts = module((0..6).map(|i| func(&format!("f{i}"), 100 + i, &[])).collect());
        assert_eq!(plan(&facts, 6).partitions, 6);
    }

    #[test]
    fn fewer_units_than_requested_gives_fewer_partitions() {
        let facts = module(vec![func("a", 10, &[]), func("b", 10, &[])]);
        let plan = plan(&facts, 16);
        assert_eq!(plan.partitions, 2);
        let mut owners: Vec<u32> = plan.owner.iter().flatten().copied().collect();
        owners.sort();
        assert_eq!(owners, vec![0, 1]);
    }
}
