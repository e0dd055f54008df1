//! Builds one partition's module from the serialized whole module.
//!
//! The module is written to bitcode once; each partition is then loaded
//! lazily into its own `LLVMContext`, so only the bodies it keeps are read,
//! and the symbol plan is applied to it by position. Partitions are built
//! independently of each other, on any thread: no serial CloneModule.

use std::collections::HashMap;

use crate::ir::{Bitcode, GlobalKey, GlobalKind, GlobalTable, OwnedContext, OwnedModule, CALL_GRAPH_PROFILE_FLAG};
use crate::module_facts::{GlobalFacts, Linkage, ModuleFacts, SpecialArray, Visibility, KINDS};
use crate::symbol_rules::{Decision, SymbolPlan};

/// What every partition is built from, shared by the jobs that build them.
pub struct SplitInput {
    pub bitcode: Bitcode,
    pub facts: ModuleFacts,
    pub plan: SymbolPlan,
}

/// Builds partition `partition` in `ctx`, as a module named `identifier`:
/// every body it keeps is read, the rest are dropped unread, and the plan is
/// applied.
///
/// The module stays attached to its lazy bitcode reader (which is why it
/// borrows `input`), with nothing left to read, until it is dropped. The
/// load is never finished (`Module::materializeAll`): that would add only
/// LLVM's bitcode upgrades, which find nothing to upgrade in bitcode this
/// LLVM has just written (nor, on x86-64, LLVM 22's copies of module
/// attributes to functions, which only ARM and AArch64 have), but walk
/// every instruction again: stripping debug info from a module without the
/// "Debug Info Version" flag, and verifying one with it, aborting the
/// process if it is broken. `mtpc-split` writes the module as it is and
/// frees it; the tools that read the file verify it. `mtpc-parallel`
/// verifies it (falling back if it is broken) and then optimizes and
/// compiles it with the reader attached: with debug information, finishing
/// the load verified each partition a second time (DuckDB's
/// `ub_src_execution.cpp` with `-g` at 2 partitions: 0.94 G instructions
/// of the compile's 61 G), and the reader's tables that stay allocated
/// until the partition is dropped take a few megabytes (peak RSS +2 to
/// +7 MB, 2 to 8 partitions). The reader still holds the declarations of
/// intrinsics it upgraded (LLVM 19 and 22: `llvm.dbg.*`, which became debug
/// records), unused; nothing in the optimizer or code generator reads a
/// module's bitcode reader once no body is left to read. (An LLVM built
/// with assertions refuses any use of a module not finished loading, as it
/// refuses the editing above.)
pub fn build<'c>(ctx: &'c OwnedContext, input: &'c SplitInput, partition: u32, identifier: &str) -> Result<OwnedModule<'c>, String> {
    let mut owned = ctx.load_lazy(&input.bitcode, identifier)?;
    {
        let mut module = owned.as_module();
        let globals = GlobalTable::new(&mut module, &KINDS);
        if globals.len() != input.facts.globals.len() {
            return Err(format!(
                "the reloaded module has {} globals, the plan {}",
                globals.len(),
                input.facts.globals.len()
            ));
        }
        PartitionEditor { globals, input, partition }.apply()?;
        if !module.all_bodies_read() {
            return Err(format!("partition {partition}: a function body was left unread (a planning error)"));
        }
    }
    if let Some(error) = ctx.errors().into_iter().next() {
        return Err(format!("partition {partition}: LLVM reported an error while building it: {error}"));
    }
    Ok(owned)
}

/// Named metadata the code generator writes into a section of its own,
/// kept in partition 0 only.
const ONCE_PER_OBJECT_METADATA: [&str; 3] = ["llvm.commandline", "llvm.dependent-libraries", "llvm.linker.options"];

/// Of those, the directives for the linker. Where their list is empty
/// (clang 16 gives every C++20 module `!llvm.linker.options = !{}`), LLVM
/// 16's code generator still writes an empty section of LLVM's own type,
/// which a part's transcribed object cannot state: no partition keeps an
/// empty list, and the host's module writes the empty section, as stock's
/// (the shim's `keptByHost`).
const LINKER_DIRECTIVES_METADATA: [&str; 2] = ["llvm.dependent-libraries", "llvm.linker.options"];

struct PartitionEditor<'a, 'm> {
    /// The module's globals in fact order.
    globals: GlobalTable<'m>,
    input: &'a SplitInput,
    partition: u32,
}

impl PartitionEditor<'_, '_> {
    fn decision(&self, i: usize) -> Decision {
        self.input.plan.decision(self.partition, i)
    }

    fn apply(mut self) -> Result<(), String> {
        let facts = &self.input.facts;
        // 0. Debug information: what this partition describes (its private
        // copy of a constant too: the copy is an object of its own).
        let described: Vec<usize> = (0..facts.globals.len())
            .filter(|&i| {
                facts.globals[i].is_variable()
                    && matches!(self.decision(i), Decision::Define | Decision::OdrCopy | Decision::LocalCopy)
            })
            .collect();
        self.globals.trim_compile_units(&described, self.partition == 0);

        // 1. Bodies: read those this partition keeps, drop the rest unread.
        for (i, f) in facts.globals.iter().enumerate() {
            if f.id.kind != GlobalKind::Function || !f.is_definition {
                continue;
            }
            if self.decision(i).holds_body() {
                self.globals.get(i).expect("nothing erased yet").materialize()?
            } else {
                self.globals.delete_body(i);
            }
        }
        // A declaration of what another partition defines: described as
        // such, so that the calls to it are (`DW_TAG_call_site`).
        self.globals.describe_declared_functions();

        // 2. Initializers of variables this partition does not define.
        let dbg = self.globals.module().md_kind("dbg");
        for (i, f) in facts.globals.iter().enumerate() {
            let g = self.globals.get(i).expect("nothing erased yet");
            if f.is_variable() && f.is_definition && f.special.is_none() {
                match self.decision(i) {
                    Decision::Declare | Decision::Drop => {
                        g.clear_initializer();
                        g.erase_metadata(dbg);
                    }
                    Decision::AvailableExternally => g.erase_metadata(dbg),
                    _ => {}
                }
            }
        }

        // 3. Special arrays: llvm.used filtered, primary-only arrays dropped.
        let index: HashMap<GlobalKey, usize> =
            (0..self.globals.len()).filter_map(|i| Some((self.globals.get(i)?.id(), i))).collect();
        let (plan, partition) = (&self.input.plan, self.partition);
        for (i, f) in facts.globals.iter().enumerate() {
            match (f.special, self.decision(i)) {
                (Some(SpecialArray::Used), _) => {
                    let keep = |e: crate::ir::Value<'_>| match e.underlying_global() {
                        Some(g) => index
                            .get(&g.id())
                            .map_or(false, |&j| matches!(plan.decision(partition, j), Decision::Define | Decision::LocalCopy)),
                        None => false,
                    };
                    self.globals.filter_appending_array(i, keep);
                }
                (Some(SpecialArray::PrimaryOnly), Decision::Drop) => {
                    if !self.globals.erase_if_unused(i) {
                        return Err(format!("partition {partition}: {} is used", f.display_name()));
                    }
                }
                _ => {}
            }
        }
        if self.partition != 0 && facts.has_module_asm {
            self.globals.module().set_module_asm("");
        }
        // What the object records once, for the whole module: the compile's
        // command line (-frecord-command-line), the libraries and options
        // it asks the linker for (#pragma comment).
        for name in ONCE_PER_OBJECT_METADATA {
            // (An absent list counts as empty; erasing it does nothing.)
            let empty_directives = LINKER_DIRECTIVES_METADATA.contains(&name) && !self.globals.module().has_named_metadata(name);
            if self.partition != 0 || empty_directives {
                self.globals.module().erase_named_metadata(name);
            }
        }

        // 4. Names, linkage and visibility.
        for (i, f) in facts.globals.iter().enumerate() {
            // A filtered `llvm.used` is final.
            if f.special == Some(SpecialArray::Used) {
                continue;
            }
            let Some(g) = self.globals.get(i) else { continue };
            let d = self.decision(i);
            let promotion = self.input.plan.promotions[i].as_ref();
            if let Some(p) = promotion {
                if let Some(name) = &p.new_name {
                    g.set_name(name);
                }
                if p.visibility == Visibility::Hidden {
                    g.set_visibility(Visibility::Hidden);
                    g.set_dso_local(true);
                }
            }
            match d {
                // Another partition's copy of local data: private, so that its
                // name is a private label wherever the parts meet.
                Decision::LocalCopy if f.is_variable() && self.input.plan.owner_of(i) != Some(self.partition) => {
                    g.set_linkage(Linkage::Private);
                }
                Decision::Define | Decision::OdrCopy => {
                    if let Some(p) = promotion {
                        g.set_linkage(p.linkage);
                    }
                }
                Decision::AvailableExternally if f.linkage != Linkage::AvailableExternally => {
                    g.set_linkage(Linkage::AvailableExternally);
                    g.clear_comdat();
                }
                Decision::Declare | Decision::Drop if f.is_definition && matches!(f.id.kind, GlobalKind::Function | GlobalKind::Variable) => {
                    g.set_linkage(Linkage::External);
                    g.clear_comdat();
                    if promotion.is_none() && f.linkage.is_local() {
                        // A dropped local: must have no uses left; erased below.
                        g.set_visibility(Visibility::Default);
                    }
                    if self.input.plan.preemptible_declarations[i] {
                        g.set_dso_local(false);
                    }
                }
                _ => {}
            }
        }

        // 4a. A definition of a library function's name (a malloc wrapper
        //     of the program) declared here is not that library function.
        let declared: Vec<usize> = (0..facts.globals.len())
            .filter(|&i| facts.globals[i].is_function() && facts.globals[i].is_definition && self.decision(i) == Decision::Declare)
            .collect();
        self.globals.keep_library_declarations_unassumed(&declared, false);

        // 4b. Shared-library code: what another partition defines and the
        //     whole module's code would bind locally, this one's code names
        //     by the hidden alias the owner adds (`SymbolPlan::local_aliases`).
        for (i, alias) in self.input.plan.local_aliases.iter().enumerate() {
            let Some(alias) = alias else { continue };
            match self.decision(i) {
                Decision::Define => {
                    self.globals.add_hidden_alias(i, alias);
                }
                Decision::Declare | Decision::AvailableExternally => {
                    let preemptible = self.input.plan.preemptible_declarations[i];
                    self.globals.bind_code_references_locally(i, alias, preemptible);
                }
                _ => {}
            }
        }

        // 5. Aliases and ifuncs this partition only refers to.
        let mut declared_aliases = Vec::new();
        for (i, f) in facts.globals.iter().enumerate() {
            if !matches!(f.id.kind, GlobalKind::Alias | GlobalKind::IFunc) {
                continue;
            }
            match self.decision(i) {
                Decision::Declare if f.resolves_to_aliasee() => {
                    self.globals.resolve_alias(i);
                }
                Decision::Declare => {
                    let preemptible = self.input.plan.preemptible_declarations[i];
                    if let Some(declaration) = self.globals.replace_with_declaration(i) {
                        if preemptible {
                            declaration.set_dso_local(false);
                        }
                    }
                    declared_aliases.push(i);
                }
                _ => {}
            }
        }
        // An alias named like a library function (glibc's
        // weak_alias(__libc_malloc, malloc)) is none.
        self.globals.keep_library_declarations_unassumed(&declared_aliases, true);

        // 6. Remove what this partition does not keep, until nothing changes
        //    (an alias of a dropped alias goes only after it).
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..self.globals.len() {
                if self.globals.get(i).is_none() || facts.globals[i].special.is_some() {
                    continue;
                }
                // Declarations stay even if unused: they are what metadata
                // (indirect-call targets) refers to; copies nobody uses go.
                let removable = matches!(self.decision(i), Decision::Drop | Decision::AvailableExternally)
                    && !is_intrinsic_declaration(&facts.globals[i]);
                if removable && self.globals.erase_if_unused(i) {
                    changed = true;
                }
            }
        }
        for i in 0..self.globals.len() {
            if self.globals.get(i).is_some()
                && self.decision(i) == Decision::Drop
                && facts.globals[i].special.is_none()
                && !is_intrinsic_declaration(&facts.globals[i])
            {
                return Err(format!(
                    "partition {}: {} is still used after the split (a planning error)",
                    self.partition,
                    facts.globals[i].display_name()
                ));
            }
        }

        // 7. The call graph profile, which a module split for its code
        //    generation alone carries (the host's last passes recorded it
        //    for the whole): each edge written by the partition that emits
        //    its caller, not by every partition that declares both ends.
        //    That split copies no function, so the caller's owner emits it.
        //    (A module split to be optimized gets the flag from each
        //    partition's pipeline, after the split: `compile_partition`
        //    keeps its edges.) A callee of an indirect call the profile
        //    names is declared where its caller is, as the value profile's
        //    targets are (`RefKind::IndirectCall`).
        if self.globals.module().has_flag(CALL_GRAPH_PROFILE_FLAG) {
            let callers: Vec<usize> =
                (0..facts.globals.len()).filter(|&i| facts.globals[i].is_function() && self.decision(i) == Decision::Define).collect();
            let kept = self.globals.keep_call_graph_profile_from(&callers).map_err(|e| format!("partition {}: {e}", self.partition))?;
            log::debug!("partition {}: {kept} edges of the call graph profile, from the functions it emits", self.partition);
        }

        // 8. Declarations that only metadata names (a C++ template
        //    parameter's value), kept from the optimizer's deletion of
        //    unused declarations. Last: `llvm.compiler.used` is replaced.
        let kept: Vec<usize> = self.input.plan.kept_declarations[self.partition as usize].iter().map(|&i| i as usize).collect();
        self.globals.keep_declarations(&kept);
        Ok(())
    }
}

/// An intrinsic's declaration stays in every partition, used or not: the
/// bitcode reader erases the declarations it upgrades (LLVM 19: `llvm.dbg.*`,
/// which become debug records) itself when the lazy load finishes, and one
/// erased before that is erased twice. Unused, it costs nothing.
fn is_intrinsic_declaration(g: &GlobalFacts) -> bool {
    !g.is_definition && g.name.starts_with("llvm.")
}
