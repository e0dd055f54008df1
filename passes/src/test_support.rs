//! Builders of small [`ModuleFacts`] for the unit tests of planning and rules.

use crate::ir::GlobalKind;
use crate::module_facts::*;

fn global(kind: GlobalKind, index: u32, name: &str) -> GlobalFacts {
    GlobalFacts {
        id: GlobalId { kind, index },
        name: name.to_string(),
        linkage: Linkage::External,
        visibility: Visibility::Default,
        dso_local: true,
        is_definition: true,
        comdat: None,
        section: None,
        thread_local: false,
        asan_dynamic_init: false,
        is_constant: false,
        unnamed_addr: false,
        instructions: 0,
        inline_size: 0,
        back_edges: 0,
        size: 0,
        refs: Vec::new(),
        debug_locations: Vec::new(),
        named_by_metadata: false,
        block_address_of: Vec::new(),
        no_cfi_of: Vec::new(),
        associated: None,
        target: None,
        bound_to_aliasee: false,
        address_in_data: false,
        c_string: false,
        no_inline: false,
        always_inline: false,
        inline_hint: false,
        asm_local_refs: Vec::new(),
        special: None,
    }
}

pub fn func(name: &str, instructions: u32, refs: &[(u32, RefKind)]) -> GlobalFacts {
    let mut g = global(GlobalKind::Function, 0, name);
    g.instructions = instructions;
    g.inline_size = instructions;
    g.refs = refs.to_vec();
    g
}

/// `g` with internal linkage.
pub fn internal(mut g: GlobalFacts) -> GlobalFacts {
    g.linkage = Linkage::Internal;
    g
}

pub fn var(name: &str, size: u64, refs: &[(u32, RefKind)]) -> GlobalFacts {
    let mut g = global(GlobalKind::Variable, 0, name);
    g.size = size;
    g.refs = refs.to_vec();
    g
}

/// A string literal as clang writes it: private `unnamed_addr` constant data,
/// a C string.
pub fn literal(name: &str, size: u64) -> GlobalFacts {
    let mut g = var(name, size, &[]);
    g.linkage = Linkage::Private;
    g.is_constant = true;
    g.unnamed_addr = true;
    g.c_string = true;
    g
}

pub fn alias(name: &str, target: u32) -> GlobalFacts {
    let mut g = global(GlobalKind::Alias, 0, name);
    g.refs = vec![(target, RefKind::Ref)];
    g.target = Some(target);
    g
}

/// A module of these globals; ids are renumbered per kind in list order,
/// and inline sizes count sole callees in, as the collector does.
pub fn module(mut globals: Vec<GlobalFacts>) -> ModuleFacts {
    let mut next = std::collections::HashMap::new();
    for g in &mut globals {
        let i = next.entry(g.id.kind).or_insert(0u32);
        g.id.index = *i;
        *i += 1;
    }
    let mut facts = ModuleFacts { source_filename: "test.c".into(), globals, ..Default::default() };
    facts.add_sole_callees_to_inline_sizes();
    facts.mark_bound_aliases();
    facts.mark_addresses_in_data();
    facts
}
