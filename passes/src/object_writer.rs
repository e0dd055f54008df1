//! Who writes the object after a split. The host's module then holds only
//! a text (module asm), which the host's code generation parses and
//! assembles on its thread, after everything else: a serial step as long as
//! the text. Where the host is clang (16, 19 or 22), each partition writes
//! an object instead of text, and the host is handed the objects transcribed
//! (`object_merge`, `object_transcript`): no text is printed, merged or
//! parsed, and the host writes the object without parsing an instruction.
//! Where a part's object could hold what a transcript cannot state, the
//! partitions print assembly; clang 22 then lets a plugin write its output
//! (its pre-codegen callback, which it calls with its target machine and
//! output stream just before code generation): mtpc assembles the merged
//! text once, on the compiler's thread (where the host would), as the check
//! of the text, and the callback writes those bytes, so the host does not
//! parse the text again. Elsewhere (clang 16 and 19 where the parts print
//! text, lld, opt, any clang output but an object, split DWARF, whose second
//! file the callback cannot write) the partitions print assembly, the parts of the merged text are checked side
//! by side on the pool and the host assembles it. `MTPC_WRITE_OBJECT=0`
//! leaves the whole text to the host everywhere. The mechanics are in
//! `shim/host_object.cpp` and `shim/object_frame.cpp`.

use std::collections::HashMap;

use crate::ir::host_pipeline::{HostFacts, HostOutput, PartOutput};
use crate::ir::PipelinePhase;
use crate::module_facts::{asm_may_assign_a_symbol, asm_may_write_a_property_note, ModuleFacts};
use crate::object_transcript::MAX_FILES_READ;

/// The environment variable that turns mtpc's writing of the object off.
pub const VARIABLE: &str = "MTPC_WRITE_OBJECT";

/// Who writes the object of a module that was split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectWriter {
    /// The host assembles the merged text.
    Host,
    /// The partitions write objects, which the host assembles transcribed;
    /// where they print text after all, mtpc assembles it (`text_by_mtpc`:
    /// the host has the callback) or the host does.
    HostFromParts { text_by_mtpc: bool },
    /// mtpc assembles the merged text and the host's pre-codegen callback
    /// writes it.
    Mtpc,
}

impl ObjectWriter {
    /// Who writes the object of a module whose partitions print text.
    pub fn for_text(self) -> ObjectWriter {
        match self {
            ObjectWriter::HostFromParts { text_by_mtpc: true } => ObjectWriter::Mtpc,
            ObjectWriter::HostFromParts { text_by_mtpc: false } => ObjectWriter::Host,
            other => other,
        }
    }
}

/// Who writes the object for a compile with `facts` in `phase`, by a build
/// of mtpc for LLVM `major`, with `setting` the value of [`VARIABLE`]; `Err`
/// names a value that is not `0` or `1` (the host then writes it).
pub fn choose(major: u32, facts: &HostFacts, phase: PipelinePhase, setting: Option<&str>) -> Result<ObjectWriter, String> {
    let wanted = match setting.map(str::trim) {
        None | Some("1") => true,
        Some("0") => false,
        Some(other) => return Err(format!("{VARIABLE}={other:?} is not 0 or 1; the host assembles the object")),
    };
    // clang records its -cc1 arguments in the target options; lld and opt
    // record none (and do not call the callback).
    let clang = facts.command_line.iter().any(|a| a == "-cc1");
    let callback = major >= 22 && clang && phase == PipelinePhase::PerModule;
    // Every major mtpc is built for (16, 19, 22) reads a transcript.
    let transcript = matches!(major, 16 | 19 | 22) && clang && phase == PipelinePhase::PerModule;
    // An object, and only one (-emit-obj: not -emit-codegen-only, which
    // writes nothing, nor -emit-llvm-only, which generates no code).
    let emits_object = facts.output() == HostOutput::Object && facts.command_line.iter().any(|a| a == "-emit-obj");
    let one_object = emits_object && !facts.split_dwarf;
    Ok(match (wanted && one_object, transcript) {
        (true, true) => ObjectWriter::HostFromParts { text_by_mtpc: callback },
        _ => ObjectWriter::Host,
    })
}

/// [`choose`] for this build, with the process's environment.
pub fn choose_here(facts: &HostFacts, phase: PipelinePhase) -> Result<ObjectWriter, String> {
    let setting = std::env::var(VARIABLE).ok();
    choose(crate::ir::llvm_version::MAJOR, facts, phase, setting.as_deref())
}

/// What of a module, read before it is split, tells what its partitions
/// can write.
pub struct ModuleOutline<'a> {
    pub facts: &'a ModuleFacts,
    /// Its module-level asm.
    pub module_asm: &'a str,
    /// It names libraries or options for the linker (`llvm.dependent-libraries`,
    /// `llvm.linker.options`; partition 0 writes them), in sections of
    /// LLVM's own types that a transcript does not state.
    pub linker_directives: bool,
}

/// Sections every part's object may have besides its groups' and, with
/// `-ffunction-sections` or `-fdata-sections`, its definitions' own: code,
/// data, constants, unwind tables, debug information.
const SECTIONS_PER_PART: usize = 40;

/// Sections a function or a COMDAT group may have in a part's object: its
/// code, its exception table, its constants or data (jump tables).
const SECTIONS_PER_DEFINITION: usize = 3;

/// What the partitions of a module write for `writer`: objects where the
/// host is handed them transcribed (clang), unless a part's object
/// could hold what a transcript cannot state; then (the reason in `Err`),
/// and for the other writers, assembly text.
pub fn part_output(writer: ObjectWriter, module: &ModuleOutline<'_>, command_line: &[String], partitions: u32) -> Result<PartOutput, String> {
    match writer {
        ObjectWriter::HostFromParts { .. } => match text_needed(module, command_line, partitions) {
            None => Ok(PartOutput::Object),
            Some(why) => Err(why),
        },
        ObjectWriter::Host | ObjectWriter::Mtpc => Ok(PartOutput::Assembly),
    }
}

/// Why a module's parts must print text rather than each write an object
/// the host is handed transcribed: what a part's object would hold that a
/// transcript cannot state (the `Err`s of `object_transcript::transcribe`
/// and `object_merge::decide`), foreseen from the module and clang's `-cc1`
/// `command_line`, before any part is compiled. A part's object that holds
/// something else of the kind makes the module compile whole.
fn text_needed(module: &ModuleOutline<'_>, command_line: &[String], partitions: u32) -> Option<String> {
    const LINKED_ORDER: &str = "sections linked to another section's (SHF_LINK_ORDER)";
    let facts = module.facts;
    // Sanitizers whose metadata is linked to what it describes: HWASan's
    // globals, KCFI's traps (ASan's globals only where the linker may drop
    // them, below).
    let linked_sanitizer = |a: &String| {
        crate::ir::host_pipeline::sanitizers(std::slice::from_ref(a)).any(|k| matches!(k, "hwaddress" | "kernel-hwaddress" | "kcfi"))
    };
    if let Some(arg) = command_line.iter().find(|a| linked_sanitizer(a)) {
        return Some(format!("{arg} gives the parts' objects {LINKED_ORDER}"));
    }
    let flags: [(&str, &str); 12] = [
        ("-fsanitize-address-globals-dead-stripping", LINKED_ORDER),
        ("-fsanitize-coverage", LINKED_ORDER),
        // SanitizerBinaryMetadata's tables (sanmd_covered, sanmd_atomics).
        ("-fexperimental-sanitize-metadata", LINKED_ORDER),
        ("-fxray-instrument", LINKED_ORDER),
        ("-fpatchable-function-entry=", LINKED_ORDER),
        ("-fstack-size-section", LINKED_ORDER),
        ("-fbasic-block-sections=", LINKED_ORDER),
        ("-fbasic-block-address-map", LINKED_ORDER),
        ("-fno-unique-section-names", "sections of one name kept apart (unique ids)"),
        ("-fsymbol-partition=", "symbol partitions (.llvm_sympart)"),
        // Sections of LLVM's own types, from LLVM 21 on.
        ("-fexperimental-call-graph-section", "a call graph section (.llvm.callgraph)"),
        ("-ffat-lto-objects", "the module's bitcode in a section (.llvm.lto)"),
    ];
    for (flag, what) in flags {
        if let Some(arg) = command_line.iter().find(|a| a.starts_with(flag)) {
            return Some(format!("{arg} gives the parts' objects {what}"));
        }
    }
    if module.linker_directives {
        return Some("the module names libraries or options for the linker, in sections of LLVM's own types that a transcript does not state".into());
    }
    if asm_may_assign_a_symbol(module.module_asm) {
        return Some("module-level assembly may assign a symbol, which a part's object can leave out".into());
    }
    if facts.inline_asm_assigns {
        return Some("inline assembly may assign a symbol, which a part's object can leave out".into());
    }
    if asm_may_write_a_property_note(module.module_asm) || facts.inline_asm_notes {
        return Some("assembly may write a GNU property note, which the host writes from the module's flags alone".into());
    }
    if facts.linked_order_functions {
        return Some(format!("a function's attributes give the parts' objects {LINKED_ORDER}"));
    }
    if let Some(g) = facts.globals.iter().find(|g| g.associated.is_some()) {
        return Some(format!("{} is linked to another global's section (!associated)", g.display_name()));
    }
    if let Some(why) = sections_kept_apart(facts) {
        return Some(why);
    }
    if let Some(g) = facts.globals.iter().find(|g| !g.name.is_empty() && crate::object_transcript::asm_name(g.name.as_bytes()).is_err()) {
        return Some(format!("the name {:?} cannot be quoted in a transcript", g.name));
    }
    let has = |flag: &str| command_line.iter().any(|a| a == flag);
    let own = |function: bool| facts.globals.iter().filter(|g| g.is_definition && g.comdat.is_none() && g.is_function() == function && (g.is_function() || g.is_variable())).count();
    let sections = SECTIONS_PER_PART * partitions as usize
        + SECTIONS_PER_DEFINITION * facts.comdat_count as usize
        + if has("-ffunction-sections") { SECTIONS_PER_DEFINITION * own(true) } else { 0 }
        + if has("-fdata-sections") { own(false) } else { 0 };
    (sections > MAX_FILES_READ).then(|| format!("the parts' objects may hold about {sections} sections, more than a transcript may read from files ({MAX_FILES_READ})"))
}

/// Why some globals' explicit section would be several sections of one name
/// in a part's object (`unique` ids), if it would: a member of `llvm.used`
/// in an explicit section is retained, in a section of its own; globals of
/// different kinds (code and data, constant and writable, thread-local or
/// not) in one explicit section get one each.
fn sections_kept_apart(facts: &ModuleFacts) -> Option<String> {
    let used = facts.globals.iter().filter(|g| g.name == "llvm.used").flat_map(|g| g.refs.iter().map(|&(r, _)| &facts.globals[r as usize]));
    if let Some(g) = used.into_iter().find(|g| g.section.is_some()) {
        return Some(format!("{} is retained (llvm.used) in an explicit section", g.display_name()));
    }
    let mut kinds: HashMap<&str, (bool, bool, bool)> = HashMap::new();
    for g in facts.globals.iter().filter(|g| g.is_definition && (g.is_function() || g.is_variable())) {
        let Some(section) = g.section.as_deref() else { continue };
        let kind = (g.is_function(), g.is_constant, g.thread_local);
        if *kinds.entry(section).or_insert(kind) != kind {
            return Some(format!("globals of different kinds share the explicit section {section}"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clang(args: &[&str]) -> HostFacts {
        let mut command_line = vec!["-cc1".to_string(), "-triple".into(), "x86_64-pc-linux-gnu".into()];
        command_line.extend(args.iter().map(|a| a.to_string()));
        HostFacts { command_line, ..HostFacts::default() }
    }

    #[test]
    fn clang_22_objects_are_assembled_from_the_parts_objects_or_the_text_by_mtpc() {
        let facts = clang(&["-emit-obj", "-O2"]);
        let from_parts = ObjectWriter::HostFromParts { text_by_mtpc: true };
        assert_eq!(choose(22, &facts, PipelinePhase::PerModule, None), Ok(from_parts));
        assert_eq!(choose(22, &facts, PipelinePhase::PerModule, Some("1")), Ok(from_parts));
        // Where the partitions print text, mtpc assembles it for the callback.
        assert_eq!(from_parts.for_text(), ObjectWriter::Mtpc);
    }

    #[test]
    fn clang_16_and_19_objects_are_assembled_from_the_parts_objects() {
        let facts = clang(&["-emit-obj", "-O2"]);
        let from_parts = ObjectWriter::HostFromParts { text_by_mtpc: false };
        assert_eq!(choose(16, &facts, PipelinePhase::PerModule, None), Ok(from_parts));
        assert_eq!(choose(19, &facts, PipelinePhase::PerModule, None), Ok(from_parts));
        // clang 16 and 19 have no callback: the host assembles a text.
        assert_eq!(from_parts.for_text(), ObjectWriter::Host);
        assert_eq!(choose(19, &facts, PipelinePhase::PerModule, Some("0")), Ok(ObjectWriter::Host));
        assert_eq!(choose(16, &facts, PipelinePhase::PerModule, Some("0")), Ok(ObjectWriter::Host));
        for output in ["-S", "-emit-codegen-only", "-emit-llvm-only"] {
            assert_eq!(choose(16, &clang(&[output]), PipelinePhase::PerModule, None), Ok(ObjectWriter::Host), "{output}");
        }
        let split = HostFacts { split_dwarf: true, ..clang(&["-emit-obj"]) };
        assert_eq!(choose(16, &split, PipelinePhase::PerModule, None), Ok(ObjectWriter::Host));
        // lld (ThinLTO backends) and opt record no -cc1 command line.
        assert_eq!(choose(16, &HostFacts::default(), PipelinePhase::ThinLtoPostLink, None), Ok(ObjectWriter::Host));
        assert_eq!(choose(16, &facts, PipelinePhase::ThinLtoPostLink, None), Ok(ObjectWriter::Host));
    }

    #[test]
    fn hosts_other_than_clang_assemble_the_text() {
        let facts = clang(&["-emit-obj"]);
        // lld records no command line, and calls no callback.
        let lld = HostFacts::default();
        assert_eq!(choose(22, &lld, PipelinePhase::ThinLtoPostLink, None), Ok(ObjectWriter::Host));
        assert_eq!(choose(22, &lld, PipelinePhase::PerModule, None), Ok(ObjectWriter::Host));
        // A ThinLTO backend in clang (-fthinlto-index) is left to the host too.
        assert_eq!(choose(22, &facts, PipelinePhase::ThinLtoPostLink, None), Ok(ObjectWriter::Host));
    }

    #[test]
    fn other_outputs_and_split_dwarf_are_the_hosts() {
        for output in ["-S", "-emit-codegen-only", "-emit-llvm-only"] {
            assert_eq!(choose(22, &clang(&[output]), PipelinePhase::PerModule, None), Ok(ObjectWriter::Host), "{output}");
        }
        let split = HostFacts { split_dwarf: true, ..clang(&["-emit-obj"]) };
        assert_eq!(choose(22, &split, PipelinePhase::PerModule, None), Ok(ObjectWriter::Host));
    }

    fn outline_of(facts: &ModuleFacts) -> ModuleOutline<'_> {
        ModuleOutline { facts, module_asm: "", linker_directives: false }
    }

    /// Why the parts of `facts` compiled with `args` print text, if they do.
    fn text_needed_for(facts: &ModuleFacts, args: &[&str]) -> Option<String> {
        let command_line: Vec<String> = ["-cc1", "-emit-obj"].iter().chain(args).map(|a| a.to_string()).collect();
        part_output(ObjectWriter::HostFromParts { text_by_mtpc: false }, &outline_of(facts), &command_line, 2).err()
    }

    #[test]
    fn parts_write_objects_where_the_host_is_handed_them_transcribed() {
        use crate::test_support::{func, module, var};
        let facts = module(vec![func("f", 10, &[]), var("v", 8, &[])]);
        for text_by_mtpc in [false, true] {
            assert_eq!(part_output(ObjectWriter::HostFromParts { text_by_mtpc }, &outline_of(&facts), &[], 2), Ok(PartOutput::Object));
        }
        for writer in [ObjectWriter::Host, ObjectWriter::Mtpc] {
            assert_eq!(part_output(writer, &outline_of(&facts), &[], 2), Ok(PartOutput::Assembly));
        }
        // ASan's and UBSan's metadata is not linked to their globals: objects.
        assert_eq!(text_needed_for(&facts, &["-fsanitize=address,undefined", "-ffunction-sections"]), None);
    }

    #[test]
    fn what_a_transcript_could_not_state_is_foreseen() {
        use crate::module_facts::RefKind;
        use crate::test_support::{func, module, var};
        let plain = module(vec![func("f", 10, &[]), var("v", 8, &[])]);
        for (args, expected) in [
            (&["-fsanitize=address,hwaddress"][..], "SHF_LINK_ORDER"),
            (&["-fsanitize=kcfi"], "SHF_LINK_ORDER"),
            (&["-fsanitize-coverage-type=3"], "SHF_LINK_ORDER"),
            (&["-fexperimental-sanitize-metadata=covered"], "SHF_LINK_ORDER"),
            (&["-fxray-instrument"], "SHF_LINK_ORDER"),
            (&["-fstack-size-section"], "SHF_LINK_ORDER"),
            (&["-ffunction-sections", "-fno-unique-section-names"], "unique ids"),
            (&["-fexperimental-call-graph-section"], ".llvm.callgraph"),
            (&["-flto=thin", "-ffat-lto-objects"], ".llvm.lto"),
        ] {
            let why = text_needed_for(&plain, args).unwrap_or_else(|| panic!("{args:?}"));
            assert!(why.contains(expected) && why.contains(args.last().unwrap()), "{args:?}: {why}");
        }
        let with = |change: &dyn Fn(&mut ModuleFacts)| {
            let mut facts = module(vec![func("f", 10, &[]), var("v", 8, &[]), var("w", 8, &[])]);
            change(&mut facts);
            text_needed_for(&facts, &[]).unwrap_or_else(|| panic!("not foreseen"))
        };
        assert!(with(&|f| f.inline_asm_assigns = true).contains("inline assembly"));
        assert!(with(&|f| f.inline_asm_notes = true).contains("GNU property note"));
        assert!(with(&|f| f.linked_order_functions = true).contains("attributes"));
        assert!(with(&|f| f.globals[1].associated = Some(0)).contains("!associated"));
        assert!(with(&|f| f.globals[1].name = "a\"b".into()).contains("cannot be quoted"));
        // A retained global in an explicit section; globals of two kinds in one.
        let retained = with(&|f| {
            f.globals[1].section = Some("keep".into());
            f.globals[2].name = "llvm.used".into();
            f.globals[2].refs = vec![(1, RefKind::Ref)];
        });
        assert!(retained.contains("retained"), "{retained}");
        let mixed = with(&|f| {
            f.globals[1].section = Some("mine".into());
            f.globals[2].section = Some("mine".into());
            f.globals[2].is_constant = true;
        });
        assert!(mixed.contains("explicit section mine"), "{mixed}");
        // Too many sections for a transcript to read.
        assert!(with(&|f| f.comdat_count = 20_000).contains("sections"));
        let outline = ModuleOutline { facts: &plain, module_asm: ".set a, b", linker_directives: false };
        assert!(text_needed(&outline, &[], 2).unwrap().contains("module-level assembly"));
        let outline = ModuleOutline { facts: &plain, module_asm: "", linker_directives: true };
        assert!(text_needed(&outline, &[], 2).unwrap().contains("linker"));
    }

    #[test]
    fn the_variable_turns_it_off_and_bad_values_are_named() {
        let facts = clang(&["-emit-obj"]);
        assert_eq!(choose(22, &facts, PipelinePhase::PerModule, Some("0")), Ok(ObjectWriter::Host));
        let e = choose(22, &facts, PipelinePhase::PerModule, Some("yes")).unwrap_err();
        assert!(e.contains("MTPC_WRITE_OBJECT=\"yes\" is not 0 or 1"), "{e}");
    }
}
