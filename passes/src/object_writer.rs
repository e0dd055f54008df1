//! Who writes the object after a split. The host's module then holds only
//! the merged text (module asm), which the host's code generation parses and
//! assembles on its thread, after everything else: a serial step as long as
//! the text. Where the host lets a plugin write its output instead (clang
//! 22's pre-codegen callback, which it calls with its target machine and
//! output stream just before code generation), mtpc assembles the text
//! once, on the compiler's thread (where the host would), as the check of
//! the text, and the callback writes those bytes: the host does not parse
//! the text again, and mtpc no longer checks it part by part. Where it
//! does not (clang 16), the parts of the text are assembled side by side on
//! the pool (their check), and the host is handed their objects transcribed
//! (`object_transcript`): it writes the object without parsing an
//! instruction. Elsewhere (LLVM 19, lld, opt, any clang output but an
//! object, split DWARF, whose second file the callback cannot write) the
//! parts of the text are checked side by side on the pool and the host
//! assembles it. `MTPC_WRITE_OBJECT=0` leaves the whole text to the host
//! everywhere. The mechanics are in `shim/host_object.cpp` and
//! `shim/object_frame.cpp`.

use crate::ir::host_pipeline::{HostFacts, HostOutput};
use crate::ir::PipelinePhase;

/// The environment variable that turns mtpc's writing of the object off.
pub const VARIABLE: &str = "MTPC_WRITE_OBJECT";

/// Who writes the object of a module that was split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectWriter {
    /// The host assembles the merged text.
    Host,
    /// The host assembles the parts' objects, transcribed.
    HostFromParts,
    /// mtpc assembles it and the host's pre-codegen callback writes it.
    Mtpc,
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
    // clang 16 reads a transcript; 19 is not tested here.
    let transcript = major == 16 && clang && phase == PipelinePhase::PerModule;
    // An object, and only one (-emit-obj: not -emit-codegen-only, which
    // writes nothing, nor -emit-llvm-only, which generates no code).
    let emits_object = facts.output() == HostOutput::Object && facts.command_line.iter().any(|a| a == "-emit-obj");
    let one_object = emits_object && !facts.split_dwarf;
    Ok(match (wanted && one_object, callback, transcript) {
        (true, true, _) => ObjectWriter::Mtpc,
        (true, false, true) => ObjectWriter::HostFromParts,
        _ => ObjectWriter::Host,
    })
}

/// [`choose`] for this build, with the process's environment.
pub fn choose_here(facts: &HostFacts, phase: PipelinePhase) -> Result<ObjectWriter, String> {
    let setting = std::env::var(VARIABLE).ok();
    choose(crate::ir::llvm_version::MAJOR, facts, phase, setting.as_deref())
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
    fn clang_22_objects_are_written_by_mtpc() {
        let facts = clang(&["-emit-obj", "-O2"]);
        assert_eq!(choose(22, &facts, PipelinePhase::PerModule, None), Ok(ObjectWriter::Mtpc));
        assert_eq!(choose(22, &facts, PipelinePhase::PerModule, Some("1")), Ok(ObjectWriter::Mtpc));
    }

    #[test]
    fn clang_16_objects_are_assembled_from_the_parts_objects() {
        let facts = clang(&["-emit-obj", "-O2"]);
        assert_eq!(choose(16, &facts, PipelinePhase::PerModule, None), Ok(ObjectWriter::HostFromParts));
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
    fn hosts_without_the_callback_assemble_the_text() {
        let facts = clang(&["-emit-obj"]);
        assert_eq!(choose(19, &facts, PipelinePhase::PerModule, None), Ok(ObjectWriter::Host));
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

    #[test]
    fn the_variable_turns_it_off_and_bad_values_are_named() {
        let facts = clang(&["-emit-obj"]);
        assert_eq!(choose(22, &facts, PipelinePhase::PerModule, Some("0")), Ok(ObjectWriter::Host));
        let e = choose(22, &facts, PipelinePhase::PerModule, Some("yes")).unwrap_err();
        assert!(e.contains("MTPC_WRITE_OBJECT=\"yes\" is not 0 or 1"), "{e}");
    }
}
