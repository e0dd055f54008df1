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
//! What a diagnostic names by value (the callee and caller of an inlining
//! remark, a variable a remark is about, the function with a `warning`
//! attribute a call reaches) is named as the host's module names it too: a
//! promoted local, or a shared library's function under its local alias,
//! gets its name back, and so does a function a partition's pipeline
//! derived from one (`NAME.mtpc.TAG.cold.1` is stock's `NAME.cold.1`).
//!
//! A call into a function another partition compiles, and that this one
//! does not copy, reaches a declaration: the inliner then remarks that the
//! callee's definition is not available, which is never so in the whole
//! module. Those remarks are not passed on (the one the whole module would
//! give, that the callee is too costly or never inlined, cannot be made
//! without its body).

use std::borrow::Cow;
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
    /// A global's name in the partitions, where it is not the host's
    /// (promoted locals, local aliases): the host's name.
    host_names: HashMap<String, String>,
}

/// Where every name mtpc gives a global carries its mark (`NAME.mtpc.TAG`,
/// `NAME.mtpc.local`): a name without it is the host's.
const RENAMED_MARK: &str = ".mtpc.";

impl DiagnosticRouting {
    pub fn new(facts: &ModuleFacts, plan: &SymbolPlan) -> DiagnosticRouting {
        let mut functions = HashMap::new();
        let mut host_names = HashMap::new();
        for (i, g) in facts.globals.iter().enumerate() {
            if g.name.is_empty() {
                continue;
            }
            let promoted = plan.promotions[i].as_ref().and_then(|p| p.new_name.as_ref());
            for renamed in promoted.into_iter().chain(plan.local_aliases[i].as_ref()) {
                host_names.insert(renamed.clone(), g.name.clone());
                // A remark names a global without LLVM's escape for names
                // given verbatim (`asm("name")`).
                if let (Some(renamed), Some(host)) = (renamed.strip_prefix('\u{1}'), g.name.strip_prefix('\u{1}')) {
                    host_names.insert(renamed.to_string(), host.to_string());
                }
            }
            if !g.is_function() || !g.is_definition {
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
        DiagnosticRouting { functions, created: HashMap::new(), said: HashMap::new(), host_names }
    }

    /// What the partitions' `text` says with the host's names, if that
    /// differs: a value a remark names (a promoted local, a local alias),
    /// a name derived from one by suffixes (`NAME.mtpc.TAG.cold.1` is
    /// `NAME.cold.1`), or such names within words (" (in function:
    /// NAME.mtpc.TAG)"). `None` for text that has the host's names already.
    pub fn host_name(&self, text: &str) -> Option<String> {
        if !text.contains(RENAMED_MARK) {
            return None;
        }
        // A name with characters no word holds (quoted in assembly).
        if let Some(host) = self.host_word(text) {
            return Some(host);
        }
        let (mut named, mut copied) = (String::with_capacity(text.len()), 0);
        for (start, end) in symbol_words(text) {
            let word = &text[start..end];
            if let Some(host) = word.contains(RENAMED_MARK).then(|| self.host_word(word)).flatten() {
                named.push_str(&text[copied..start]);
                named.push_str(&host);
                copied = end;
            }
        }
        (copied > 0).then(|| named + &text[copied..])
    }

    /// The host's name of one symbol-like `word` that names a renamed
    /// global, or a name derived from one (its longest renamed prefix that
    /// ends before a dot).
    fn host_word(&self, word: &str) -> Option<String> {
        if let Some(host) = self.host_names.get(word) {
            return Some(host.clone());
        }
        word.rmatch_indices('.')
            .find_map(|(end, _)| self.host_names.get(&word[..end]).map(|host| format!("{host}{}", &word[end..])))
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
    /// A function a partition's pipeline created is named as the host's
    /// would name it (see `host_name`).
    pub fn route<'a>(&'a mut self, partition: u32, function: &'a str, identity: impl FnOnce() -> Option<String>) -> Option<Cow<'a, str>> {
        if function.is_empty() {
            let reporter = identity().map_or(partition, |id| *self.said.entry(id).or_insert(partition));
            return (reporter == partition).then_some(Cow::Borrowed(function));
        }
        match self.functions.get(function) {
            Some((reporter, host_name)) => (*reporter == Some(partition)).then_some(Cow::Borrowed(host_name.as_str())),
            None if self.created.get(function).is_none_or(|&first| first == partition) => {
                Some(self.host_name(function).map_or(Cow::Borrowed(function), Cow::Owned))
            }
            None => None,
        }
    }
}

/// The spans of `text` made of the characters of symbol names (letters,
/// digits, `_`, `.`, `$`, and every character beyond ASCII, as C++
/// identifiers may hold), in order.
fn symbol_words(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let in_name = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$') || !b.is_ascii();
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        let start = at + bytes[at..].iter().position(|&b| in_name(b))?;
        let end = start + bytes[start..].iter().position(|&b| !in_name(b)).unwrap_or(bytes.len() - start);
        at = end;
        Some((start, end))
    })
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
        let mut route = |k, f: &str| routing.route(k, f, || None).map(Cow::into_owned);
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
        assert_eq!(routing.route(1, &in_partitions, || None).as_deref(), Some("helper"));
        assert_eq!(routing.route(0, &in_partitions, || None).as_deref(), None);
    }

    #[test]
    fn functions_the_pipeline_created_are_reported_by_the_first_partition_reporting_them() {
        let (facts, plan) = split();
        let mut routing = DiagnosticRouting::new(&facts, &plan);
        // big.cold.1 is made by partition 1 alone; every partition makes a constructor.
        for (k, f) in [(0, "ctor"), (1, "big.cold.1"), (1, "ctor")] {
            routing.note(k, f);
        }
        assert_eq!(routing.route(1, "big.cold.1", || None).as_deref(), Some("big.cold.1"));
        assert_eq!(routing.route(0, "ctor", || None).as_deref(), Some("ctor"));
        assert_eq!(routing.route(1, "ctor", || None).as_deref(), None);
        assert!(routing.defines("big") && !routing.defines("big.cold.1") && !routing.defines("printf"));
    }

    /// main (partition 0) and other (partition 1) call helper, too large
    /// to copy and owned by partition 1: promoted.
    fn shared_local() -> (ModuleFacts, SymbolPlan) {
        let facts = module(vec![
            func("main", 10, &[(1, Call)]),
            internal(func("helper", 5000, &[])),
            func("other", 10, &[(1, Call)]),
        ]);
        let plan = PartitionPlan { partitions: 2, owner: vec![Some(0), Some(1), Some(1)], cost: vec![10, 5010], planned: vec![10, 5010], largest_unit: None };
        let symbols = decide(&facts, &plan);
        (facts, symbols)
    }

    #[test]
    fn names_given_by_mtpc_are_the_hosts_in_what_a_diagnostic_says() {
        let (facts, plan) = shared_local();
        let mut routing = DiagnosticRouting::new(&facts, &plan);
        let promoted = plan.promotions[1].as_ref().and_then(|p| p.new_name.clone()).expect("helper is promoted");
        assert!(promoted.contains(RENAMED_MARK), "{promoted}");
        // An inlining remark's callee, and what a pipeline derives from it.
        assert_eq!(routing.host_name(&promoted).as_deref(), Some("helper"));
        assert_eq!(routing.host_name(&format!("{promoted}.cold.1")).as_deref(), Some("helper.cold.1"));
        // Within a remark's text, and at its end.
        assert_eq!(routing.host_name(&format!(" (in function: {promoted})")).as_deref(), Some(" (in function: helper)"));
        assert_eq!(routing.host_name(&format!("{promoted} and {promoted}.")).as_deref(), Some("helper and helper."));
        // The host's own names, and names that only look like mtpc's.
        for name in ["helper", "main", "big.cold.1", "x.mtpc.unknown", "", "ünïcode .mtpc. text"] {
            assert_eq!(routing.host_name(name), None, "{name}");
        }
        // A function a partition's pipeline derived from a promoted local is
        // reported under the name the host's pipeline would give it.
        let derived = format!("{promoted}.cold.1");
        routing.note(1, &derived);
        assert_eq!(routing.route(1, &derived, || None).as_deref(), Some("helper.cold.1"));
        assert_eq!(routing.route(0, &derived, || None).as_deref(), None);
    }

    #[test]
    fn symbol_words_are_the_runs_of_name_characters() {
        let text = "'f.mtpc.1' inlined into 'g$x' (é _z9 naïve.mtpc.2)";
        let words: Vec<&str> = symbol_words(text).map(|(s, e)| &text[s..e]).collect();
        assert_eq!(words, ["f.mtpc.1", "inlined", "into", "g$x", "é", "_z9", "naïve.mtpc.2"]);
        assert_eq!(symbol_words("").count(), 0);
        assert_eq!(symbol_words(" - ").count(), 0);
    }

    #[test]
    fn names_a_word_cannot_hold_and_verbatim_names_are_the_hosts() {
        let facts = module(vec![
            func("main", 10, &[(1, Call), (2, Call)]),
            internal(func("\u{1}odd name", 5000, &[])),
            internal(func("has space", 5000, &[])),
            func("other", 10, &[(1, Call), (2, Call)]),
        ]);
        let plan = PartitionPlan {
            partitions: 2,
            owner: vec![Some(0), Some(1), Some(1), Some(1)],
            cost: vec![10, 10010],
            planned: vec![10, 10010],
            largest_unit: None,
        };
        let plan = decide(&facts, &plan);
        let routing = DiagnosticRouting::new(&facts, &plan);
        let name = |i: usize| plan.promotions[i].as_ref().and_then(|p| p.new_name.clone()).expect("promoted");
        assert_eq!(routing.host_name(&name(2)).as_deref(), Some("has space"));
        assert_eq!(routing.host_name(&name(1)).as_deref(), Some("\u{1}odd name"));
        let unescaped = name(1).strip_prefix('\u{1}').expect("escaped").to_string();
        assert_eq!(routing.host_name(&unescaped).as_deref(), Some("odd name"));
    }

    #[test]
    fn a_local_alias_is_named_as_its_function() {
        let (facts, mut plan) = split();
        plan.local_aliases[2] = Some("big.mtpc.local".into());
        let routing = DiagnosticRouting::new(&facts, &plan);
        assert_eq!(routing.host_name("big.mtpc.local").as_deref(), Some("big"));
    }

    #[test]
    fn a_diagnostic_about_no_function_is_reported_by_the_first_partition_giving_it() {
        let (facts, plan) = split();
        let mut routing = DiagnosticRouting::new(&facts, &plan);
        let stale = || Some("warning: stale debug info".to_string());
        assert_eq!(routing.route(0, "", stale).as_deref(), Some(""));
        assert_eq!(routing.route(1, "", stale).as_deref(), None);
        // As often as that partition gives it.
        assert_eq!(routing.route(0, "", stale).as_deref(), Some(""));
        assert_eq!(routing.route(1, "", || Some("warning: something else".into())).as_deref(), Some(""));
        // A diagnostic without an identity (a call to a `warning` function) is its own.
        assert_eq!(routing.route(0, "", || None).as_deref(), Some(""));
        assert_eq!(routing.route(1, "", || None).as_deref(), Some(""));
    }
}
