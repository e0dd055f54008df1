//! Promoted locals made local again where the parts meet.
//!
//! The split renames an `internal` function or variable of the module that
//! several partitions use `NAME.mtpc.HASH` (hidden), so that the others can
//! name it (`symbol_rules`). Where the parts meet in one object, through
//! their objects (`object_merge`) or their texts (`asm_merge`), one that a
//! single part defines can be local again under its own name, as in stock's
//! object: the host assembles one text, in which a local is every part's to
//! name. Both merges decide it by the same rule ([`LocalAgain`]), from what
//! each part's symbols say, and name the sections named after it alike
//! ([`sections_named_again`]).

use std::collections::{BTreeSet, HashMap, HashSet};

/// What the parts say of one promoted local's definitions.
#[derive(Clone, Copy)]
struct Definitions {
    /// How many parts define it (in a section they keep).
    parts: usize,
    /// Whether every definition is a function or data object in a section
    /// neither mergeable, nor thread-local, nor in a COMDAT group.
    plain: bool,
}

/// Which promoted locals are local again: each one that exactly one part
/// defines, plainly (see [`LocalAgain::definition`]), that no part uses in
/// a way a local cannot stand for ([`LocalAgain::refuse`]), and whose stock
/// name no symbol of the parts has otherwise (a library call the code
/// generator made under that name, a local another part renamed): see
/// [`LocalAgain::name_taken`]. The others keep their promoted, hidden names.
///
/// What each merge can tell: the parts' objects list every symbol they
/// name, defined or not, and how each relocation reaches it; the parts'
/// texts are read for the symbols they define only (a part that names
/// another symbol by a stock name taken again fails the merge when its
/// segment is written, and the module compiles whole), and a text may
/// name a local through the GOT as the assembler reads it (refused for
/// objects, where a relocation through the GOT names the symbol).
pub struct LocalAgain<'p> {
    /// Promoted name to stock's (`SymbolRules::promoted_locals`).
    promoted: &'p HashMap<String, String>,
    names: HashSet<String>,
    refused: HashSet<String>,
    definitions: HashMap<String, Definitions>,
}

impl<'p> LocalAgain<'p> {
    /// `promoted`: the module's promoted locals, by promoted name, each
    /// with the name stock's object has for it.
    pub fn new(promoted: &'p HashMap<String, String>) -> LocalAgain<'p> {
        LocalAgain { promoted, names: HashSet::new(), refused: HashSet::new(), definitions: HashMap::new() }
    }

    pub fn is_promoted(&self, name: &str) -> bool {
        self.promoted.contains_key(name)
    }

    /// A part has a symbol named `name`, as the host's text names it (a
    /// local the merge renames per part under its new name).
    pub fn name_taken(&mut self, name: String) {
        self.names.insert(name);
    }

    /// A part uses promoted `name` otherwise than a local of another part
    /// can be used (through the GOT, or its size).
    pub fn refuse(&mut self, name: &str) {
        self.refused.insert(name.to_string());
    }

    /// A part keeps a definition of promoted `name` that is not local to
    /// it; `plain`: a function or data object in a section neither
    /// mergeable, nor thread-local, nor in a COMDAT group. (A reference
    /// into a mergeable section through a local symbol could become one
    /// through the section, which a linker resolves to another piece where
    /// the reference points past its own.)
    pub fn definition(&mut self, name: &str, plain: bool) {
        let seen = self.definitions.entry(name.to_string()).or_insert(Definitions { parts: 0, plain: true });
        *seen = Definitions { parts: seen.parts + 1, plain: seen.plain && plain };
    }

    /// The promoted locals made local again: promoted name to stock's.
    pub fn decide(self) -> HashMap<String, String> {
        self.promoted
            .iter()
            .filter(|(from, to)| !to.is_empty() && !self.names.contains(to.as_str()) && !self.refused.contains(from.as_str()))
            .filter(|(from, _)| matches!(self.definitions.get(from.as_str()), Some(Definitions { parts: 1, plain: true })))
            .map(|(from, to)| (from.clone(), to.clone()))
            .collect()
    }
}

/// The sections of the parts (`section_names`) named after a promoted local
/// made local again (`demoted`), each with the name it takes: the code
/// generator names a function's or variable's own section
/// (`-ffunction-sections`, `-fdata-sections`), its jump tables'
/// (`.rodata.NAME`), its exception table (`.gcc_except_table.NAME`) and its
/// switch tables (`.data.rel.ro..Lswitch.table.NAME`) after it, and stock's
/// object after its stock name: `PREFIX.NAME.mtpc.HASH` becomes
/// `PREFIX.NAME`. A section is named after the promoted local (`promoted`)
/// its longest suffix names, and renamed only if that one is made local
/// again. A name some part's section already has, or that two sections
/// would take, is not taken (the first in name order takes it).
pub fn sections_named_again<'s>(
    section_names: impl IntoIterator<Item = &'s str>,
    promoted: &HashMap<String, String>,
    demoted: &HashMap<String, String>,
) -> HashMap<String, String> {
    let mut renamed = HashMap::new();
    if demoted.is_empty() {
        return renamed;
    }
    let section_names: BTreeSet<&str> = section_names.into_iter().collect();
    let mut taken: HashSet<String> = HashSet::new();
    for &name in &section_names {
        // The longest suffix after a dot (not the first character) that
        // names a promoted local, if that one is made local again.
        let named_after = name
            .match_indices('.')
            .map(|(at, _)| at)
            .find(|&at| at > 0 && promoted.contains_key(&name[at + 1..]))
            .and_then(|at| demoted.get(&name[at + 1..]).map(|stock| format!("{}{stock}", &name[..=at])));
        if let Some(stock) = named_after {
            if !section_names.contains(stock.as_str()) && taken.insert(stock.clone()) {
                renamed.insert(name.to_string(), stock);
            }
        }
    }
    renamed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|&(from, to)| (from.to_string(), to.to_string())).collect()
    }

    /// Local again: what one part defines plainly and no part names
    /// otherwise. Not: one two parts define, one no part defines, one in a
    /// special section (even if only one of its definitions is), one a part
    /// reaches through the GOT, one whose stock name a part's symbol has.
    #[test]
    fn a_promoted_local_one_part_defines_plainly_is_local_again() {
        let promoted = names(&[
            ("once.mtpc.1", "once"),
            ("twice.mtpc.1", "twice"),
            ("never.mtpc.1", "never"),
            ("merged.mtpc.1", "merged"),
            ("got.mtpc.1", "got"),
            ("taken.mtpc.1", "taken"),
        ]);
        let mut again = LocalAgain::new(&promoted);
        for name in ["once.mtpc.1", "got.mtpc.1", "taken.mtpc.1", "twice.mtpc.1", "twice.mtpc.1"] {
            again.definition(name, true);
        }
        again.definition("merged.mtpc.1", true);
        again.definition("merged.mtpc.1", false);
        again.refuse("got.mtpc.1");
        again.name_taken("taken".to_string());
        assert!(again.is_promoted("never.mtpc.1") && !again.is_promoted("never"));
        assert_eq!(again.decide(), names(&[("once.mtpc.1", "once")]));
    }

    /// Every section named after a promoted local made local again takes
    /// its stock name, in every part: its own, its jump tables', its
    /// exception table, its switch tables'. Not a name some part's section
    /// has, nor one two sections would take; a section named after a local
    /// that stays promoted keeps its name, also where a shorter suffix of
    /// it names one made local again.
    #[test]
    fn sections_named_after_a_local_made_local_again_take_its_name() {
        let sections = [
            ".text.f.mtpc.1",
            ".rodata.f.mtpc.1",
            ".gcc_except_table.f.mtpc.1",
            ".rodata.g.mtpc.1",
            ".text.h.mtpc.1",
            ".data.rel.ro..Lswitch.table.f.mtpc.1",
            ".text.h",
            ".text.kept.mtpc.1",
            ".bss.a.b.mtpc.1",
            ".f.mtpc.1",
            ".tbss.x.f.mtpc.1",
        ];
        let demoted = names(&[("f.mtpc.1", "f"), ("g.mtpc.1", "f"), ("h.mtpc.1", "h"), ("a.b.mtpc.1", "a.b"), ("b.mtpc.1", "b")]);
        let mut promoted = demoted.clone();
        promoted.insert("kept.mtpc.1".to_string(), "kept".to_string());
        promoted.insert("x.f.mtpc.1".to_string(), "x.f".to_string());
        let renamed = sections_named_again(sections, &promoted, &demoted);
        let expected = names(&[
            (".text.f.mtpc.1", ".text.f"),
            // `.rodata.g.mtpc.1` would take `.rodata.f` too: the first in
            // name order takes it.
            (".rodata.f.mtpc.1", ".rodata.f"),
            (".gcc_except_table.f.mtpc.1", ".gcc_except_table.f"),
            (".data.rel.ro..Lswitch.table.f.mtpc.1", ".data.rel.ro..Lswitch.table.f"),
            // The longest suffix that names one.
            (".bss.a.b.mtpc.1", ".bss.a.b"),
        ]);
        // `.text.h` is another part's section; `.f.mtpc.1` has no prefix;
        // `kept.mtpc.1` stays promoted, and so does `x.f.mtpc.1` (a
        // thread-local, say), whose section is not `f.mtpc.1`'s.
        assert_eq!(renamed, expected);
    }
}
