//! When mtpc declines a module: the compiles whose result it cannot
//! guarantee to be the stock one. The module is then compiled whole, as
//! without mtpc, and one `info` line says why. Decided from the host's
//! settings alone, before any work (the README lists the cases). A compile
//! whose profile the pipeline applies by function name and control-flow
//! hash ([`optimization_reason`]) leaves only its optimization to the
//! host: the code generation of the module it optimized whole may be split.

use crate::ir::host_pipeline::{sanitizers, CsPgoAction, HostFacts, PgoAction};
use crate::module_facts::{Linkage, ModuleFacts};
use crate::symbol_rules::SymbolPlan;

/// How the pass was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// From an extension point: the user added the plugin, nothing more.
    Automatic,
    /// `mtpc-parallel<...>` in pipeline text: the user asked for this pass.
    Explicit,
}

/// The host program, as far as it matters here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostProgram {
    /// `opt`: its output is IR.
    Opt,
    /// clang (it records its `-cc1` arguments), lld, or anything else.
    Other,
}

impl HostProgram {
    /// The program this process runs, from its name.
    pub fn current() -> HostProgram {
        let program = std::env::args_os().next().map(std::path::PathBuf::from);
        let name = program.as_deref().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned());
        match name.as_deref() {
            Some(n) if n == "opt" || n.starts_with("opt-") => HostProgram::Opt,
            _ => HostProgram::Other,
        }
    }
}

/// Why mtpc declines to split a module compiled with these settings, if it does.
pub fn reason(facts: &HostFacts, request: Request, program: HostProgram) -> Option<String> {
    if !facts.object_format_elf || !facts.arch_x86_64 {
        return Some(format!(
            "the target {} is not x86-64 ELF, the only target mtpc's assembly merge handles",
            facts.triple
        ));
    }
    // clang's own are `-cc1` arguments, not LLVM options: the pass manager's
    // log, and the check of each pass for debug information it loses (on the
    // host's pass instrumentation, which partitions replace by their own).
    let clang_debugging = ["-fdebug-pass-manager", "-fverify-debuginfo-preserve"]
        .into_iter()
        .find(|option| has_arg(facts, |a| a == *option))
        .map(|option| option[1..].to_string());
    if let Some(option) = facts.debugging_option.clone().or(clang_debugging) {
        return Some(format!(
            "the pass debugging option -{option} is on: it follows the host's pipeline, and partitions' passes run outside it"
        ));
    }
    if !facts.integrated_assembler {
        return Some("the host assembles with an external assembler (-fno-integrated-as)".into());
    }
    if facts.split_dwarf {
        return Some("split DWARF (-gsplit-dwarf) would put one compile unit per partition into the .dwo file".into());
    }
    if crate::ir::llvm_version::MAJOR >= 17 && type_units_with_name_index(facts) {
        return Some(
            "the name index (-gpubnames) lists each DWARF type unit (-fdebug-types-section) by where it starts, \
             and the object keeps one unit per type from one partition"
                .into(),
        );
    }
    if facts.stack_usage {
        return Some(
            "the code generator writes the stack usage file (-fstack-usage) from the functions it compiles, and \
             each partition's would write it anew with its own"
                .into(),
        );
    }
    if has_arg(facts, |a| a == "-fpartition-static-data-sections") {
        return Some(
            "static data partitioning (-fpartition-static-data-sections, clang 21 on) puts each global in a hot or cold \
             section from the profile counts of every function of the module that reads it, and a partition sees its own"
                .into(),
        );
    }
    if facts.pseudo_probes {
        return Some(
            "pseudo probes (-fpseudo-probe-for-profiling): each partition's code generator would write the descriptor \
             of every function of the module (.pseudo_probe_desc), which the object holds once"
                .into(),
        );
    }
    if let Some(kind) = sanitizers(&facts.command_line).find(|k| matches!(*k, "hwaddress" | "kernel-hwaddress")) {
        return Some(format!(
            "HWASan (-fsanitize={kind}) gives each partition the note of the object's globals that the object holds \
             once (.note.hwasan.globals), which the merge cannot join"
        ));
    }
    if has_arg(facts, |a| a.starts_with("-fmemory-profile")) {
        return Some("memory profiling (-fmemory-profile) is added after the host's pipeline, outside the partitions".into());
    }
    if request == Request::Automatic {
        if has_arg(facts, |a| a == "-emit-llvm" || a == "-emit-llvm-bc") {
            return Some("the compile writes LLVM IR (-emit-llvm), not an object".into());
        }
        if program == HostProgram::Opt {
            return Some("opt writes LLVM IR, not an object (use mtpc-parallel<...> in -passes to split in opt)".into());
        }
    }
    None
}

/// Why the host's optimization must see the whole module, if it must: a
/// profile applied, or instrumentation added, by the pipeline's profile
/// passes, which name each function by its name (a local's with its file's)
/// and check its control-flow hash after the pipeline's first
/// interprocedural passes and pre-inlining, all of which a partition would
/// run on its part alone (a promoted local renamed, a callee not copied):
/// the profile would miss functions, or count them apart from stock's. The
/// module is then optimized whole by the host, and its code generation,
/// which reads the profile's summary and each function's counts from the
/// IR, may still be split (automatic mode: [`crate::ir::host_pipeline::PassRun::want_code_generation_split`]).
/// Asked only where [`reason`] declined nothing.
pub fn optimization_reason(facts: &HostFacts) -> Option<String> {
    let profile = match (facts.pgo, facts.cs_pgo) {
        (PgoAction::IrInstrument, _) => "IR profile instrumentation (-fprofile-generate)",
        (PgoAction::IrUse, _) => "an IR profile (-fprofile-use)",
        (PgoAction::SampleUse, _) => "a sample profile (-fprofile-sample-use)",
        (_, CsPgoAction::Instrument) => "context-sensitive profile instrumentation (-fcs-profile-generate)",
        (_, CsPgoAction::Use) => "a context-sensitive profile",
        _ => return None,
    };
    Some(format!("{profile} is applied in the pipeline by function name and control-flow hash, which partitions do not keep"))
}

/// Why mtpc declines a full LTO module, if it does: passes after the
/// whole-program part of the LTO pipeline that need the whole program.
/// Virtual function elimination (the module's flag, from
/// `-fvirtual-function-elimination`) removes the vtable slots no call in the
/// module loads, which in a partition would be the slots no call in that
/// partition loads; what other plugins add at the end of the LTO pipeline
/// (`other_plugins` callbacks) may need the whole program too.
pub fn full_lto_reason(virtual_function_elimination: bool, other_plugins: usize) -> Option<String> {
    if virtual_function_elimination {
        return Some(
            "virtual function elimination (-fvirtual-function-elimination) must see every virtual call of the program, \
             and a partition sees its own"
                .into(),
        );
    }
    (other_plugins > 0).then(|| {
        format!(
            "{other_plugins} callback(s) of other plugins add passes at the end of the full LTO pipeline, \
             which may need the whole program"
        )
    })
}

/// Intrinsics whose code generation writes one table or marker for the
/// whole object from what every function of the module does: each
/// partition would write its own, from its own functions.
const WHOLE_OBJECT_INTRINSICS: [(&str, &str); 4] = [
    ("llvm.init.trampoline", "a trampoline (llvm.init.trampoline): the object asks for an executable stack if any function makes one"),
    ("llvm.experimental.stackmap", "stack maps: the object lists every function's in one table (.llvm_stackmaps)"),
    ("llvm.experimental.patchpoint.", "patchpoints: the object lists every function's in one stack map table (.llvm_stackmaps)"),
    ("llvm.experimental.gc.statepoint.", "statepoints: the object lists every function's in one stack map table (.llvm_stackmaps)"),
];

/// Why mtpc declines to split a module for what it holds, if it does:
/// what the code generator writes once per object from all its functions
/// together, which partitions, each seeing its own, would write apart and
/// differently (the merge cannot tell what the whole module would have
/// written); and a local function or alias named like a library function
/// (`static void *memcpy(...)`: `ModuleFacts::library_named_locals`). In
/// the whole module's object such a local takes the calls the code
/// generator (a structure's copy calls `memcpy`) and the optimizer
/// (`printf("hi\n")` becomes `puts("hi")`, unless the local `puts` has
/// another prototype) make by its name, wherever they are. A partition
/// that does not hold it would call the library's function instead, and
/// one that holds it renamed (promoted, `NAME.mtpc.TAG`) as well. The
/// names are those LLVM's TargetLibraryInfo knows, which the optimizer
/// creates calls to: a local `log` or `write` declines too, whether or not
/// anything calls it by name; the code generator's runtime calls it does
/// not list (`__stack_chk_fail`, `__udivti3`) are names a program may not
/// define.
pub fn module_reason(facts: &ModuleFacts) -> Option<String> {
    if facts.split_stack_functions {
        return Some(
            "it has split-stack functions (-fsplit-stack): the object is marked as also holding functions \
             without split stacks (.note.GNU-no-split-stack) from what every function needs"
                .into(),
        );
    }
    if facts.gc_functions {
        return Some(
            "it has functions with a garbage collector strategy (gc \"NAME\"), whose tables (Erlang's .note.gc, \
             OCaml's frame table) the code generator writes once per object"
                .into(),
        );
    }
    if let Some(&local) = facts.library_named_locals.first() {
        let name = facts.globals[local as usize].display_name();
        return Some(format!(
            "it defines a local {name}, named like a library function: the code generator and the optimizer call library \
             functions by name (a structure's copy calls memcpy), and in the whole module's object such calls take the \
             local; a partition without it would call the library's"
        ));
    }
    facts.globals.iter().filter(|g| g.is_function() && !g.is_definition).find_map(|g| {
        WHOLE_OBJECT_INTRINSICS
            .iter()
            .find(|(name, _)| if name.ends_with('.') { g.name.starts_with(name) } else { g.name == *name })
            .map(|(_, what)| format!("it uses {what}, and each partition would write its own"))
    })
}

/// Why mtpc declines to split a module whose partitions would print
/// assembly text (rather than each write an object the host is handed
/// transcribed), for LLVM `major`, if it does: what the major's printer
/// writes in a form its own assembler cannot read, so that the merged text
/// would fail its check after every partition was compiled, and the module
/// would then compile whole, slower than stock. LLVM 16 prints a section
/// linked to another's (`!associated`) in a group that is no COMDAT (a
/// `nodeduplicate` one) as `GROUP,LINKED-TO`, and its parser reads the
/// operand after a group as the group's linkage ("Linkage must be
/// 'comdat'"); from LLVM 17 the linked-to symbol comes first, which reads.
pub fn printed_text_reason(facts: &ModuleFacts, major: u32) -> Option<String> {
    (major < 17 && facts.has_linked_sections_in_plain_groups()).then(|| {
        "it has sections linked to another's in section groups that are no COMDAT (nodeduplicate: ASan's descriptors \
         in a ThinLTO backend with -fsanitize-address-globals-dead-stripping), which LLVM 16 prints in a form its \
         assembler cannot read"
            .into()
    })
}

/// Why mtpc declines a module's split plan, if it does: a local the plan
/// promotes to a strong symbol (hidden, external: `NAME.mtpc.TAG`) needs a
/// name no other object of the program defines, and `TAG` tells modules
/// apart by their source file, content and external definitions
/// (`symbol_rules::module_tag`). Two objects compiled from one source with
/// the same flags have the same tag; linked together, they define each
/// promoted name twice, unless each defines a strong external symbol, which
/// the linker would refuse twice anyway (so such objects never meet). A
/// module without one (only local functions, run by a constructor, say) is
/// compiled whole. (Promoted copies are `linkonce_odr`: the same code, kept
/// once.)
pub fn plan_reason(facts: &ModuleFacts, plan: &SymbolPlan) -> Option<String> {
    let strong_definition = facts.globals.iter().any(|g| g.is_definition && g.linkage == Linkage::External);
    if strong_definition {
        return None;
    }
    let promoted = facts.globals.iter().zip(&plan.promotions).find(|(g, promotion)| {
        g.linkage.is_local() && promotion.as_ref().is_some_and(|p| p.linkage == Linkage::External)
    })?;
    Some(format!(
        "it defines no external symbol, so the name of the local {} that other partitions use would not be unique \
         to this object (another object compiled from the same source would define it too)",
        promoted.0.display_name()
    ))
}

/// Type units (clang's `-fdebug-types-section` passes `-mllvm
/// -generate-type-units`) with DWARF 5's name index (`-gpubnames`), which
/// from LLVM 17 lists each type unit by its offset: a partition's index
/// would list units the merge drops for another part's copy.
fn type_units_with_name_index(facts: &HostFacts) -> bool {
    has_arg(facts, |a| a == "-generate-type-units") && has_arg(facts, |a| a == "-gpubnames")
}

fn has_arg(facts: &HostFacts, test: impl Fn(&str) -> bool) -> bool {
    facts.command_line.iter().any(|a| test(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x86_elf() -> HostFacts {
        HostFacts {
            triple: "x86_64-pc-linux-gnu".into(),
            object_format_elf: true,
            arch_x86_64: true,
            integrated_assembler: true,
            command_line: vec!["-cc1".into(), "-emit-obj".into(), "-O2".into()],
            ..Default::default()
        }
    }

    fn automatic(facts: &HostFacts) -> Option<String> {
        reason(facts, Request::Automatic, HostProgram::Other)
    }

    #[test]
    fn modules_whose_object_wide_markers_depend_on_every_function_decline() {
        use crate::test_support::{func, internal, module};
        let declared = |name: &str| {
            let mut f = func(name, 0, &[]);
            f.is_definition = false;
            f
        };
        let plain = module(vec![func("f", 10, &[]), func("g", 10, &[]), declared("llvm.memcpy.p0.p0.i64")]);
        assert_eq!(module_reason(&plain), None);
        let mut split_stack = plain.clone();
        split_stack.split_stack_functions = true;
        assert!(module_reason(&split_stack).is_some_and(|why| why.contains(".note.GNU-no-split-stack")));
        let mut gc = plain.clone();
        gc.gc_functions = true;
        assert!(module_reason(&gc).is_some_and(|why| why.contains("garbage collector")));
        for (intrinsic, expected) in [
            ("llvm.init.trampoline", "executable stack"),
            ("llvm.experimental.stackmap", ".llvm_stackmaps"),
            ("llvm.experimental.patchpoint.i64", ".llvm_stackmaps"),
            ("llvm.experimental.gc.statepoint.p0", ".llvm_stackmaps"),
        ] {
            let facts = module(vec![func("f", 10, &[]), func("g", 10, &[]), declared(intrinsic)]);
            assert!(module_reason(&facts).is_some_and(|why| why.contains(expected)), "{intrinsic}");
        }
        // A local named like a library function (the program's own memcpy).
        let mut own_memcpy = module(vec![internal(func("memcpy", 50, &[])), func("f", 10, &[(0, crate::module_facts::RefKind::Call)])]);
        assert_eq!(module_reason(&own_memcpy), None);
        own_memcpy.library_named_locals = vec![0];
        assert!(module_reason(&own_memcpy).is_some_and(|why| why.contains("local memcpy, named like a library function")));
        // A function of the module that merely starts alike is no intrinsic.
        assert_eq!(module_reason(&module(vec![func("f", 10, &[]), func("llvm.init.trampolines", 10, &[])])), None);
    }

    #[test]
    fn linked_sections_in_plain_groups_decline_where_llvm_16_prints_text() {
        use crate::test_support::{func, module, var};
        // A descriptor in the group of the string it is linked to.
        let mut string = var("str", 8, &[]);
        string.comdat = Some(0);
        let mut descriptor = var("desc", 64, &[(2, crate::module_facts::RefKind::Ref)]);
        descriptor.comdat = Some(0);
        descriptor.associated = Some(2);
        let mut facts = module(vec![func("f", 10, &[]), func("g", 10, &[]), string, descriptor]);
        facts.comdat_count = 1;
        // A group the linker may discard: LLVM 16 prints it as it reads.
        assert_eq!(printed_text_reason(&facts, 16), None);
        facts.comdat_nodeduplicate = vec![true];
        assert!(printed_text_reason(&facts, 16).is_some_and(|why| why.contains("nodeduplicate") && why.contains("LLVM 16")));
        // From LLVM 17 the printer writes what its assembler reads.
        assert_eq!(printed_text_reason(&facts, 19), None);
        assert_eq!(printed_text_reason(&facts, 22), None);
    }

    #[test]
    fn a_plan_promoting_a_local_of_a_module_without_external_definitions_declines() {
        use crate::module_facts::RefKind::Call;
        use crate::partition_plan::PartitionPlan;
        use crate::test_support::{func, internal, module};
        // counter and its bump (local, used from both partitions: promoted
        // to a strong hidden symbol), called by init and report.
        let plan_of = |facts: &ModuleFacts| {
            let owner = vec![Some(0), Some(0), Some(1)];
            let plan = PartitionPlan { partitions: 2, owner, cost: vec![0, 0], planned: vec![0, 0], largest_unit: None };
            crate::symbol_rules::decide(facts, &plan)
        };
        let locals = module(vec![internal(func("bump", 500, &[])), internal(func("init", 5, &[(0, Call)])), internal(func("report", 5, &[(0, Call)]))]);
        assert!(plan_reason(&locals, &plan_of(&locals)).is_some_and(|why| why.contains("bump") && why.contains("no external symbol")));
        // The same with report external: its name makes the tag unique.
        let mut named = locals.clone();
        named.globals[2].linkage = Linkage::External;
        assert_eq!(plan_reason(&named, &plan_of(&named)), None);
        // Only a weak definition: two objects may define it; no help.
        let mut weak = locals.clone();
        weak.globals[2].linkage = Linkage::WeakAny;
        assert!(plan_reason(&weak, &plan_of(&weak)).is_some());
    }

    #[test]
    fn a_plain_x86_elf_compile_is_split() {
        assert_eq!(automatic(&x86_elf()), None);
        assert_eq!(reason(&x86_elf(), Request::Explicit, HostProgram::Opt), None);
    }

    #[test]
    fn other_object_formats_and_targets_decline() {
        let mac = HostFacts { triple: "x86_64-apple-macosx11.0.0".into(), object_format_elf: false, ..x86_elf() };
        assert!(automatic(&mac).unwrap().contains("x86_64-apple-macosx11.0.0"));
        let i386 = HostFacts { triple: "i386-pc-linux-gnu".into(), arch_x86_64: false, ..x86_elf() };
        assert!(automatic(&i386).unwrap().contains("not x86-64 ELF"));
        let arm = HostFacts { triple: "aarch64-linux-gnu".into(), arch_x86_64: false, ..x86_elf() };
        assert!(automatic(&arm).unwrap().contains("not x86-64 ELF"));
        assert!(reason(&arm, Request::Explicit, HostProgram::Other).is_some());
    }

    #[test]
    fn ir_output_declines_in_automatic_mode_only() {
        let mut f = x86_elf();
        f.command_line = vec!["-cc1".into(), "-emit-llvm-bc".into()];
        assert!(automatic(&f).unwrap().contains("-emit-llvm"));
        f.command_line = vec!["-cc1".into(), "-S".into(), "-emit-llvm".into()];
        assert!(automatic(&f).is_some());
        // -emit-llvm-uselists is not an output kind.
        f.command_line = vec!["-cc1".into(), "-emit-obj".into(), "-emit-llvm-uselists".into()];
        assert_eq!(automatic(&f), None);
        let opt = HostFacts { command_line: vec![], ..x86_elf() };
        assert!(reason(&opt, Request::Automatic, HostProgram::Opt).unwrap().contains("opt writes LLVM IR"));
        assert_eq!(reason(&opt, Request::Explicit, HostProgram::Opt), None);
    }

    #[test]
    fn profiles_applied_by_name_leave_the_optimization_whole() {
        for pgo in [PgoAction::IrInstrument, PgoAction::IrUse, PgoAction::SampleUse] {
            let facts = HostFacts { pgo, ..x86_elf() };
            assert_eq!(automatic(&facts), None, "{pgo:?}: the code generation may be split");
            assert!(optimization_reason(&facts).is_some_and(|why| why.contains("profile")), "{pgo:?}");
        }
        for cs_pgo in [CsPgoAction::Instrument, CsPgoAction::Use] {
            let facts = HostFacts { cs_pgo, ..x86_elf() };
            assert!(optimization_reason(&facts).is_some_and(|why| why.contains("context-sensitive profile")), "{cs_pgo:?}");
        }
        assert_eq!(optimization_reason(&x86_elf()), None);
        // Pseudo probes: the object's descriptors would be written by every
        // partition; nothing is split.
        let probes = HostFacts { pgo: PgoAction::SampleUse, pseudo_probes: true, ..x86_elf() };
        assert!(automatic(&probes).unwrap().contains(".pseudo_probe_desc"));
        // Hot and cold data sections, from every function's accesses.
        let mut data = HostFacts { pgo: PgoAction::IrUse, ..x86_elf() };
        data.command_line.push("-fpartition-static-data-sections".into());
        assert!(automatic(&data).unwrap().contains("-fpartition-static-data-sections"));
        // A reason to leave the whole compile to the host comes first.
        let both = HostFacts { pgo: PgoAction::IrUse, stack_usage: true, ..x86_elf() };
        assert!(automatic(&both).unwrap().contains("-fstack-usage"));
    }

    #[test]
    fn split_dwarf_stack_usage_external_assembler_and_memory_profiling_decline() {
        assert!(automatic(&HostFacts { split_dwarf: true, ..x86_elf() }).unwrap().contains("-gsplit-dwarf"));
        assert!(automatic(&HostFacts { stack_usage: true, ..x86_elf() }).unwrap().contains("-fstack-usage"));
        assert!(automatic(&HostFacts { integrated_assembler: false, ..x86_elf() }).unwrap().contains("-fno-integrated-as"));
        let mut f = x86_elf();
        f.command_line.push("-fmemory-profile=/tmp/p".into());
        assert!(automatic(&f).unwrap().contains("-fmemory-profile"));
    }

    #[test]
    fn type_units_with_a_name_index_decline_from_llvm_17() {
        let with = |args: &[&str]| {
            let mut f = x86_elf();
            f.command_line.extend(args.iter().map(|a| a.to_string()));
            automatic(&f)
        };
        let both = with(&["-mllvm", "-generate-type-units", "-gpubnames"]);
        assert_eq!(both.is_some(), crate::ir::llvm_version::MAJOR >= 17, "{both:?}");
        if let Some(why) = both {
            assert!(why.contains("-gpubnames") && why.contains("-fdebug-types-section"), "{why}");
        }
        // Either alone splits.
        assert_eq!(with(&["-mllvm", "-generate-type-units"]), None);
        assert_eq!(with(&["-gpubnames"]), None);
    }

    #[test]
    fn full_lto_declines_virtual_function_elimination_and_other_plugins_last_passes() {
        assert!(full_lto_reason(true, 0).unwrap().contains("-fvirtual-function-elimination"));
        assert!(full_lto_reason(false, 1).unwrap().contains("1 callback(s) of other plugins"));
        assert_eq!(full_lto_reason(false, 0), None);
    }

    #[test]
    fn hwasan_declines_in_any_list_of_sanitizers() {
        let with = |arg: &str| HostFacts { command_line: vec!["-cc1".into(), arg.into()], ..x86_elf() };
        assert!(automatic(&with("-fsanitize=hwaddress")).unwrap().contains("-fsanitize=hwaddress"));
        assert!(automatic(&with("-fsanitize=undefined,kernel-hwaddress")).unwrap().contains("kernel-hwaddress"));
        assert_eq!(automatic(&with("-fsanitize=address,undefined")), None);
        assert_eq!(automatic(&with("-fsanitize-recover=hwaddress")), None, "not a sanitizer turned on");
    }

    #[test]
    fn pass_debugging_options_decline_even_when_asked_for() {
        let mut clang = x86_elf();
        clang.command_line.push("-fdebug-pass-manager".into());
        let why = reason(&clang, Request::Explicit, HostProgram::Other).expect("declined");
        assert!(why.contains("-fdebug-pass-manager"), "{why}");
        let mut clang = x86_elf();
        clang.command_line.push("-fverify-debuginfo-preserve".into());
        let why = reason(&clang, Request::Explicit, HostProgram::Other).expect("declined");
        assert!(why.contains("-fverify-debuginfo-preserve is on"), "{why}");
        // Without it, clang ignores where the check's findings would go.
        let mut export_only = x86_elf();
        export_only.command_line.push("-fverify-debuginfo-preserve-export=/tmp/lost.json".into());
        assert_eq!(automatic(&export_only), None);
        let f = HostFacts { debugging_option: Some("opt-bisect-limit".into()), ..x86_elf() };
        assert!(automatic(&f).unwrap().contains("-opt-bisect-limit"));
        assert!(reason(&f, Request::Explicit, HostProgram::Opt).unwrap().contains("-opt-bisect-limit is on"));
    }
}
