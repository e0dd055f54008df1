//! Which partition owns each definition.
//!
//! 1. Groups: definitions that must share a partition are united — call
//!    SCCs, COMDAT groups, a function and the users of its block addresses,
//!    an alias and its aliasee, `!associated` pairs, a local symbol named by
//!    inline asm and its users, and variables placed in one explicit section
//!    outside COMDAT groups (their order in the section may matter), and an internal function
//!    called from one function only, with its caller (the inliner takes
//!    such a function whatever its size, then deletes it; apart, it would
//!    stay out of line). Some groups are pinned to the
//!    primary partition 0: `llvm.global_ctors`/`dtors` entries, ifuncs and
//!    their resolvers, weak aliases and their aliasees, locals named by
//!    module-level asm, and the variables ASan is to treat as dynamically
//!    initialized (its module name must be the constructors').
//! 2. Units: the groups' dominator tree, from a virtual root above every
//!    group nothing else reaches. A subtree is reachable only through its
//!    root, so a subtree kept together costs no cross-partition reference.
//!    A group of variables only hangs under its first user instead (it is
//!    placed with it, step 5). Subtrees within an eighth of a
//!    partition's fair share of the groups' own work (loops and
//!    dispatches weighed as packing weighs them, step 3) become units;
//!    larger ones are cut below their root.
//! 3. Copies: what each unit needs copied into the partition that holds
//!    it, besides its own code (`CopyFinder`): the C++ inline and template
//!    groups (`odr_copies`) it is or uses, every partition using one
//!    optimizing a copy of its own, and the functions and constants small
//!    enough to copy where they are used (`symbol_rules`), which every
//!    partition that uses them but their owner's copies; each with what it
//!    uses in turn. A computed-goto dispatch, and a loop, weigh more than
//!    their instructions where they are owned (`function_work`).
//! 4. Packing (`packing`): units that share copies, or of which one
//!    dominates the other, are clustered, the clusters packed where they
//!    add the least work, and the units refined, so that copies are
//!    repeated in as few partitions as the balance of the partitions'
//!    work allows. Partitions lighter than the heaviest then merge around
//!    it. Where a copy by size would bring more C++ groups along than its
//!    limit, the copies can be weighed two ways (`CopyModel`): above two
//!    partitions both plans are made, and the one whose partitions the
//!    symbol rules give the least work is kept.
//! 5. The copied definitions cost nothing to the unit they are in and are
//!    owned by the partition of their first user: a partition of nothing
//!    but such copies would only repeat its users' work. A group of
//!    variables only (none copied) goes with its first user, whole.
//!
//! Every step iterates in module order and breaks ties by index, so the
//! same module and parameters always give the same plan.

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::unionfind::UnionFind;
use std::cmp::Reverse;

use crate::call_graph::CallGraph;
use crate::module_facts::{Linkage, ModuleFacts, RefKind, SpecialArray};
use crate::odr_copies::OdrGroups;
use crate::packing::{self, PackingInput};
use crate::symbol_rules::{constant_copyable_by_size, copyable_by_size};

/// Cost given to every definition on top of its instructions, so that
/// variables and tiny functions still weigh something.
const COST_PER_DEFINITION: u64 = 1;

/// Units are cut to at most this fraction of a partition's fair share, so
/// that packing can balance them and cluster what shares copies. (Cut to
/// half a share, C++ units each needed most of a partition's templates;
/// cut finer, to a 32nd or a 64th, the plans held as many copies and cut
/// more calls between partitions: more locals made external.)
const UNIT_FRACTION_OF_SHARE: u64 = 8;

/// Where the heaviest group with the copies it needs outweighs a fair
/// share, the other partitions are packed to its work less this part of
/// its own code's (1/5), and the share's headroom, not beyond (or to a
/// lighter group's work less its margin, if that is more: a group whose
/// work is mostly copies, whose partition takes them anyway; see
/// [`HeaviestGroup::bound`]): its partition is what the compile waits for,
/// and its own code's work is the plan's least sure estimate, a large
/// function's loops and dispatch weighed by constants fitted to many
/// (see [`function_work`]). Packed up to the whole of QuickJS's
/// interpreter's work at 16 partitions asked for, the slower of the two
/// others took 4.9 to 5.2 s against its 4.2 to 4.5 s (three runs, one
/// thread); a fifth less, the slowest was its own, 3.9 to 4.2 s, and the
/// work in all was no more. The
/// copies are not part of the margin: HarfBuzz's heaviest is a function
/// of 106 instructions needing 75,000 of templates, and its others,
/// packed up to that, took no longer (a margin of a fifth of all of it
/// made 11 partitions of 8 and 16 % more work, for the same wait).
const OWN_CODE_HEADROOM: u64 = 5;

/// A function whose blocks' addresses are taken (a computed-goto
/// dispatch: an `indirectbr` over a table of `blockaddress`es) weighs this
/// many times its instructions (see [`function_work`]).
const COMPUTED_GOTO_WEIGHT: u64 = 3;

/// What a loop's back edge adds to its function's work, in instructions
/// (see [`function_work`]).
const BACK_EDGE_WEIGHT: u64 = 64;

/// The work of optimizing and generating code for a function of
/// `instructions`, in instructions of an ordinary function: what packing
/// balances. A computed-goto dispatch weighs more: the code generator
/// duplicates the dispatch into every block that jumps back to it, and
/// what follows works on the grown body. With stock `clang-16 -O2
/// -ftime-trace` (each function's own passes and code generation),
/// QuickJS's interpreter, `JS_CallInternal` (11,897 instructions), took
/// 181 µs per instruction, its other functions of 16 to 4,096
/// instructions 36 to 50. Weighed by instructions alone, a 2-partition
/// plan put the interpreter with the parser, and that partition took 1.3x
/// the other's time; weighed three times, the interpreter's partition
/// and the heaviest other took within 12 % of each other's time at 2, 8
/// and 16 partitions asked for. (Size alone is no such
/// sign: sqlite3's functions of 1,024 to 4,096 instructions took 64 to 85
/// µs per instruction against 40 to 54 for smaller ones, but weighing
/// large functions more made its 2-partition plan slower.)
///
/// A loop weighs more too, [`BACK_EDGE_WEIGHT`] instructions for each of
/// its back edges: its code is what unrolling, vectorization and the code
/// generator's loop passes work on. Partitions alike in instructions took
/// up to twice each other's time, and HarfBuzz's slowest of 8 held 274
/// back edges of its own against 15 to 107. Fitted to 105 partitions of
/// six units of five programs (their times against their instructions
/// and back edges), the error is least with 48 to 64; with 64, HarfBuzz's
/// slowest partition at 16 asked for executed 21 % fewer instructions,
/// and became the largest unit's (README, the benchmark's history,
/// 2026-12-04). Per function no such weight shows, as a function's time
/// holds what it inlined. A copy's loops are not weighed (see the
/// README's history, 2026-12-04, for what weighing them did).
fn function_work(instructions: u64, back_edges: u64, computed_goto: bool) -> u64 {
    let body = if computed_goto { COMPUTED_GOTO_WEIGHT * instructions } else { instructions };
    body + BACK_EDGE_WEIGHT * back_edges
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionPlan {
    pub partitions: u32,
    /// The owning partition of every definition; `None` for declarations,
    /// `available_externally` input and the special arrays.
    pub owner: Vec<Option<u32>>,
    /// Cost (instructions) owned by each partition.
    pub cost: Vec<u64>,
    /// The work packing expected of each partition: that of its units'
    /// own code (loops and dispatches weighed) and the instructions of the
    /// copied groups they need (the definitions the
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
        Some(grouped) => grouped.plan(requested, true, None),
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
    /// fit together within it: see [`packing::merge_within_the_heaviest`]).
    ///
    /// With `exact`, the work the symbol rules give each partition of a
    /// plan (`SymbolPlan::bodies_held`), a plan of more than two partitions
    /// is made under both models of the copies a function copied by size
    /// brings along ([`CopyModel`]), and the one whose partitions hold the
    /// least work, the most loaded weighed once per partition asked for
    /// (what the compile waits for on as many threads), is kept: either
    /// model misses what the other sees.
    pub fn plan(&self, requested: u32, merge_lighter: bool, exact: Option<&dyn Fn(&PartitionPlan) -> Vec<u64>>) -> PartitionPlan {
        if requested <= 1 {
            return PartitionPlan::single(self.facts);
        }
        let units = self.units(requested);
        let (lean, models_differ) = self.plan_units(&units, requested, merge_lighter, CopyModel::Lean);
        let Some(exact) = exact.filter(|_| models_differ && lean.partitions > 2) else { return lean };
        let (full, _) = self.plan_units(&units, requested, merge_lighter, CopyModel::Full);
        if full.owner == lean.owner {
            return lean;
        }
        let weighed = |plan: &PartitionPlan| {
            let held = exact(plan);
            u64::from(requested) * held.iter().copied().max().unwrap_or(0) + held.iter().sum::<u64>()
        };
        let (lean_work, full_work) = (weighed(&lean), weighed(&full));
        log::debug!("plans under the lean and the full model of the copies weigh {lean_work} and {full_work}");
        if full_work < lean_work {
            full
        } else {
            lean
        }
    }

    /// The units of a plan for `requested` partitions: the dominator tree
    /// (with each group of variables only under its first user) cut into subtrees
    /// of at most [`UNIT_FRACTION_OF_SHARE`] of a partition's share of the
    /// groups' own work ([`GroupGraph::own_work`]), so that a loop-heavy
    /// subtree is cut as finely as a loop-free one of as much work.
    fn units(&self, requested: u32) -> Vec<Unit> {
        let groups = &self.groups;
        let mut children = groups.dominator_tree();
        let data_first_users = groups.data_first_users(self.facts);
        attach_data_to_first_users(&mut children, &data_first_users);
        let work = groups.own_work();
        let total: u64 = work.iter().sum();
        let cap = (total / (u64::from(requested) * UNIT_FRACTION_OF_SHARE)).max(1);
        let mut units = cut_units(&children, &work, groups.count(), cap);
        move_data_to_first_users(&mut units, &data_first_users);
        units
    }

    /// Places `units` on `requested` partitions (fewer if there are fewer
    /// units), their copies weighed under `model`; and whether the models
    /// differ for this module (some copy by size would bring more along
    /// than the limit).
    fn plan_units(&self, units: &[Unit], requested: u32, merge_lighter: bool, model: CopyModel) -> (PartitionPlan, bool) {
        // More partitions than units would stay empty.
        let partitions = requested.min(u32::try_from(units.len()).unwrap_or(u32::MAX)).max(1);
        let finder = CopyFinder::new(self.facts, &self.groups, model);
        let copies = UnitCopies::of(&finder, units);
        let traits = UnitTraits::of(units, &finder);
        let parents: Vec<Option<usize>> = units.iter().map(|u| u.parent).collect();
        let input = traits.packing_input(&copies, &parents);
        let heaviest = heaviest_group(&finder, units, &input);
        let bound = heaviest.map_or(0, |h| h.bound);
        let (mut placed, mut loads, clusters) = packing::place(&input, partitions, bound, !merge_lighter);
        if merge_lighter && packing::merge_within_the_heaviest(&mut loads, &mut placed) {
            packing::refine(&mut loads, &mut placed, bound, &clusters);
        }
        // The plan reports what the heaviest group holds in instructions.
        let heaviest = heaviest.map(|h| (h.group, h.held - self.groups.extra_work[h.group]));
        (self.complete(units, &placed, &loads, partitions, heaviest), finder.models_differ)
    }

    /// The plan of units placed on `partitions` (`loads`): each
    /// definition's partition, data with its first user and each copied
    /// group with its, renumbered without the empty partitions.
    fn complete(&self, units: &[Unit], placed: &[u32], loads: &packing::Loads<'_>, partitions: u32, heaviest: Option<(usize, u64)>) -> PartitionPlan {
        let (facts, groups) = (self.facts, &self.groups);
        let mut unit_of_group = vec![0usize; groups.count()];
        for (u, unit) in units.iter().enumerate() {
            for &g in &unit.groups {
                unit_of_group[g] = u;
            }
        }
        let mut owner: Vec<Option<u32>> = groups.group_of.iter().map(|g| g.map(|g| placed[unit_of_group[g]])).collect();
        // Data first, so that a copied group only data uses goes where that
        // data goes; then again, for data whose first user is a copied
        // function, to where that function is emitted.
        place_data_with_first_user(facts, groups, &mut owner);
        place_copied_groups_with_first_user(facts, &groups.odr, &mut owner);
        place_data_with_first_user(facts, groups, &mut owner);
        let kept = renumber_without_empty(&mut owner, partitions);
        let planned = kept.iter().map(|&p| loads.work[p as usize]).collect();
        let partitions = kept.len() as u32;
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

/// The group that weighs most with the copies it needs, and the most work
/// the other partitions take beside the groups no plan divides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HeaviestGroup {
    /// The group that weighs most with the copies it needs (the work of
    /// its own code, see [`function_work`], and theirs; the lowest index
    /// on ties): no plan divides it, and the partition that holds it has
    /// at least that work. Its own code need not be the most: in C++ a
    /// small function may need the inline and template functions of a
    /// third of the module (HarfBuzz: 106 instructions needing 75,000).
    group: usize,
    /// Its work with the copies it needs.
    held: u64,
    /// The most, over the groups, of a group's work with its copies less
    /// a fifth of its own code's ([`OWN_CODE_HEADROOM`]): the heaviest
    /// group's, or a lighter one's whose work is mostly copies, which its
    /// partition takes anyway.
    bound: u64,
}

/// The heaviest group and the bound beside it (see [`HeaviestGroup`]). A
/// unit weighs at least as much as each of its groups (it needs every
/// copy they need), so units are searched heaviest first, only while they
/// could hold a heavier group or raise the bound, and in a unit only the
/// groups whose code with the unit's copies could.
fn heaviest_group(finder: &CopyFinder<'_>, units: &[Unit], input: &PackingInput<'_>) -> Option<HeaviestGroup> {
    let mut order: Vec<(u64, usize)> = (0..units.len()).map(|u| (input.alone(u), u)).collect();
    order.sort_unstable_by(|a, b| b.cmp(a));
    let mut seen = vec![usize::MAX; finder.weight.len()];
    let mut heaviest: Option<HeaviestGroup> = None;
    let beats = |held: u64, g: usize, heaviest: Option<HeaviestGroup>| {
        heaviest.is_none_or(|h| (held, Reverse(g)) > (h.held, Reverse(h.group)))
    };
    for (alone, u) in order {
        if heaviest.is_some_and(|h| alone < h.held && alone <= h.bound) {
            break;
        }
        let unit_copies = input.weight_of(&input.needs[u]);
        for &g in units[u].groups.iter().filter(|&&g| finder.groups.code[g] > 0) {
            let own = finder.own_work(g);
            let margin = own.div_ceil(OWN_CODE_HEADROOM);
            let at_most = own + unit_copies;
            if !beats(at_most, g, heaviest) && heaviest.is_some_and(|h| at_most - margin <= h.bound) {
                continue;
            }
            let held = own + input.weight_of(&finder.needs(&[g], &mut seen, g));
            let bound = heaviest.map_or(0, |h| h.bound).max(held - margin);
            heaviest = Some(match heaviest {
                Some(h) if !beats(held, g, heaviest) => HeaviestGroup { bound, ..h },
                _ => HeaviestGroup { group: g, held, bound },
            });
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
    /// Instructions of the group's definitions (C++ copies aside), and one
    /// per definition.
    cost: Vec<u64>,
    /// Instructions of the group's own functions (data and copied
    /// definitions aside): what stays where the group is placed.
    code: Vec<u64>,
    /// Per global, whether it is data that goes with its first user: a
    /// variable whose group holds variables only, not pinned (the group
    /// goes whole; where it holds a copied C++ group's data, that group's
    /// placement decides: see [`place_data_with_first_user`]).
    data_only: Vec<bool>,
    /// Work of the group's own functions beyond their instructions: that
    /// of loops and computed-goto dispatches ([`function_work`]).
    extra_work: Vec<u64>,
    pinned: Vec<bool>,
    /// Successors of each group, sorted, without duplicates or self-edges.
    succ: Vec<Vec<usize>>,
}

impl GroupGraph {
    /// Each group's work as the units are cut by it: its `cost` and the
    /// weight of its loops and dispatches (`extra_work`).
    fn own_work(&self) -> Vec<u64> {
        self.cost.iter().zip(&self.extra_work).map(|(cost, extra)| cost + extra).collect()
    }

    /// Groups are numbered in the order of their first member.
    fn build(facts: &ModuleFacts, cg: &CallGraph) -> Self {
        let n = facts.globals.len();
        let odr = OdrGroups::find(facts);
        let (leader, pinned_global) = groups(facts, &odr);
        let mut id_of_leader: Vec<Option<usize>> = vec![None; n];
        let mut group_of = vec![None; n];
        let block_address_taken = facts.block_address_taken();
        let (mut cost, mut code, mut extra_work, mut pinned) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, g) in facts.globals.iter().enumerate() {
            if !owns_a_definition(g) {
                continue;
            }
            let id = *id_of_leader[leader[i]].get_or_insert_with(|| {
                cost.push(0);
                code.push(0);
                extra_work.push(0);
                pinned.push(false);
                cost.len() - 1
            });
            group_of[i] = Some(id);
            if odr.copied_with(i).is_none() {
                let instructions = u64::from(g.instructions);
                cost[id] += instructions + COST_PER_DEFINITION;
                code[id] += instructions;
                extra_work[id] += function_work(instructions, u64::from(g.back_edges), block_address_taken[i]) - instructions;
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
        let mut variables_only = vec![true; cost.len()];
        for (i, g) in group_of.iter().enumerate() {
            if let Some(g) = *g {
                variables_only[g] &= facts.globals[i].is_variable();
            }
        }
        let data_only = group_of.iter().map(|g| g.is_some_and(|g| variables_only[g] && !pinned[g])).collect();
        GroupGraph { odr, group_of, cost, code, data_only, extra_work, pinned, succ }
    }

    fn count(&self) -> usize {
        self.cost.len()
    }

    /// Per group, if it holds variables only (not pinned), the group of the
    /// first function (in module order) that refers to one of them: where
    /// [`place_data_with_first_user`] places it.
    fn data_first_users(&self, facts: &ModuleFacts) -> Vec<Option<usize>> {
        let mut first_user = vec![None; self.count()];
        for (i, f) in facts.globals.iter().enumerate() {
            let Some(user) = self.group_of[i].filter(|_| f.is_function()) else { continue };
            for &(r, _) in &f.refs {
                let r = r as usize;
                if let Some(g) = self.group_of[r].filter(|_| self.data_only[r]) {
                    if g != user && first_user[g].is_none() {
                        first_user[g] = Some(user);
                    }
                }
            }
        }
        first_user
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

/// The copies (C++ inline and template groups, see `odr_copies`, and the
/// definitions copied by size; numbered as [`CopyFinder`] numbers them)
/// each unit needs: those its members are or refer to, and what those
/// refer to in turn. A partition optimizes each copy any of its units
/// needs.
struct UnitCopies {
    /// Per unit, the copies it needs (sorted).
    needs: Vec<Vec<u32>>,
    /// Per copy, the work of optimizing it (instructions).
    weight: Vec<u64>,
}

impl UnitCopies {
    fn of(finder: &CopyFinder<'_>, units: &[Unit]) -> UnitCopies {
        let mut seen = vec![usize::MAX; finder.weight.len()];
        let needs = units.iter().enumerate().map(|(u, unit)| finder.needs(&unit.groups, &mut seen, u)).collect();
        UnitCopies { needs, weight: finder.weight.clone() }
    }
}

/// How a plan weighs a function copied by size whose copy would bring
/// more C++ groups along than `CopyLimits::brought_along`: the symbol rules
/// copy it only into a partition that holds most of them already, and
/// declare it elsewhere, which no model of fixed needs can say.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CopyModel {
    /// Its body and the other functions copied by size it calls: what it
    /// weighs where its groups are held anyway. Where they are not, it
    /// weighs too much; where the partition holds only some, too little.
    Lean,
    /// Its body with every group it needs, in turn: as if it were always
    /// copied with them.
    Full,
}

/// Finds the copies a set of groups needs (see [`UnitCopies`]). Copies
/// are numbered C++ inline and template groups first (`odr_copies`: every
/// partition that uses one holds a copy of it), then the definitions
/// copied by size (`symbol_rules::copyable_by_size`,
/// `constant_copyable_by_size`): functions, each with the local functions
/// only it calls, into the partitions that call them, constants (which
/// weigh nothing, but bring along what they name) into those that name
/// them, and `available_externally` input functions wherever named. The
/// owner of one holds its body anyway.
struct CopyFinder<'a> {
    facts: &'a ModuleFacts,
    groups: &'a GroupGraph,
    /// Per copy, the work of optimizing it (instructions).
    weight: Vec<u64>,
    /// Per copy, the copies its members refer to.
    refs_of_copy: Vec<Vec<u32>>,
    /// Per group, its members that are not in a C++ group.
    members_of: Vec<Vec<usize>>,
    /// Per global, the copy by size it is the definition of.
    sized_copy_of: Vec<Option<u32>>,
    /// Per group, the instructions of its members that are copied by size
    /// (with the local functions only they call): work its copies weigh,
    /// not the group.
    sized_in_group: Vec<u64>,
    /// Some copy by size would bring more along than the limit: the
    /// [`CopyModel`]s weigh it differently.
    models_differ: bool,
}

impl<'a> CopyFinder<'a> {
    fn new(facts: &'a ModuleFacts, groups: &'a GroupGraph, model: CopyModel) -> Self {
        let odr = &groups.odr;
        let mut weight = odr.instructions(facts);
        // What each C++ group refers to through its members and riders (a
        // partition with a copy holds the riders too, and what they name).
        let odr_refs: Vec<Vec<u32>> = (0..odr.count() as u32)
            .map(|g| {
                let mut refs = Self::refers(facts, odr, &[], &mut odr.copied_globals(g).map(|i| i as usize));
                refs.retain(|&r| r != g);
                refs
            })
            .collect();
        let (sized_copy_of, sized) = Self::sized_copies(facts, groups, &odr_refs, &weight);
        let mut sized_in_group = vec![0u64; groups.count()];
        for (bundle, _) in &sized {
            let w: u64 = bundle.iter().map(|&i| u64::from(facts.globals[i].instructions)).sum();
            weight.push(w);
            if let Some(g) = groups.group_of[bundle[0]] {
                sized_in_group[g] += w;
            }
        }
        // A group's members (riders aside: they are copied with it).
        let mut members_of: Vec<Vec<usize>> = vec![Vec::new(); groups.count()];
        for (i, g) in groups.group_of.iter().enumerate() {
            if let (Some(g), None) = (g, odr.copied_with(i)) {
                members_of[*g].push(i);
            }
        }
        let refers = |members: &mut dyn Iterator<Item = usize>| Self::refers(facts, odr, &sized_copy_of, members);
        let mut refs_of_copy: Vec<Vec<u32>> = Vec::with_capacity(weight.len());
        for g in 0..odr.count() as u32 {
            let mut refs = refers(&mut odr.copied_globals(g).map(|i| i as usize));
            refs.retain(|&r| r != g);
            refs_of_copy.push(refs);
        }
        for (c, (bundle, brings_within_limit)) in sized.iter().enumerate() {
            let own = (odr.count() + c) as u32;
            let mut refs = refers(&mut bundle.iter().copied());
            if !*brings_within_limit && model == CopyModel::Lean {
                let first_sized = odr.count() as u32;
                refs.retain(|&r| r >= first_sized);
            }
            refs.retain(|&r| r != own);
            refs_of_copy.push(refs);
        }
        let models_differ = sized.iter().any(|(_, within)| !within);
        CopyFinder { facts, groups, weight, refs_of_copy, members_of, sized_copy_of, sized_in_group, models_differ }
    }

    /// The definitions copied by size, numbered after the C++ groups
    /// (`odr_refs`, `odr_weight`): per global, the copy it heads; per copy,
    /// its definition and the local functions only it calls, in turn (a
    /// partition with a copy of it copies them), and whether the C++
    /// groups it needs, in turn, weigh at most `CopyLimits::brought_along`
    /// (if not, see [`CopyModel`]).
    fn sized_copies(facts: &ModuleFacts, groups: &GroupGraph, odr_refs: &[Vec<u32>], odr_weight: &[u64]) -> (Vec<Option<u32>>, Vec<(Vec<usize>, bool)>) {
        let odr = &groups.odr;
        let block_address_taken = facts.block_address_taken();
        let asm_named = facts.asm_named();
        let brought_along = u64::from(facts.copy_limits.brought_along);
        let mut seen = vec![usize::MAX; odr.count()];
        let mut copy_of = vec![None; facts.globals.len()];
        let mut bundles: Vec<(Vec<usize>, bool)> = Vec::new();
        for (i, g) in facts.globals.iter().enumerate() {
            // Local functions are copied as groups of their own (`odr_copies`)
            // or with their only caller. A function that is
            // `available_externally` in the input has no owner: it is cloned
            // wherever it is used, whatever it brings along.
            let input_copy = g.is_function() && g.is_definition && g.linkage == Linkage::AvailableExternally;
            let owned = groups.group_of[i].is_some() && odr.copied_with(i).is_none();
            let function = owned && !odr.sole_callee[i] && !g.linkage.is_local() && copyable_by_size(&facts.copy_limits, g, block_address_taken[i], asm_named[i]);
            let constant = owned && constant_copyable_by_size(&facts.copy_limits, g, asm_named[i]);
            if !(input_copy || function || constant) {
                continue;
            }
            let mut bundle = vec![i];
            let mut at = 0;
            while at < bundle.len() {
                let x = bundle[at];
                at += 1;
                for &(r, _) in &facts.globals[x].refs {
                    let r = r as usize;
                    if odr.sole_callee[r] && odr.copied_with(r).is_none() && !bundle.contains(&r) {
                        bundle.push(r);
                    }
                }
            }
            let brings = Self::refers(facts, odr, &[], &mut bundle.iter().copied());
            let within = input_copy || Self::weighs_at_most(brings, odr_refs, odr_weight, brought_along, &mut seen, i);
            copy_of[i] = Some((odr.count() + bundles.len()) as u32);
            bundles.push((bundle, within));
        }
        (copy_of, bundles)
    }

    /// Do the C++ groups `from` and what they refer to in turn weigh at most
    /// `limit`? (`seen`, `mark`: as for [`Self::needs`].)
    fn weighs_at_most(from: Vec<u32>, odr_refs: &[Vec<u32>], odr_weight: &[u64], limit: u64, seen: &mut [usize], mark: usize) -> bool {
        let mut stack = from;
        let mut weight = 0u64;
        while let Some(g) = stack.pop() {
            if std::mem::replace(&mut seen[g as usize], mark) != mark {
                weight += odr_weight[g as usize];
                if weight > limit {
                    return false;
                }
                stack.extend(odr_refs[g as usize].iter().copied().filter(|&r| seen[r as usize] != mark));
            }
        }
        true
    }

    /// The copies `members` are or refer to (sorted, once each): the C++
    /// groups they are in or name, and the definitions copied by size they
    /// are, call (functions) or name (constants, `available_externally`
    /// input).
    fn refers(facts: &ModuleFacts, odr: &OdrGroups, sized_copy_of: &[Option<u32>], members: &mut dyn Iterator<Item = usize>) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        let sized = |i: usize| sized_copy_of.get(i).copied().flatten();
        for m in members {
            out.extend(odr.group_of[m].into_iter().chain(sized(m)));
            for &(r, kind) in &facts.globals[m].refs {
                let r = r as usize;
                out.extend(odr.group_of[r]);
                // A function is copied where it is called; a constant (and
                // `available_externally` input) wherever it is named.
                let target = &facts.globals[r];
                if kind == RefKind::Call || target.is_variable() || target.linkage == Linkage::AvailableExternally {
                    out.extend(sized(r));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The copies `of` (groups) needs, and what those refer to in turn
    /// (sorted). `seen` has an entry per copy, and `mark` is a value no
    /// earlier call with the same `seen` was given.
    fn needs(&self, of: &[usize], seen: &mut [usize], mark: usize) -> Vec<u32> {
        if self.weight.is_empty() {
            return Vec::new();
        }
        let members = &mut of.iter().flat_map(|&g| self.members_of[g].iter().copied());
        let mut stack = Self::refers(self.facts, &self.groups.odr, &self.sized_copy_of, members);
        let mut needed = Vec::new();
        while let Some(g) = stack.pop() {
            if std::mem::replace(&mut seen[g as usize], mark) != mark {
                needed.push(g);
                stack.extend(self.refs_of_copy[g as usize].iter().copied().filter(|&r| seen[r as usize] != mark));
            }
        }
        needed.sort_unstable();
        needed
    }

    /// The instructions of group `g`'s own code that stay where it is
    /// placed (its copies by size are counted as copies).
    fn own_code(&self, g: usize) -> u64 {
        self.groups.code[g].saturating_sub(self.sized_in_group[g])
    }

    /// The work of group `g`'s own code ([`Self::own_code`], loops and
    /// computed-goto dispatches weighed up).
    fn own_work(&self, g: usize) -> u64 {
        self.own_code(g) + self.groups.extra_work[g]
    }
}

/// What packing asks of each unit, worked out once.
struct UnitTraits {
    /// The work of its own definitions (copied ones aside, and those of
    /// functions copied by size, which their copies weigh): their
    /// instructions, loops and computed-goto dispatches weighed up
    /// ([`function_work`]).
    cost: Vec<u64>,
    /// Instructions of its own functions, those copied by size included.
    code: Vec<u64>,
    /// It holds code of its own (not only data, which goes with its first
    /// user, nor only copied definitions).
    has_code: Vec<bool>,
    /// It holds a group pinned to the primary partition.
    pinned: Vec<bool>,
}

impl UnitTraits {
    fn of(units: &[Unit], finder: &CopyFinder<'_>) -> UnitTraits {
        let groups = finder.groups;
        UnitTraits {
            cost: units.iter().map(|u| u.groups.iter().map(|&g| groups.cost[g].saturating_sub(finder.sized_in_group[g]) + groups.extra_work[g]).sum()).collect(),
            code: units.iter().map(|u| u.groups.iter().map(|&g| groups.code[g]).sum()).collect(),
            has_code: units.iter().map(|u| u.groups.iter().any(|&g| groups.code[g] > 0)).collect(),
            pinned: units.iter().map(|u| u.groups.iter().any(|&g| groups.pinned[g])).collect(),
        }
    }

    /// What packing is given: these traits, the units' copies and each
    /// unit's parent in the dominator tree.
    fn packing_input<'a>(&'a self, copies: &'a UnitCopies, parents: &'a [Option<usize>]) -> PackingInput<'a> {
        PackingInput {
            cost: &self.cost,
            needs: &copies.needs,
            weight: &copies.weight,
            pinned: &self.pinned,
            has_code: &self.has_code,
            code: &self.code,
            parent: parents,
        }
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

/// Moves each group of `first_users` (a variable placed with its first
/// user: [`GroupGraph::data_first_users`]) in the dominator tree from its
/// immediate dominator to its first user's group, with what it dominates,
/// so that units are cut as data will be placed (and copies are planned
/// where its references are): a function table goes with the function
/// that installs it, and the functions only it names with it. Not where
/// the first user is among what the variable dominates.
fn attach_data_to_first_users(children: &mut [Vec<usize>], first_users: &[Option<usize>]) {
    let root = children.len() - 1;
    let mut parent = vec![root; children.len()];
    for (p, cs) in children.iter().enumerate() {
        for &c in cs {
            parent[c] = p;
        }
    }
    for (data, user) in first_users.iter().enumerate() {
        let Some(user) = *user else { continue };
        let mut at = user;
        while at != root && at != data {
            at = parent[at];
        }
        if at == data {
            continue;
        }
        let siblings = &mut children[parent[data]];
        siblings.retain(|&c| c != data);
        children[user].push(data);
        parent[data] = user;
    }
}

/// A group of variables only goes, whole, to the partition of the first
/// function (in module order) that refers to one of them: the dominator
/// cut may have made it a unit of its own, and data costs nothing to
/// compile. (A function's profile counters and data, in a group of their
/// own, go with it: that partition keeps them private, as stock's object.)
/// A group holding copied data is theirs to place (see
/// `place_copied_groups_with_first_user`).
fn place_data_with_first_user(facts: &ModuleFacts, groups: &GroupGraph, owner: &mut [Option<u32>]) {
    let mut holds_copies = vec![false; groups.count()];
    for (i, g) in groups.group_of.iter().enumerate() {
        if let Some(g) = *g {
            holds_copies[g] |= groups.odr.copied_with(i).is_some();
        }
    }
    let placed_here = |i: usize| groups.group_of[i].filter(|&g| groups.data_only[i] && !holds_copies[g]);
    let mut group_owner: Vec<Option<u32>> = vec![None; groups.count()];
    for (i, f) in facts.globals.iter().enumerate() {
        let Some(p) = owner[i].filter(|_| f.is_function()) else { continue };
        for &(r, _) in &f.refs {
            if let Some(g) = placed_here(r as usize) {
                group_owner[g].get_or_insert(p);
            }
        }
    }
    for i in 0..owner.len() {
        if let Some(p) = placed_here(i).and_then(|g| group_owner[g]) {
            owner[i] = Some(p);
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

fn subtree_work(children: &[Vec<usize>], work: &[u64], root: usize) -> Vec<u64> {
    let mut subtree = vec![0u64; children.len()];
    // Post-order without recursion (dominator trees can be deep).
    let mut stack = vec![(root, false)];
    while let Some((node, done)) = stack.pop() {
        if done {
            let own = if node == root { 0 } else { work[node] };
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

/// Cuts the dominator tree into units of at most `cap` of `work` (a
/// single group may exceed it). A node whose subtree is too large becomes a unit with as
/// many of its small child subtrees as fit; the other children are cut in turn.
fn cut_units(children: &[Vec<usize>], work: &[u64], root: usize, cap: u64) -> Vec<Unit> {
    let subtree = subtree_work(children, work, root);
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
        let mut unit_work = if node == root { 0 } else { work[node] };
        let mut to_cut = Vec::new();
        for &c in &children[node] {
            if subtree[c] > cap {
                to_cut.push(c);
            } else if let (Some(u), true) = (here, unit_work + subtree[c] <= cap) {
                collect(c, &mut units[u].groups);
                unit_work += subtree[c];
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

/// Moves each group of `first_users` (a variable placed with its first
/// user: [`GroupGraph::data_first_users`]) into its first user's unit,
/// where the cut left it in another, so that the copies its references
/// need are planned where it will be. Units left empty are dropped.
fn move_data_to_first_users(units: &mut Vec<Unit>, first_users: &[Option<usize>]) {
    let mut unit_of_group = vec![usize::MAX; first_users.len()];
    for (u, unit) in units.iter().enumerate() {
        for &g in &unit.groups {
            unit_of_group[g] = u;
        }
    }
    let mut moved = false;
    for (data, user) in first_users.iter().enumerate() {
        let Some(user) = *user else { continue };
        let (from, to) = (unit_of_group[data], unit_of_group[user]);
        if from != to && from != usize::MAX && to != usize::MAX {
            units[from].groups.retain(|&g| g != data);
            units[to].groups.push(data);
            unit_of_group[data] = to;
            moved = true;
        }
    }
    if moved {
        // Renumbered without the empty units; a unit whose parent emptied
        // is dominated by that one's parent.
        let mut new_index = vec![None; units.len()];
        let mut next = 0;
        for (u, unit) in units.iter().enumerate() {
            if !unit.groups.is_empty() {
                new_index[u] = Some(next);
                next += 1;
            }
        }
        let parents: Vec<Option<usize>> = units.iter().map(|u| u.parent).collect();
        let kept_ancestor = |mut p: Option<usize>| {
            while let Some(q) = p {
                if new_index[q].is_some() {
                    return new_index[q];
                }
                p = parents[q];
            }
            None
        };
        for unit in units.iter_mut() {
            unit.parent = kept_ancestor(unit.parent);
            unit.groups.sort_unstable();
        }
        units.retain(|u| !u.groups.is_empty());
    }
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
            // cannot be promoted either (the linker may discard the group),
            // unless the group is `nodeduplicate` (never discarded for
            // another's copy). Their users stay with them; not `llvm.used` and
            // `llvm.compiler.used`, which each partition keeps listing what
            // it defines (an LTO backend's compiler.used lists every ASan
            // descriptor, each in the group of a local it describes).
            let filtered = g.special == Some(SpecialArray::Used);
            if asm_named[r as usize] || (!filtered && target.linkage.is_local() && facts.discardable_comdat_of(r as usize).is_some()) {
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
        // The variables of one explicit section keep their order in it
        // (code may walk it between the linker's __start_/__stop_ symbols).
        // One linked to another global's section (`!associated`) has no
        // order of its own: the linker places it by the section it is
        // linked to (ASan's descriptors, SanitizerCoverage's tables, which
        // an LTO backend's module holds already, each in the group of what
        // it describes: united, they held every function using a string).
        // Nor has one in a COMDAT group: there it is a section of its own,
        // which the linker keeps or drops with its group (a COMDAT's in
        // favour of another object's copy). Each function's profile
        // counters and data (`__llvm_prf_cnts`, `__llvm_prf_data`) are in
        // a group of their own: united, every counter went to one
        // partition, and every function in another named its own by a
        // promoted name.
        if g.is_variable() && g.is_definition && g.special.is_none() && g.associated.is_none() && g.comdat.is_none() {
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
        // ASan's run time tells a module's dynamically initialized globals
        // by the module name their descriptors give, and while one
        // module's constructors run it poisons the others' (with
        // `check_initialization_order`). Each partition's ASan names the
        // module by a string of its own, compared by address: such a
        // global described in another partition than the module's
        // constructors would be poisoned while they initialize it. Kept
        // with them, it is described under the same name. (A C++ inline
        // variable with a constructor is here already: its constructor's
        // entry in `llvm.global_ctors` names it, so its group is never
        // copied; the check keeps a copied group's member from pinning.)
        if g.asan_dynamic_init && odr.group_of[i].is_none() {
            pinned[i] = true;
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

    /// A private variable in `section`, in COMDAT `comdat`, as
    /// instrumentation makes them (descriptors, counters).
    fn private_in_group(name: &str, size: u64, refs: &[(u32, RefKind)], section: &str, comdat: u32) -> crate::module_facts::GlobalFacts {
        let mut g = var(name, size, refs);
        g.linkage = Linkage::Private;
        g.section = Some(section.into());
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
    fn variables_of_one_section_share_a_partition_unless_linked_to_another() {
        // An LTO backend's module with ASan: each local string has a
        // descriptor in section asan_globals, in the string's group, linked
        // to it (!associated). The groups here are ones the linker may
        // discard, so the strings are never promoted and their users stay
        // with them: only the section could unite f and g.
        let described = |name: &str, comdat: u32| {
            let mut g = linkonce(var(name, 8, &[]), comdat);
            g.linkage = Linkage::Internal;
            g
        };
        let descriptor = |name: &str, of: u32| {
            let mut d = private_in_group(name, 64, &[(of, Ref)], "asan_globals", of - 2);
            d.associated = Some(of);
            d
        };
        let mut facts = module(vec![
            func("f", 100, &[(2, Ref)]),
            func("g", 100, &[(3, Ref)]),
            described("str_f", 0),
            described("str_g", 1),
            descriptor("desc_f", 2),
            descriptor("desc_g", 3),
        ]);
        // The descriptors are retained (llvm.compiler.used), which each
        // partition filters: no reason to keep them together either.
        let mut used = var("llvm.compiler.used", 16, &[(4, Ref), (5, Ref)]);
        used.special = Some(SpecialArray::Used);
        used.linkage = Linkage::Appending;
        facts.globals.push(used);
        facts.comdat_count = 2;
        let linked = plan(&facts, 2);
        assert_eq!(linked.partitions, 2);
        assert_ne!(linked.owner[0], linked.owner[1]);
        assert_eq!((linked.owner[4], linked.owner[5]), (linked.owner[0], linked.owner[1]));
        // Not linked, nor in a group: the section's variables stay together
        // (f and g with them, by the strings' groups).
        for d in &mut facts.globals[4..6] {
            d.associated = None;
            d.comdat = None;
        }
        let unlinked = plan(&facts, 2);
        assert_eq!(unlinked.owner[4], unlinked.owner[5]);
        assert_eq!(unlinked.owner[0], unlinked.owner[1]);
    }

    #[test]
    fn profile_counters_go_with_their_function() {
        // `-fprofile-instr-generate`, lowered: each function's counters
        // (`__profc_`) and data (`__profd_`, naming the counters and the
        // function) are private, in a `nodeduplicate` group of their own,
        // in the sections every function's are in. Each group goes whole
        // with its function, so no counter is promoted; united by their
        // sections, they went to one partition.
        let counters = |name: &str, comdat: u32| private_in_group(name, 8, &[], "__llvm_prf_cnts", comdat);
        let data = |name: &str, comdat: u32, counters: u32, function: u32| {
            private_in_group(name, 48, &[(counters, Ref), (function, Ref)], "__llvm_prf_data", comdat)
        };
        let mut facts = module(vec![
            func("f", 100, &[(2, Ref)]),
            func("g", 100, &[(3, Ref)]),
            counters("__profc_f", 0),
            counters("__profc_g", 1),
            data("__profd_f", 0, 2, 0),
            data("__profd_g", 1, 3, 1),
        ]);
        let mut used = var("llvm.compiler.used", 16, &[(4, Ref), (5, Ref)]);
        used.special = Some(SpecialArray::Used);
        used.linkage = Linkage::Appending;
        facts.globals.push(used);
        facts.comdat_count = 2;
        facts.comdat_nodeduplicate = vec![true, true];
        let plan = plan(&facts, 2);
        assert_eq!(plan.partitions, 2);
        assert_ne!(plan.owner[0], plan.owner[1]);
        assert_eq!((plan.owner[2], plan.owner[4]), (plan.owner[0], plan.owner[0]), "f's counters and data with f");
        assert_eq!((plan.owner[3], plan.owner[5]), (plan.owner[1], plan.owner[1]), "g's counters and data with g");
        let symbols = crate::symbol_rules::decide(&facts, &plan);
        assert!((2..6).all(|i| symbols.promotions[i].is_none()), "no counter or data promoted");
    }

    #[test]
    fn a_group_of_variables_goes_whole_with_its_first_user() {
        // Table t and its descriptor d (linked to it: one group), used by f
        // and then by g, which nothing else relates: the group is no one's
        // in the dominator tree, and goes with f. As a unit of its own, it
        // went to the lighter partition, g's.
        let mut d = var("d", 16, &[(3, Ref)]);
        d.associated = Some(3);
        let facts = module(vec![func("f", 500, &[(3, Ref)]), func("g", 400, &[(3, Ref)]), d, var("t", 64, &[])]);
        let plan = plan(&facts, 2);
        assert_eq!(plan.partitions, 2);
        assert_ne!(plan.owner[0], plan.owner[1]);
        assert_eq!((plan.owner[2], plan.owner[3]), (plan.owner[0], plan.owner[0]));
    }

    #[test]
    fn counters_of_a_copied_local_function_go_where_it_is_emitted() {
        // Static h, which f and g call from two partitions, is copied into
        // both and emitted by its first user's; its counters go there too,
        // not where the plan's units left them.
        let mut facts = module(vec![
            func("f", 500, &[(2, Call)]),
            func("g", 400, &[(2, Call)]),
            internal(func("h", 20, &[(3, Ref)])),
            private_in_group("__profc_h", 8, &[], "__llvm_prf_cnts", 0),
            private_in_group("__profd_h", 48, &[(3, Ref)], "__llvm_prf_data", 0),
        ]);
        facts.comdat_count = 1;
        facts.comdat_nodeduplicate = vec![true];
        let plan = plan(&facts, 2);
        assert_eq!(plan.partitions, 2);
        assert_ne!(plan.owner[0], plan.owner[1]);
        let symbols = crate::symbol_rules::decide(&facts, &plan);
        let (owner, other) = (plan.owner[0].unwrap(), plan.owner[1].unwrap());
        assert_eq!((symbols.decision(owner, 2), symbols.decision(other, 2)), (crate::symbol_rules::Decision::Define, crate::symbol_rules::Decision::OdrCopy), "h copied into both");
        assert_eq!(plan.owner[2], plan.owner[0], "h emitted by its first user's partition");
        assert_eq!((plan.owner[3], plan.owner[4]), (plan.owner[2], plan.owner[2]), "h's counters where h is emitted");
    }

    #[test]
    fn users_of_a_local_in_a_group_the_linker_keeps_whole_may_part() {
        // A local string two functions use, in a COMDAT group: where the
        // linker may discard the group for another object's, the string
        // cannot be promoted and its users stay with it; in a
        // `nodeduplicate` group, never discarded, it is promoted.
        let mut string = linkonce(var("str", 8, &[]), 0);
        string.linkage = Linkage::Internal;
        let mut facts = module(vec![func("f", 100, &[(2, Ref)]), func("g", 100, &[(2, Ref)]), string]);
        facts.comdat_count = 1;
        let discardable = plan(&facts, 2);
        assert_eq!(discardable.owner[0], discardable.owner[1]);
        facts.comdat_nodeduplicate = vec![true];
        let kept = plan(&facts, 2);
        assert_eq!(kept.partitions, 2);
        assert_ne!(kept.owner[0], kept.owner[1]);
        let symbols = crate::symbol_rules::decide(&facts, &kept);
        assert!(symbols.promotions[2].as_ref().is_some_and(|p| p.linkage == Linkage::External));
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
    fn asan_dynamically_initialized_variables_stay_with_the_constructors() {
        // `extern Table table; int user() { ... table ... }  Table table;`:
        // the heavy user comes first in the module, so the variable alone
        // would go with it, away from the constructor that initializes it.
        let mut ctors = var("llvm.global_ctors", 16, &[(3, Ref)]);
        ctors.linkage = Linkage::Appending;
        ctors.special = Some(SpecialArray::PrimaryOnly);
        let mut table = var("table", 256, &[]);
        table.asan_dynamic_init = true;
        let plain = var("plain", 256, &[]);
        let facts = module(vec![
            func("user", 1000, &[(4, Ref), (5, Ref)]),
            func("big", 1000, &[]),
            ctors,
            func("init", 10, &[(4, Ref)]),
            table,
            plain,
        ]);
        let plan = plan(&facts, 2);
        assert_eq!(plan.owner[3], Some(0));
        assert_ne!(plan.owner[0], Some(0), "the test needs the user away from the constructor");
        assert_eq!(plan.owner[4], Some(0), "the dynamically initialized variable is described with the constructors");
        assert_eq!(plan.owner[5], plan.owner[0], "other data still goes with its first user");
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
    /// index), and the same bound beside it, on modules of plain and
    /// inline functions calling each other.
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
            let (searched, brute) = heaviest_searched_and_brute(&facts);
            assert_eq!(searched, brute, "seed {seed}");
        }
    }

    /// A lighter group whose work is mostly copies sets the bound beside
    /// the heaviest: big (1,000 of its own) allows 800 beside it, but
    /// user (100) needs template t (800), and its partition takes 900
    /// anyway (less a fifth of user's own 100: 880).
    #[test]
    fn a_lighter_group_of_copies_may_set_the_bound() {
        let mut facts = module(vec![func("big", 1000, &[]), func("user", 100, &[(2, Call)]), linkonce(func("_Z1tv", 800, &[]), 0)]);
        facts.comdat_count = 1;
        let (searched, brute) = heaviest_searched_and_brute(&facts);
        assert_eq!(searched, brute);
        let h = searched.expect("a heaviest group");
        assert_eq!((h.group, h.held, h.bound), (0, 1000, 880));
    }

    /// What [`heaviest_group`] finds on `facts` cut into units of an
    /// eighth of its work, and what weighing every group finds.
    fn heaviest_searched_and_brute(facts: &ModuleFacts) -> (Option<HeaviestGroup>, Option<HeaviestGroup>) {
        let cg = CallGraph::build(facts);
        let groups = GroupGraph::build(facts, &cg);
        let children = groups.dominator_tree();
        let work = groups.own_work();
        let cap = (work.iter().sum::<u64>() / 8).max(1);
        let units = cut_units(&children, &work, groups.count(), cap);
        let finder = CopyFinder::new(facts, &groups, CopyModel::Lean);
        let copies = UnitCopies::of(&finder, &units);
        let traits = UnitTraits::of(&units, &finder);
        let parents: Vec<Option<usize>> = units.iter().map(|u| u.parent).collect();
        let input = traits.packing_input(&copies, &parents);
        let mut brute: Option<HeaviestGroup> = None;
        for g in (0..groups.count()).filter(|&g| groups.code[g] > 0) {
            let own = finder.own_work(g);
            let held = own + input.weight_of(&finder.needs(&[g], &mut vec![usize::MAX; finder.weight.len()], 0));
            let bound = brute.map_or(0, |b| b.bound).max(held - own.div_ceil(OWN_CODE_HEADROOM));
            brute = Some(match brute {
                Some(b) if held <= b.held => HeaviestGroup { bound, ..b },
                _ => HeaviestGroup { group: g, held, bound },
            });
        }
        (heaviest_group(&finder, &units, &input), brute)
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

    /// a and b share a large template: they share a partition, which
    /// optimizes the one copy, and c, as large as the rest, has the other.
    #[test]
    fn units_sharing_copies_are_placed_together() {
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

    /// `heaviest` (global 0), template u (400, global 1), `more` (from
    /// global 2 on) and six functions of 100 that call u.
    fn beside_six_users_of_a_template(heaviest: crate::module_facts::GlobalFacts, more: Vec<crate::module_facts::GlobalFacts>) -> ModuleFacts {
        let users = (0..6).map(|i| func(&format!("f{i}"), 100, &[(1, Call)]));
        let mut facts = module([heaviest, linkonce(func("_Z1uv", 400, &[]), 0)].into_iter().chain(more).chain(users).collect());
        facts.comdat_count = facts.globals.iter().filter(|g| g.comdat.is_some()).count() as u32;
        facts
    }

    /// Where one function outweighs the fair share, the others are packed
    /// up to its work less a fifth of its own code's, not up to all of
    /// it: big (1,001 planned) bounds 4 partitions asked for, and the six
    /// functions of 101 that need template u (400) take two partitions of
    /// 703 (each with a copy of u), not one of 1,006 that the compile
    /// would wait for longer than for big.
    #[test]
    fn the_others_stay_a_fifth_of_its_own_code_below_the_heaviest() {
        let facts = beside_six_users_of_a_template(func("big", 1000, &[]), vec![]);
        let plan = plan(&facts, 4);
        assert_eq!(plan.partitions, 3, "{:?}", plan.planned);
        let big = plan.owner[0].unwrap() as usize;
        assert_eq!(plan.planned[big], 1001);
        let others: Vec<u64> = (0..3).filter(|&p| p != big).map(|p| plan.planned[p]).collect();
        assert_eq!(others, [400 + 3 * 101, 400 + 3 * 101]);
    }

    /// The margin is a fifth of the heaviest group's own code, not of the
    /// copies it needs: user (11) needs template t (1,000), and the six
    /// functions of 101 that need template u (400) stay together up to
    /// that (1,006, one copy of u), not in two partitions within four
    /// fifths of user's work (two copies).
    #[test]
    fn the_copies_the_heaviest_needs_are_not_part_of_the_margin() {
        let facts = beside_six_users_of_a_template(func("user", 10, &[(2, Call)]), vec![linkonce(func("_Z1tv", 1000, &[]), 1)]);
        let plan = plan(&facts, 4);
        assert_eq!(plan.partitions, 2, "{:?}", plan.planned);
        let user = plan.owner[0].unwrap() as usize;
        assert_eq!(plan.planned[user], 1011);
        assert_eq!(plan.planned[1 - user], 400 + 6 * 101);
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
        let unmerged = Grouped::of(&facts).expect("groups").plan(4, false, None);
        assert_eq!(unmerged.partitions, 4, "{:?}", unmerged.planned);
        assert_eq!(unmerged.owner[2], Some(0));
    }

    /// Plans `heavy` beside five functions of 300 instructions on 2
    /// partitions: weighed, it is a partition's work alone and the plan
    /// counts `planned_work` in all; with `unweigh` (`heavy` unweighed), it
    /// takes one of the five along.
    fn alone_only_when_weighed(heavy: crate::module_facts::GlobalFacts, unweigh: impl Fn(&mut crate::module_facts::GlobalFacts), planned_work: u64) {
        let mut globals = vec![heavy];
        globals.extend((0..5).map(|i| func(&format!("f{i}"), 300, &[])));
        let facts = module(globals);
        let plan = plan(&facts, 2);
        assert_eq!(plan.partitions, 2, "{:?}", plan.planned);
        assert!(plan.owner[1..].iter().all(|&o| o != plan.owner[0]), "{:?}", plan.owner);
        assert_eq!(plan.planned.iter().sum::<u64>(), planned_work);
        let mut unweighed = facts.clone();
        unweigh(&mut unweighed.globals[0]);
        let by_instructions = super::plan(&unweighed, 2);
        assert!(by_instructions.owner[1..].iter().any(|&o| o == by_instructions.owner[0]), "{:?}", by_instructions.owner);
    }

    /// A computed-goto dispatch weighs three times its instructions: by
    /// instructions the interpreter (1,000) would take one of the five
    /// other functions (300 each) along; weighed, it is a partition's
    /// work alone (3,000 against 1,500).
    #[test]
    fn a_computed_goto_dispatch_weighs_more_than_its_instructions() {
        let mut interpreter = func("interpret", 1000, &[]);
        interpreter.block_address_of = vec![0];
        alone_only_when_weighed(interpreter, |g| g.block_address_of.clear(), 3 * 1000 + 1 + 5 * 301);
    }

    /// A loop's back edge weighs BACK_EDGE_WEIGHT instructions: by
    /// instructions a function of 700 with ten loops would take one of
    /// the five other functions (300 each) along; weighed, it is a
    /// partition's work alone (700 + 10 * 64 against 1,500).
    #[test]
    fn loops_weigh_more_than_their_instructions() {
        let mut loops = func("loops", 700, &[]);
        loops.back_edges = 10;
        alone_only_when_weighed(loops, |g| g.back_edges = 0, 700 + 10 * BACK_EDGE_WEIGHT + 1 + 5 * 301);
    }

    /// Units are cut by work, loops weighed as packing weighs them: `hub`'s
    /// subtree (two callees of 100 instructions and 40 loops each) is
    /// within an eighth of a share in instructions (204 of 213) but holds
    /// more work than a share (5,324 of 4,266). Kept one unit, it would be
    /// one partition's work against eight functions of 401 (3,208); cut,
    /// each loop-heavy callee goes with four of them, and `hub` with one:
    /// no partition above 4,267 (the sum pins the arithmetic behind it).
    #[test]
    fn a_subtree_heavy_in_loops_is_cut_by_its_work() {
        let mut globals = vec![func("hub", 1, &[(1, Call), (2, Call)])];
        for name in ["l0", "l1"] {
            let mut callee = func(name, 100, &[]);
            callee.back_edges = 40;
            globals.push(callee);
        }
        globals.extend((0..8).map(|i| func(&format!("f{i}"), 400, &[])));
        let facts = module(globals);
        let plan = plan(&facts, 2);
        assert_eq!(plan.partitions, 2, "{:?}", plan.planned);
        assert_ne!(plan.owner[1], plan.owner[2], "{:?}", plan.owner);
        assert_eq!(plan.planned.iter().sum::<u64>(), 2 + 2 * (101 + 40 * BACK_EDGE_WEIGHT) + 8 * 401);
        assert!(plan.planned.iter().all(|&w| w <= 4267), "{:?}", plan.planned);
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

    /// A small function that several units call is planned as a copy in
    /// every partition that calls it but its owner's, as the symbol rules
    /// copy it (`available_externally`): the plan's work is what the
    /// partitions hold.
    #[test]
    fn a_small_function_several_units_call_is_planned_as_a_copy() {
        let facts = module(vec![
            func("a", 500, &[(3, Call)]),
            func("b", 500, &[(3, Call)]),
            func("c", 1000, &[(3, Call)]),
            func("small", 40, &[]),
        ]);
        let plan = plan(&facts, 2);
        let symbols = crate::symbol_rules::decide(&facts, &plan);
        let held: Vec<u64> = (0..plan.partitions).map(|p| symbols.bodies_held(&facts, p)).collect();
        assert_eq!(held.iter().sum::<u64>(), 500 + 500 + 1000 + 40 * 2, "a copy in the partition without it: {held:?}");
        for p in 0..plan.partitions {
            let owned = plan.owner.iter().filter(|&&o| o == Some(p)).count() as u64;
            assert!(plan.planned[p as usize].abs_diff(held[p as usize]) <= owned, "partition {p}: planned {} held {}", plan.planned[p as usize], held[p as usize]);
        }
    }

    /// A function table goes with the first function that refers to it
    /// (here the one that installs it), and so do the functions only the
    /// table names, while the partitions stay even.
    #[test]
    fn a_table_goes_with_its_first_user() {
        let facts = module(vec![
            func("install", 300, &[(1, Ref)]),
            var("table", 16, &[(2, Ref), (3, Ref)]),
            func("entry1", 200, &[]),
            func("entry2", 200, &[]),
            func("other", 700, &[]),
        ]);
        let plan = plan(&facts, 2);
        let o = &plan.owner;
        assert_eq!(o[1], o[0], "the table with its first user");
        assert_eq!(o[2], o[0]);
        assert_eq!(o[3], o[0]);
        assert_ne!(o[4], o[0]);
    }

    /// Of the plans under the two models of a copy that brings more
    /// along than the limit (`s` needs a template of 3,000 instructions),
    /// the one the symbol rules give the least work, the most loaded
    /// partition weighed once per partition asked for, is kept.
    #[test]
    fn of_the_plans_under_both_copy_models_the_lighter_is_kept() {
        let mut template = func("_Z1tv", 3000, &[]);
        template.linkage = Linkage::LinkOnceOdr;
        template.comdat = Some(0);
        let mut globals = vec![template, func("s", 30, &[(0, Call)])];
        globals.extend((0..6).map(|i| func(&format!("f{i}"), 400 + 50 * i, &[(1, Call)])));
        globals.extend((0..4).map(|i| func(&format!("g{i}"), 900, &[])));
        let mut facts = module(globals);
        facts.comdat_count = 1;
        let grouped = Grouped::of(&facts).expect("groups");
        let exact = |plan: &PartitionPlan| -> Vec<u64> {
            let symbols = crate::symbol_rules::decide_unnamed(&facts, plan);
            (0..plan.partitions).map(|p| symbols.bodies_held(&facts, p)).collect()
        };
        let weighed = |plan: &PartitionPlan| {
            let held = exact(plan);
            4 * held.iter().copied().max().unwrap_or(0) + held.iter().sum::<u64>()
        };
        let units = grouped.units(4);
        let (lean, differ) = grouped.plan_units(&units, 4, true, CopyModel::Lean);
        let (full, _) = grouped.plan_units(&units, 4, true, CopyModel::Full);
        assert!(differ, "s brings more than the limit along");
        let kept = grouped.plan(4, true, Some(&exact));
        assert!(kept == lean || kept == full);
        assert_eq!(weighed(&kept), weighed(&lean).min(weighed(&full)));
    }
}
