//! Which partition reports a function's diagnostics, and under which name.
//!
//! A partition reports warnings and remarks about the functions it compiles
//! for the object; copies it only inlines from (`available_externally`) and
//! local copies of another partition's function would report the same things
//! again. A function no partition owns (an `available_externally` function of
//! the input) is reported by the first partition that holds it. The host
//! hears of a function by the name it has in the host's module: a promoted
//! local gets its original name back. Functions the partitions' pipelines
//! create (outlined parts, sanitizer constructors) are reported by the
//! partition that created them, under their own name.
//!
//! A call into a function another partition compiles, and that this one
//! does not copy, reaches a declaration: the inliner then remarks that the
//! callee's definition is not available, which is never so in the whole
//! module. Those remarks are not passed on (the one the whole module would
//! give, that the callee is too costly or never inlined, cannot be made
//! without its body).

use std::collections::HashMap;

use crate::module_facts::ModuleFacts;
use crate::symbol_rules::{Decision, SymbolPlan};

/// Routes a partition's diagnostics to the host.
pub struct DiagnosticRouting {
    /// A function's name in the partitions: its partition and name in the host.
    functions: HashMap<String, (Option<u32>, String)>,
}

impl DiagnosticRouting {
    pub fn new(facts: &ModuleFacts, plan: &SymbolPlan) -> DiagnosticRouting {
        let mut functions = HashMap::new();
        for (i, g) in facts.globals.iter().enumerate() {
            if !g.is_function() || !g.is_definition || g.name.is_empty() {
                continue;
            }
            let reporter = plan.owner_of(i).or_else(|| {
                (0..plan.partitions).find(|&p| {
                    matches!(plan.decision(p, i), Decision::Define | Decision::AvailableExternally | Decision::LocalCopy)
                })
            });
            let partition_name = plan.promotions[i].as_ref().and_then(|p| p.new_name.clone()).unwrap_or_else(|| g.name.clone());
            functions.insert(partition_name, (reporter, g.name.clone()));
        }
        DiagnosticRouting { functions }
    }

    /// True if the module defines `function` (its name in the partitions).
    pub fn defines(&self, function: &str) -> bool {
        self.functions.contains_key(function)
    }

    /// The host's name of `function` (its name in `partition`) if `partition`
    /// reports its diagnostics; `None` if another partition does. An empty
    /// name (a diagnostic about no function) is reported as it is.
    pub fn route<'a>(&'a self, partition: u32, function: &'a str) -> Option<&'a str> {
        match self.functions.get(function) {
            Some((reporter, host_name)) => (*reporter == Some(partition)).then_some(host_name.as_str()),
            None => Some(function),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module_facts::RefKind::Call;
    use crate::partition_plan::PartitionPlan;
    use crate::symbol_rules::decide;
    use crate::test_support::*;

    /// main (partition 0) calls helper and big (partition 1); helper is
    /// small and internal: partition 0 gets a copy of it.
    fn split() -> (ModuleFacts, SymbolPlan) {
        let facts = module(vec![
            func("main", 10, &[(1, Call), (2, Call)]),
            internal(func("helper", 5, &[])),
            func("big", 500, &[]),
        ]);
        let plan = PartitionPlan { partitions: 2, owner: vec![Some(0), Some(1), Some(1)], cost: vec![10, 505] };
        let symbols = decide(&facts, &plan);
        (facts, symbols)
    }

    #[test]
    fn only_the_owner_reports_a_function() {
        let (facts, plan) = split();
        let routing = DiagnosticRouting::new(&facts, &plan);
        assert_eq!(routing.route(0, "main"), Some("main"));
        assert_eq!(routing.route(1, "main"), None);
        assert_eq!(routing.route(1, "big"), Some("big"));
        assert_eq!(routing.route(0, "big"), None);
    }

    #[test]
    fn promoted_and_copied_locals_are_reported_once_under_their_own_name() {
        let (facts, plan) = split();
        let routing = DiagnosticRouting::new(&facts, &plan);
        let in_partitions = plan.promotions[1].as_ref().and_then(|p| p.new_name.clone()).unwrap_or_else(|| "helper".into());
        assert_eq!(routing.route(1, &in_partitions), Some("helper"));
        assert_eq!(routing.route(0, &in_partitions), None);
    }

    #[test]
    fn functions_the_pipeline_created_are_reported_where_they_were_made() {
        let (facts, plan) = split();
        let routing = DiagnosticRouting::new(&facts, &plan);
        assert_eq!(routing.route(1, "big.cold.1"), Some("big.cold.1"));
        assert_eq!(routing.route(0, ""), Some(""));
        assert!(routing.defines("big") && !routing.defines("big.cold.1") && !routing.defines("printf"));
    }
}
