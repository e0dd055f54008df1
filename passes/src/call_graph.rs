//! The module's call graph, built with petgraph from [`ModuleFacts`].
//!
//! Nodes are the module's definitions. An edge `a -> b` means `a` needs `b`:
//! a direct call, a call resolved from `!callees` or value-profile metadata,
//! an address taken, or a reference from a global initializer (vtables and
//! function-pointer tables). Indirect calls without such metadata add no
//! edge: tying every indirect call to every address-taken function (the
//! AMDGPU splitter's cartesian product) would glue the module together.

use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::module_facts::{ModuleFacts, RefKind};

pub struct CallGraph {
    /// Node weight: the global's index in `ModuleFacts::globals`.
    pub graph: DiGraph<u32, RefKind>,
    /// For each global, its node (definitions only).
    pub node_of: Vec<Option<NodeIndex>>,
}

impl CallGraph {
    pub fn build(facts: &ModuleFacts) -> Self {
        let mut graph = DiGraph::new();
        let node_of = definition_nodes(facts, &mut graph);
        for (i, g) in facts.globals.iter().enumerate() {
            let Some(from) = node_of[i] else { continue };
            for &(target, kind) in &g.refs {
                if let Some(to) = node_of[target as usize] {
                    if to != from {
                        graph.add_edge(from, to, kind);
                    }
                }
            }
        }
        CallGraph { graph, node_of }
    }
}

/// For each global, the cycle of direct calls (mutual recursion) it is in,
/// if any: an id shared by the members of one strongly connected component
/// of more than one member, numbered in order of their first member; found
/// from the direct calls alone (address references and metadata-resolved
/// indirect calls still place callees with callers, but do not force them
/// together), without a graph of every reference. `ModuleFacts` keeps them
/// (`ModuleFacts::recursive_sccs`).
pub fn call_cycles(facts: &ModuleFacts) -> Vec<Option<u32>> {
    let mut calls = DiGraph::<u32, ()>::new();
    let node_of = definition_nodes(facts, &mut calls);
    for (i, g) in facts.globals.iter().enumerate() {
        let Some(from) = node_of[i] else { continue };
        for &(target, kind) in &g.refs {
            match node_of[target as usize] {
                Some(to) if kind == RefKind::Call && to != from => {
                    calls.add_edge(from, to, ());
                }
                _ => {}
            }
        }
    }
    let mut cycle = vec![None; facts.globals.len()];
    for (id, members) in recursive_sccs_of(&calls).into_iter().enumerate() {
        for m in members {
            cycle[m as usize] = Some(id as u32);
        }
    }
    cycle
}

/// A node for each of the module's definitions (but the special arrays),
/// weighted with its global index; for each global, its node.
fn definition_nodes<E>(facts: &ModuleFacts, graph: &mut DiGraph<u32, E>) -> Vec<Option<NodeIndex>> {
    facts
        .globals
        .iter()
        .enumerate()
        .map(|(i, g)| (g.is_definition && g.special.is_none()).then(|| graph.add_node(i as u32)))
        .collect()
}

/// The strongly connected components of `graph` with more than one member,
/// as global indices (each sorted, and in order of their first member).
/// Kosaraju's algorithm searches with a stack of its own: a long chain of
/// calls cannot overflow the host thread's stack, as a recursive search's
/// could.
fn recursive_sccs_of<E>(graph: &DiGraph<u32, E>) -> Vec<Vec<u32>> {
    let mut sccs: Vec<Vec<u32>> = kosaraju_scc(graph)
        .into_iter()
        .filter(|scc| scc.len() > 1)
        .map(|scc| {
            let mut members: Vec<u32> = scc.into_iter().map(|n| graph[n]).collect();
            members.sort_unstable();
            members
        })
        .collect();
    sccs.sort_unstable();
    sccs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;

    #[test]
    fn mutual_recursion_is_one_scc_but_address_cycles_are_not() {
        // a <-> b call each other; c takes d's address and d calls c.
        let facts = module(vec![
            func("a", 10, &[(1, RefKind::Call)]),
            func("b", 10, &[(0, RefKind::Call)]),
            func("c", 10, &[(3, RefKind::Ref)]),
            func("d", 10, &[(2, RefKind::Call)]),
        ]);
        assert_eq!(facts.recursive_sccs(), vec![vec![0, 1]]);
    }

    #[test]
    fn call_cycles_name_the_recursive_scc_of_each_member() {
        // a <-> b, c -> d -> e -> c, f calls a; g takes h's address and h
        // calls g (no cycle of calls).
        let facts = module(vec![
            func("a", 10, &[(1, RefKind::Call)]),
            func("b", 10, &[(0, RefKind::Call)]),
            func("c", 10, &[(3, RefKind::Call)]),
            func("d", 10, &[(4, RefKind::Call)]),
            func("e", 10, &[(2, RefKind::Call)]),
            func("f", 10, &[(0, RefKind::Call)]),
            func("g", 10, &[(7, RefKind::Ref)]),
            func("h", 10, &[(6, RefKind::Call)]),
        ]);
        let cycles = call_cycles(&facts);
        assert_eq!(cycles, vec![Some(0), Some(0), Some(1), Some(1), Some(1), None, None, None]);
        assert_eq!(facts.recursive_sccs(), vec![vec![0, 1], vec![2, 3, 4]]);
    }

    #[test]
    fn a_long_chain_of_calls_is_searched_without_recursion() {
        // f0 -> f1 -> ... -> f199999 -> f0: one cycle, deeper than a
        // recursive search could go on a test thread's 2 MiB stack.
        let n = 200_000u32;
        let facts = module((0..n).map(|i| func(&format!("f{i}"), 1, &[((i + 1) % n, RefKind::Call)])).collect());
        let cycles = call_cycles(&facts);
        assert!(cycles.iter().all(|&c| c == Some(0)));
    }

    #[test]
    fn declarations_are_not_nodes() {
        let mut ext = func("ext", 0, &[]);
        ext.is_definition = false;
        let facts = module(vec![func("a", 5, &[(1, RefKind::Call)]), ext]);
        let cg = CallGraph::build(&facts);
        assert_eq!(cg.graph.node_count(), 1);
        assert_eq!(cg.graph.edge_count(), 0);
    }
}
