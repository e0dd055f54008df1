//! The module's call graph, built with petgraph from [`ModuleFacts`].
//!
//! Nodes are the module's definitions. An edge `a -> b` means `a` needs `b`:
//! a direct call, a call resolved from `!callees` or value-profile metadata,
//! an address taken, or a reference from a global initializer (vtables and
//! function-pointer tables). Indirect calls without such metadata add no
//! edge: tying every indirect call to every address-taken function (the
//! AMDGPU splitter's cartesian product) would glue the module together.

use petgraph::algo::tarjan_scc;
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
        let node_of: Vec<Option<NodeIndex>> = facts
            .globals
            .iter()
            .enumerate()
            .map(|(i, g)| (g.is_definition && g.special.is_none()).then(|| graph.add_node(i as u32)))
            .collect();
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

    /// Strongly connected components of the direct call edges alone
    /// (mutual recursion), with more than one member; members are global
    /// indices. Address references and metadata-resolved indirect calls
    /// still place callees with callers, but do not force them together.
    pub fn recursive_sccs(&self) -> Vec<Vec<u32>> {
        let calls = self.graph.filter_map(|_, &w| Some(w), |_, &k| (k == RefKind::Call).then_some(k));
        tarjan_scc(&calls)
            .into_iter()
            .filter(|scc| scc.len() > 1)
            .map(|scc| {
                let mut members: Vec<u32> = scc.into_iter().map(|n| calls[n]).collect();
                members.sort_unstable();
                members
            })
            .collect()
    }
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
        let cg = CallGraph::build(&facts);
        assert_eq!(cg.recursive_sccs(), vec![vec![0, 1]]);
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
