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
//! first partition that reports on them, under their own name: a function
//! every partition makes (a sanitizer's module constructor) is one function
//! in the whole module. A diagnostic about no function is reported by the
//! first partition that reports it, as often as that partition does (a
//! warning about the module that every partition gives is given once),
//! except a call to a function with a `warning` attribute (an `error` one
//! makes the partition fail, and the host compiles the module): the
//! code generator reports every such call it emits, and a partition emits
//! only calls of its own functions (a small local function copied into
//! several partitions, and left there uninlined, repeats its calls'
//! warnings, which stock gives once).
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
    /// A function the module does not define: the first partition that
    /// reports on it (see `note`).
    created: HashMap<String, u32>,
    /// The diagnostics about no function passed on so far, by identity:
    /// the partition that reports them.
    said: HashMap<String, u32>,
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
            // The name other partitions' copies have: never reported.
            if let Some(alias) = &plan.local_aliases[i] {
                functions.insert(alias.clone(), (None, g.name.clone()));
            }
        }
        DiagnosticRouting { functions, created: HashMap::new(), said: HashMap::new() }
    }

    /// Notes that `partition` reports on `function`: call it for every
    /// diagnostic, partitions in order, before routing any.
    pub fn note(&mut self, partition: u32, function: &str) {
        if !self.functions.contains_key(function) && !function.is_empty() {
            self.created.entry(function.to_string()).or_insert(partition);
        }
    }

    /// True if the module defines `function` (its name in the partitions).
    pub fn defines(&self, function: &str) -> bool {
        self.functions.contains_key(function)
    }

    /// The host's name of `function` (its name in `partition`) if `partition`
    /// reports this diagnostic about it; `None` if another partition does.
    /// An empty name (a diagnostic about no function) stays empty; such a
    /// diagnostic is passed on by the first partition its `identity` is seen
    /// in, and always if it has none (each copy is one of its own).
    pub fn route<'a>(&'a mut self, partition: u32, function: &'a str, identity: impl FnOnce() -> Option<String>) -> Option<&'a str> {
        if function.is_empty() {
            let reporter = identity().map_or(partition, |id| *self.said.entry(id).or_insert(partition));
            return (reporter == partition).then_some(function);
        }
        match self.functions.get(function) {
            Some((reporter, host_name)) => (*reporter == Some(partition)).then_some(host_name.as_str()),
            None => self.created.get(function).is_none_or(|&first| first == partition).then_some(function),
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
        let plan = PartitionPlan { partitions: 2, owner: vec![Some(0), Some(1), Some(1)], cost: vec![10, 505], planned: vec![10, 505], largest_unit: None };
        let symbols = decide(&facts, &plan);
        (facts, symbols)
    }

    #[test]
    fn only_the_owner_reports_a_function() {
        let (facts, plan) = split();
        let mut routing = DiagnosticRouting::new(&facts, &plan);
        let mut route = |k, f: &str| routing.route(k, f, || None).map(str::to_string);
        assert_eq!(route(0, "main").as_deref(), Some("main"));
        assert_eq!(route(1, "main"), None);
        assert_eq!(route(1, "big").as_deref(), Some("big"));
        assert_eq!(route(0, "big"), None);
    }

    #[test]
    fn promoted_and_copied_locals_are_reported_once_under_their_own_name() {
        let (facts, plan) = split();
        let mut routing = DiagnosticRouting::new(&facts, &plan);
        let in_partitions = plan.promotions[1].as_ref().and_then(|p| p.new_name.clone()).unwrap_or_else(|| "helper".into());
        assert_eq!(routing.route(1, &in_partitions, || None), Some("helper"));
        assert_eq!(routing.route(0, &in_partitions, || None), None);
    }

    #[test]
    fn functions_the_pipeline_created_are_reported_by_the_first_partition_reporting_them() {
        let (facts, plan) = split();
        let mut routing = DiagnosticRouting::new(&facts, &plan);
        // big.cold.1 is made by partition 1 alone; every partition makes a constructor.
        for (k, f) in [(0, "ctor"), (1, "big.cold.1"), (1, "ctor")] {
            routing.note(k, f);
        }
        assert_eq!(routing.route(1, "big.cold.1", || None), Some("big.cold.1"));
        assert_eq!(routing.route(0, "ctor", || None), Some("ctor"));
        assert_eq!(routing.route(1, "ctor", || None), None);
        assert!(routing.defines("big") && !routing.defines("big.cold.1") && !routing.defines("printf"));
    }

    #[test]
    fn a_diagnostic_about_no_function_is_reported_by_the_first_partition_giving_it() {
        let (facts, plan) = split();
        let mut routing = DiagnosticRouting::new(&facts, &plan);
        let stale = || Some("warning: stale debug info".to_string());
        assert_eq!(routing.route(0, "", stale), Some(""));
        assert_eq!(routing.route(1, "", stale), None);
        // As often as that partition gives it.
        assert_eq!(routing.route(0, "", stale), Some(""));
        assert_eq!(routing.route(1, "", || Some("warning: something else".into())), Some(""));
        // A diagnostic without an identity (a call to a `warning` function) is its own.
        assert_eq!(routing.route(0, "", || None), Some(""));
        assert_eq!(routing.route(1, "", || None), Some(""));
    }
}
