//! The safe layer over the host's pass pipeline (`shim/host_pipeline.cpp`,
//! `shim/partition_compile.cpp`, `shim/diagnostics.cpp`,
//! `shim/assemble.cpp`, `shim/host_object.cpp`): registering `mtpc-parallel` with a host
//! PassBuilder, the entry points the shim calls back, and what a run of the
//! pass builds and compiles partitions with.
//!
//! Lifetimes follow the host's: a [`PassRun`] lives for one run of the pass
//! on the host's thread, and the [`PartitionEnvironment`] it gives may not
//! outlive it. [`PartitionKit`]s are built from the environment on that
//! thread and then compiled on worker threads; they hold the pipeline's
//! passes, which may point to objects of the host that live as long as the
//! run, so every kit must be compiled or dropped before the pass returns
//! (`crate::worker::Pool::run` waits for all its jobs).

use std::ffi::c_void;
use std::marker::PhantomData;
use std::os::raw::c_char;

use llvm_sys::prelude::LLVMModuleRef;

use super::ffi::*;
use super::module::ShimBuffer;
use super::{report_fatal_error, ModuleRef, OptLevel, OwnedContext, PipelinePhase};

/// The text at `data` (`len` bytes; invalid UTF-8 replaced).
///
/// # Safety
/// `data` must hold `len` bytes for as long as the result is used.
unsafe fn text<'a>(data: *const c_char, len: usize) -> std::borrow::Cow<'a, str> {
    // SAFETY: the caller's promise.
    String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) })
}

/// Registers mtpc with one host PassBuilder (the plugin's registrar calls
/// this): `mtpc-parallel` (automatic mode at the extension points, and
/// pipeline text) and `mtpc-split` (pipeline text), through the shim, which
/// calls back [`crate::host::HOOKS`].
///
/// # Safety
/// `pass_builder` must be the `llvm::PassBuilder*` the host hands to a
/// plugin's registrar.
pub unsafe fn register(pass_builder: *mut c_void) {
    crate::logging::init();
    // SAFETY: the caller's promise.
    unsafe { mtpc_host_pipeline_register(pass_builder) }
}

/// The parameters of one `mtpc-parallel` pass, as the shim keeps them
/// (`MtpcParallelRequest` in `shim/host_pipeline.cpp`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParallelRequest {
    /// 1: from an extension point; the environment adjusts it.
    pub automatic: i32,
    pub level: i32,
    pub phase: i32,
    /// 0: one per thread.
    pub partitions: u32,
    /// 0: the pool's size.
    pub threads: u64,
    pub min_size: u64,
    /// 1: the cost model decides (no partition count or minimum size given).
    pub cost_model: i32,
    /// 1: the host's pipeline has optimized the module (mtpc's pass at the
    /// end of it, see [`PassRun::want_code_generation_split`]); its
    /// partitions only generate code.
    pub after_optimization: i32,
}

impl ParallelRequest {
    pub fn level(&self) -> OptLevel {
        match self.level {
            0 => OptLevel::O0,
            1 => OptLevel::O1,
            3 => OptLevel::O3,
            4 => OptLevel::Os,
            5 => OptLevel::Oz,
            _ => OptLevel::O2,
        }
    }

    pub fn phase(&self) -> PipelinePhase {
        PipelinePhase::from_number(self.phase)
    }
}

/// What each partition runs before its code generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartitionPipeline {
    /// The host's pipeline for the level and phase, from mtpc's extension
    /// point on.
    Host(OptLevel, PipelinePhase),
    /// Only what of the host's last passes reports (annotation remarks):
    /// the host's pipeline optimized the module before the split.
    CodeGenerationOnly,
}

impl PartitionPipeline {
    /// The shim's level and phase numbers (`mtpc_run_environment`; 3: code generation only).
    fn numbers(self) -> (i32, i32) {
        match self {
            PartitionPipeline::Host(level, phase) => (level as i32, phase.number()),
            PartitionPipeline::CodeGenerationOnly => (OptLevel::O2 as i32, 3),
        }
    }
}

/// How the Rust side answers the shim: the functions behind
/// `mtpc_rs_run_parallel`, `mtpc_rs_parse_parallel`, `mtpc_rs_parse_split`
/// and `mtpc_rs_run_split` (`crate::host`).
pub struct Hooks {
    pub run: fn(&ParallelRequest, &mut ModuleRef<'_>, &PassRun<'_>) -> bool,
    pub parse: fn(&str) -> ParseOutcome<ParallelRequest>,
    pub parse_split: fn(&str) -> ParseOutcome<crate::options::SplitOptions>,
    /// Runs the split that the pipeline text (parsed before) asks for.
    pub run_split: fn(&str, &mut ModuleRef<'_>) -> Preserved,
}

/// What pipeline text is to one of mtpc's passes.
pub enum ParseOutcome<T> {
    NotOurs,
    Parsed(T),
    /// Bad parameters; already reported.
    Invalid,
}

/// Which of the module's analyses a pass preserved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preserved {
    All,
    None,
}

const HOOKS: Hooks = crate::host::HOOKS;

#[no_mangle]
extern "C" fn mtpc_rs_run_parallel(request: *const ParallelRequest, module: LLVMModuleRef, run: *mut c_void) -> bool {
    // SAFETY: the shim's pass hands its request, the module it runs on and
    // its run for the duration of this call.
    let (request, run) = unsafe { (&*request, PassRun { raw: run, _run: PhantomData }) };
    // No panic may unwind into LLVM; the hook catches its own, this is the last guard.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: (see above) the module is the pass's alone during the call.
        unsafe { ModuleRef::with_raw(module, |module| (HOOKS.run)(request, module, &run)) }
    }))
    .unwrap_or(false)
}

#[no_mangle]
extern "C" fn mtpc_rs_parse_parallel(text: *const c_char, len: usize, request: *mut ParallelRequest) -> i32 {
    // SAFETY: the shim hands the pipeline element's text and a request to fill.
    let text = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) };
    let Ok(text) = std::str::from_utf8(text) else { return 0 };
    match std::panic::catch_unwind(|| (HOOKS.parse)(text)) {
        Ok(ParseOutcome::NotOurs) => 0,
        Ok(ParseOutcome::Parsed(r)) => {
            // SAFETY: the shim's request, ours to fill.
            unsafe { *request = r };
            1
        }
        Ok(ParseOutcome::Invalid) | Err(_) => 2,
    }
}

#[no_mangle]
extern "C" fn mtpc_rs_parse_split(text: *const c_char, len: usize) -> i32 {
    // SAFETY: the shim hands the pipeline element's text.
    let text = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) };
    let Ok(text) = std::str::from_utf8(text) else { return 0 };
    match std::panic::catch_unwind(|| (HOOKS.parse_split)(text)) {
        Ok(ParseOutcome::NotOurs) => 0,
        Ok(ParseOutcome::Parsed(_)) => 1,
        Ok(ParseOutcome::Invalid) | Err(_) => 2,
    }
}

/// Runs `mtpc-split` as pipeline text `text` (accepted by
/// `mtpc_rs_parse_split`) asks; true if every analysis is preserved.
#[no_mangle]
extern "C" fn mtpc_rs_run_split(data: *const c_char, len: usize, module: LLVMModuleRef) -> bool {
    // SAFETY: the shim's pass hands its text for the duration of this call.
    let element = unsafe { text(data, len) };
    // The hook catches its own panics (and ends the process on errors, as
    // LLVM's tools do); this is the last guard.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the module the shim's pass runs on, its alone during the call.
        unsafe { ModuleRef::with_raw(module, |module| (HOOKS.run_split)(&element, module)) }
    }))
    .map_or_else(|_| report_fatal_error("mtpc-split: internal error"), |p| p == Preserved::All)
}

/// One run of the `mtpc-parallel` pass, on the host's thread.
pub struct PassRun<'r> {
    raw: *mut c_void,
    _run: PhantomData<&'r ()>,
}

impl<'r> PassRun<'r> {
    /// The host's code-generation and pipeline settings; `None` if the host
    /// has no target machine.
    pub fn host_settings(&self) -> Option<HostSettings> {
        // SAFETY: the run's PassBuilder is alive; the shim returns an owned copy or null.
        let raw = unsafe { mtpc_run_host_settings(self.raw) };
        (!raw.is_null()).then_some(HostSettings { raw })
    }

    /// The module's identifier in the host (clang: the main file's name).
    pub fn module_identifier(&self) -> String {
        let mut len = 0;
        // SAFETY: the string lives as long as the module.
        unsafe { text(mtpc_run_module_identifier(self.raw, &mut len), len).into_owned() }
    }

    /// What every partition of this module is built with: `settings`, the
    /// host's library info and alias analysis, which remarks it wants (and
    /// as the host's `output` will word them), the `pipeline` built from the
    /// host's builder, and the module's source `files`. Its parts' code generators write `parts`:
    /// assembly text, or objects (their debug sections whole, whatever the
    /// host compresses). With `unwind_tables` (the module's functions need
    /// them: `ModuleRef::needs_unwind_tables`), each part's code generator
    /// puts its call frame information in `.eh_frame`, as the module's
    /// would, whatever the part's own functions need.
    pub fn environment(
        &self,
        settings: &HostSettings,
        files: &DebugFiles,
        pipeline: PartitionPipeline,
        (output, parts): (HostOutput, PartOutput),
        unwind_tables: bool,
    ) -> PartitionEnvironment<'r> {
        let (host_writes_object, parts_write_objects) = (output == HostOutput::Object, parts == PartOutput::Object);
        let (level, phase) = pipeline.numbers();
        // SAFETY: the shim copies the settings and what it reads of the host,
        // and shares the files (immutable).
        let raw = unsafe {
            mtpc_run_environment(
                self.raw,
                settings.raw,
                files.raw,
                level,
                phase,
                host_writes_object,
                parts_write_objects,
                unwind_tables,
            )
        };
        PartitionEnvironment { raw, _run: PhantomData }
    }

    /// Optimizes the module whole, in place, with the host's default pipeline
    /// for `level` and `phase`.
    pub fn optimize_whole(&self, level: OptLevel, phase: PipelinePhase) {
        // SAFETY: on the host's thread, within the run; the module is the run's.
        unsafe { mtpc_run_optimize_whole(self.raw, level as i32, phase.number()) }
    }

    /// Full LTO: lowers type tests on the whole module before it is split
    /// (CFI's jump tables and checks, what whole-program devirtualization
    /// left), with the host's own passes of the rest of the LTO pipeline, so
    /// that they see the link's summary; a no-op in other phases, and the
    /// second time.
    pub fn lower_type_tests_whole(&self) {
        // SAFETY: on the host's thread, within the run; the module is the run's.
        unsafe { mtpc_run_lower_type_tests_whole(self.raw) }
    }

    /// Full LTO: how many FullLinkTimeOptimizationLast callbacks other
    /// plugins registered (their passes come after the whole-program part);
    /// 0 in other phases.
    pub fn foreign_full_lto_last_callbacks(&self) -> usize {
        // SAFETY: on the host's thread, within the run.
        unsafe { mtpc_run_foreign_full_lto_last_callbacks(self.raw) }
    }

    /// Asks for the module's code generation to be split once the host's
    /// pipeline has optimized it, by mtpc's pass at the end of that pipeline
    /// (automatic mode, where this run leaves the module whole for the
    /// machine's load, a core may be free by then, or leaves its
    /// optimization to the host for its profile); false where there is no
    /// such pass (explicit mode, full LTO).
    pub fn want_code_generation_split(&self) -> bool {
        // SAFETY: on the host's thread, within the run.
        unsafe { mtpc_run_want_code_generation_split(self.raw) }
    }

    /// Runs on the module what the host's pipeline for `level` and `phase`
    /// runs after its OptimizerLast callbacks (global DCE, constant
    /// merging, ...), whose last is mtpc's pass splitting the code
    /// generation; false if mtpc cannot find those passes (the module is
    /// then untouched).
    pub fn finish_host_pipeline(&self, level: OptLevel, phase: PipelinePhase) -> bool {
        // SAFETY: on the host's thread, within the run; the module is the run's.
        unsafe { mtpc_run_host_pipeline_tail(self.raw, level as i32, phase.number()) }
    }

    /// Records that the module holds mtpc's text now, so that the end of
    /// the host's pipeline puts the module back as it is now (automatic
    /// mode; explicit mode has nothing after it to undo).
    pub fn commit(&self) {
        // SAFETY: on the host's thread, within the run.
        unsafe { mtpc_run_commit(self.raw) }
    }

    /// The text the host's assembly printer writes around the module's
    /// module asm once mtpc has emptied the module, as `settings` print it
    /// (see `shim/host_object.cpp`); `Err` says why there is none.
    pub fn object_frame(&self, settings: &HostSettings) -> Result<ObjectFrame, String> {
        let (mut len, mut head_len, mut message) = (0, 0, std::ptr::null_mut());
        // SAFETY: on the host's thread, within the run; the shim returns
        // `len` malloc'ed bytes (freed here) or null with a strdup'ed message.
        unsafe {
            let bytes = mtpc_run_object_frame(self.raw, settings.raw, &mut len, &mut head_len, &mut message);
            if bytes.is_null() {
                return Err(take_malloc_message(message));
            }
            let text = std::slice::from_raw_parts(bytes.cast::<u8>(), len).to_vec();
            libc_free(bytes.cast());
            if head_len > text.len() {
                return Err("the frame's text was cut in the wrong place (an internal error)".into());
            }
            Ok(ObjectFrame { text, head_len })
        }
    }

    /// Offers `object`, assembled inside `frame` from the module's text as
    /// it is now, to the host's pre-codegen callback
    /// ([`write_offered_object`]), for the target machine `settings` were
    /// read from.
    pub fn offer_object(&self, settings: &HostSettings, object: AssembledObject, frame: &ObjectFrame) {
        let raw = object.into_raw();
        // SAFETY: on the host's thread, within the run; the shim takes the
        // buffer over and copies the frame.
        unsafe { mtpc_run_offer_object(self.raw, settings.raw, raw, frame.text.as_ptr().cast(), frame.text.len(), frame.head_len) }
    }
}

/// What the host's assembly printer writes around module asm.
pub struct ObjectFrame {
    text: Vec<u8>,
    head_len: usize,
}

impl ObjectFrame {
    /// The frame with `inner` in its place, as the pieces of one text
    /// (`inner` ends its last line, as the host's module asm does).
    pub fn around<'a>(&'a self, inner: &'a [u8]) -> Vec<&'a [u8]> {
        let (head, tail) = self.text.split_at(self.head_len);
        let mut pieces = vec![head, inner];
        if !inner.is_empty() && !inner.ends_with(b"\n") {
            pieces.push(b"\n");
        }
        pieces.push(tail);
        pieces
    }
}

/// An object assembled in memory ([`HostSettings::assemble_object`]).
pub type AssembledObject = ShimBuffer;

/// How an object mtpc assembles is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectFormat {
    /// As the host's settings say (`-gz` compresses debug sections,
    /// `--crel` writes CREL relocations): an object the host writes as it is.
    AsHost,
    /// For a transcript to read, whatever `-gz` and `--crel`: debug sections
    /// whole, relocations as RELA. A part's object the host transcribes, and
    /// compresses and encodes as it writes its own.
    ForTranscript,
}

/// What the pre-codegen callback did with the object mtpc offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfferOutcome {
    /// None was offered for the module.
    NoneOffered,
    /// Written to the host's output: the host does not assemble the text.
    Written,
    /// The host writes assembly (or nothing): it prints the text itself.
    NotAnObject,
    /// The host's target machine is not the one the partitions were
    /// compiled with.
    OtherTarget,
    /// The module is no longer as mtpc's pass left it.
    ModuleChanged,
}

/// The work of the host's pre-codegen callback (clang 22): writes the
/// object offered for `module`, if any, to `out`, if the target machine,
/// the output kind and the module are those it was assembled for. The
/// offer is used up either way.
///
/// # Safety
/// The arguments must be the `llvm::Module*`, `llvm::TargetMachine*`,
/// `llvm::CodeGenFileType` and `llvm::raw_pwrite_stream*` the host passes to
/// the callback.
pub unsafe fn write_offered_object(module: *mut c_void, target_machine: *mut c_void, file_type: i32, out: *mut c_void) -> OfferOutcome {
    // SAFETY: the caller's promise.
    match unsafe { mtpc_write_offered_object(module, target_machine, file_type, out) } {
        1 => OfferOutcome::Written,
        2 => OfferOutcome::NotAnObject,
        3 => OfferOutcome::OtherTarget,
        4 => OfferOutcome::ModuleChanged,
        _ => OfferOutcome::NoneOffered,
    }
}

/// The host's code-generation and pipeline settings (target machine,
/// pipeline tuning, PGO), copied out of its PassBuilder.
pub struct HostSettings {
    raw: *mut c_void,
}

// SAFETY: the settings are a copy, owning what it holds, that never
// changes; compiling and checking only read them (several threads at once).
unsafe impl Send for HostSettings {}
unsafe impl Sync for HostSettings {}

/// What mtpc needs to know of the host to decide whether it can compile a
/// module as the host would (see `crate::decline`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostFacts {
    pub triple: String,
    pub object_format_elf: bool,
    pub arch_x86_64: bool,
    pub integrated_assembler: bool,
    pub split_dwarf: bool,
    /// The code generator writes each function's stack usage to a file
    /// (clang's `-fstack-usage`).
    pub stack_usage: bool,
    pub pgo: PgoAction,
    pub cs_pgo: CsPgoAction,
    pub pseudo_probes: bool,
    /// clang's `-cc1` arguments, as it records them in the target options;
    /// empty in other hosts.
    pub command_line: Vec<String>,
    /// A pass debugging option LLVM runs with (`print-after-all`,
    /// `opt-bisect-limit`, `time-passes`, ...), if any.
    pub debugging_option: Option<String>,
}

/// The sanitizers clang's `-cc1` arguments turn on (`-fsanitize=a,b`, as
/// many times as given); none in other hosts.
pub fn sanitizers(command_line: &[String]) -> impl Iterator<Item = &str> {
    command_line.iter().filter_map(|a| a.strip_prefix("-fsanitize=")).flat_map(|kinds| kinds.split(','))
}

/// What the host writes from the module's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostOutput {
    Object,
    /// Assembly text (`clang -S`).
    Assembly,
}

impl HostFacts {
    /// What the host writes: assembly if clang was asked for it (`-cc1 -S`).
    pub fn output(&self) -> HostOutput {
        if self.command_line.iter().any(|a| a == "-S") {
            HostOutput::Assembly
        } else {
            HostOutput::Object
        }
    }
}

/// `llvm::PGOOptions::PGOAction`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PgoAction {
    #[default]
    None,
    IrInstrument,
    IrUse,
    SampleUse,
}

/// `llvm::PGOOptions::CSPGOAction`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CsPgoAction {
    #[default]
    None,
    Instrument,
    Use,
}

impl HostSettings {
    /// The settings of a target machine for `triple` with LLVM's defaults,
    /// for tests that have no host; `None` if LLVM does not know the target.
    pub fn for_triple(triple: &str) -> Option<HostSettings> {
        let triple = std::ffi::CString::new(triple).ok()?;
        // SAFETY: the shim initializes the x86 target and copies the triple.
        let raw = unsafe { mtpc_host_settings_for_triple(triple.as_ptr()) };
        (!raw.is_null()).then_some(HostSettings { raw })
    }

    pub fn facts(&self) -> HostFacts {
        let mut raw = RawHostFacts::default();
        // SAFETY: the shim fills the struct from the settings.
        unsafe { mtpc_host_settings_facts(self.raw, &mut raw) };
        let command_line = (0..raw.command_line_args)
            .map(|i| {
                // SAFETY: i is in range; the string lives as long as the settings.
                unsafe { std::ffi::CStr::from_ptr(mtpc_host_settings_command_line_arg(self.raw, i)) }
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        let mut len = 0;
        // SAFETY: the string lives as long as the settings.
        let triple = unsafe { text(mtpc_host_settings_triple(self.raw, &mut len), len).into_owned() };
        HostFacts {
            triple,
            object_format_elf: raw.object_format_elf,
            arch_x86_64: raw.arch_x86_64,
            integrated_assembler: raw.integrated_assembler,
            split_dwarf: raw.split_dwarf,
            stack_usage: raw.stack_usage,
            pgo: match raw.pgo_action {
                1 => PgoAction::IrInstrument,
                2 => PgoAction::IrUse,
                3 => PgoAction::SampleUse,
                _ => PgoAction::None,
            },
            cs_pgo: match raw.cs_pgo_action {
                1 => CsPgoAction::Instrument,
                2 => CsPgoAction::Use,
                _ => CsPgoAction::None,
            },
            pseudo_probes: raw.pseudo_probes,
            command_line,
            // SAFETY: null or a static string of the shim's.
            debugging_option: (!raw.debugging_option.is_null())
                .then(|| unsafe { std::ffi::CStr::from_ptr(raw.debugging_option) }.to_string_lossy().into_owned()),
        }
    }

    /// The settings as `key=value;...`, for logs and tests.
    pub fn describe(&self) -> String {
        // SAFETY: the shim returns a strdup'ed string.
        take_malloc_message(unsafe { mtpc_host_settings_describe(self.raw) })
    }

    /// Assembles `text` as the host's code generation will, into an object
    /// that is thrown away: `Err` with what the assembler said if that gives
    /// an error or a warning.
    pub fn check_asm(&self, text: &[u8]) -> Result<(), String> {
        let mut message = std::ptr::null_mut();
        // SAFETY: the shim reads the text and the settings only.
        if unsafe { mtpc_check_asm(self.raw, text.as_ptr().cast(), text.len(), &mut message) } {
            Ok(())
        } else {
            Err(take_malloc_message(message))
        }
    }
}

impl HostSettings {
    /// Assembles the text made of `pieces` as [`HostSettings::check_asm`]
    /// does, into an object kept in memory, encoded as `format` says.
    pub fn assemble_object(&self, pieces: &[&[u8]], format: ObjectFormat) -> Result<AssembledObject, String> {
        let pieces: Vec<TextPiece> = pieces.iter().map(|p| TextPiece { data: p.as_ptr().cast(), len: p.len() }).collect();
        let (mut raw, mut data, mut len, mut message) = (std::ptr::null_mut(), std::ptr::null(), 0, std::ptr::null_mut());
        // SAFETY: the shim reads the pieces and the settings only; it returns
        // an owned buffer or a strdup'ed message.
        let for_transcript = format == ObjectFormat::ForTranscript;
        let ok = unsafe {
            mtpc_assemble_object(self.raw, pieces.as_ptr(), pieces.len(), for_transcript, &mut raw, &mut data, &mut len, &mut message)
        };
        if ok {
            // SAFETY: an owned buffer of `len` bytes at `data`.
            Ok(unsafe { ShimBuffer::new(raw, data.cast(), len) })
        } else {
            Err(take_malloc_message(message))
        }
    }
}

impl Drop for HostSettings {
    fn drop(&mut self) {
        // SAFETY: we own the settings.
        unsafe { mtpc_host_settings_free(self.raw) }
    }
}

/// The module's source files, which every partition numbers alike in its
/// DWARF line table (see `shim/debug_files.cpp`).
pub struct DebugFiles {
    raw: *mut c_void,
}

// SAFETY: an immutable list, shared by reference counting in the shim.
unsafe impl Send for DebugFiles {}
unsafe impl Sync for DebugFiles {}

impl DebugFiles {
    /// The files `module`'s debug information names (none without it).
    pub fn collect(module: &ModuleRef<'_>) -> DebugFiles {
        // SAFETY: reads the module's debug metadata.
        DebugFiles { raw: unsafe { mtpc_debug_files_collect(module.raw) } }
    }

    /// The `.file` directives of the shared line table, as the host's
    /// assembly printer writes them; `None` if it has none to write with.
    pub fn table(&self, settings: &HostSettings) -> Option<String> {
        // SAFETY: the shim returns a strdup'ed text or null.
        let text = unsafe { mtpc_debug_files_table(self.raw, settings.raw) };
        (!text.is_null()).then(|| take_malloc_message(text))
    }
}

impl Drop for DebugFiles {
    fn drop(&mut self) {
        // SAFETY: we own our reference.
        unsafe { mtpc_debug_files_free(self.raw) }
    }
}

/// What every partition of one module is built with; lives on the host's
/// thread, within one run of the pass.
pub struct PartitionEnvironment<'r> {
    raw: *mut c_void,
    _run: PhantomData<&'r ()>,
}

impl PartitionEnvironment<'_> {
    /// The pipeline, analysis managers and target machine one partition is
    /// compiled with, built from the host's PassBuilder.
    pub fn build_kit(&self) -> Result<PartitionKit, String> {
        // SAFETY: called on the host's thread during the run (the environment
        // cannot leave it: it is neither Send nor outlives the run).
        let raw = unsafe { mtpc_environment_build_kit(self.raw) };
        if raw.is_null() {
            Err("cannot create a target machine or pipeline with the host's settings".into())
        } else {
            Ok(PartitionKit { raw })
        }
    }
}

impl Drop for PartitionEnvironment<'_> {
    fn drop(&mut self) {
        // SAFETY: we own the environment.
        unsafe { mtpc_environment_free(self.raw) }
    }
}

/// What one partition is optimized and compiled with (see the module's
/// header on how long it may live).
pub struct PartitionKit {
    raw: *mut c_void,
}

// SAFETY: a kit shares nothing with other kits or the host thread's current
// work; it is used by one thread at a time, which ownership guarantees.
unsafe impl Send for PartitionKit {}

/// What a partition's code generator writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartOutput {
    /// Assembly text, which the merge joins into one text (`asm_merge`).
    Assembly,
    /// An object, which the host is handed transcribed (`object_merge`).
    Object,
}

/// A partition compiled, with the time code generation took and the
/// diagnostics it produced (its optimizer's and code generator's).
pub struct CompiledPartition {
    /// Assembly text, or an object if the partition's environment says its
    /// parts write objects.
    pub output: Vec<u8>,
    pub codegen_ms: f64,
    pub diagnostics: PartitionDiagnostics,
}

fn label_text(label: &str) -> std::ffi::CString {
    std::ffi::CString::new(label.replace('\0', " ")).expect("no NUL left")
}

impl PartitionKit {
    /// Makes `context` (new) the one the partition compiled with this kit
    /// is read into: set up as the host's, and recording what it reports
    /// from now on.
    pub fn adopt_context(&mut self, context: &OwnedContext) {
        // SAFETY: the kit and the context are this thread's; the handler the
        // shim installs shares only the recorded list with the kit.
        unsafe { mtpc_kit_adopt_context(self.raw, context.raw) }
    }

    /// Optimizes `module` (valid: verify it first) with the kit's pipeline;
    /// returns the time it took. Errors in the module (and warnings mtpc
    /// cannot pass on to the host) are returned, not printed.
    pub fn optimize(&mut self, module: &mut ModuleRef<'_>, label: &str) -> Result<f64, String> {
        let label = label_text(label);
        let (mut opt_ms, mut error) = (0f64, std::ptr::null_mut());
        // SAFETY: the kit and the module are ours; the shim runs the kit's
        // pipeline on the module and returns a malloc'ed error.
        if unsafe { mtpc_kit_optimize(self.raw, module.raw, label.as_ptr(), &mut opt_ms, &mut error) } {
            Ok(opt_ms)
        } else {
            Err(take_malloc_message(error))
        }
    }

    /// Compiles `module`, optimized by [`PartitionKit::optimize`], with the
    /// kit's code generator: to assembly text, or to an object (see
    /// [`PassRun::environment`]).
    pub fn codegen(self, module: &ModuleRef<'_>, label: &str) -> Result<CompiledPartition, String> {
        let raw = std::mem::ManuallyDrop::new(self).raw;
        let label = label_text(label);
        let (mut output, mut data, mut len) = (std::ptr::null_mut(), std::ptr::null(), 0usize);
        let mut codegen_ms = 0f64;
        let (mut diagnostics, mut error) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: the shim consumes the kit, compiles the module (ours) and
        // returns the output's buffer (`len` bytes at `data`, copied once and
        // disposed of here), a malloc'ed error and an owned diagnostics list.
        unsafe {
            let ok = mtpc_kit_codegen(
                raw,
                module.raw,
                label.as_ptr(),
                &mut output,
                &mut data,
                &mut len,
                &mut codegen_ms,
                &mut diagnostics,
                &mut error,
            );
            let diagnostics = PartitionDiagnostics { raw: diagnostics };
            if !ok {
                return Err(take_malloc_message(error));
            }
            let bytes = std::slice::from_raw_parts(data.cast::<u8>(), len).to_vec();
            mtpc_buffer_dispose(output);
            Ok(CompiledPartition { output: bytes, codegen_ms, diagnostics })
        }
    }
}

impl Drop for PartitionKit {
    fn drop(&mut self) {
        // SAFETY: we own the kit (codegen consumes it without dropping).
        unsafe { mtpc_kit_free(self.raw) }
    }
}

/// The warnings and remarks one partition produced, as plain data, to be
/// reported in the host's context.
pub struct PartitionDiagnostics {
    raw: *mut c_void,
}

// SAFETY: plain data, no longer referenced by the partition's context.
unsafe impl Send for PartitionDiagnostics {}

impl PartitionDiagnostics {
    pub fn len(&self) -> usize {
        // SAFETY: reads the list.
        unsafe { mtpc_diagnostics_count(self.raw) }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The partition's name of the function diagnostic `index` is about
    /// (empty: none).
    pub fn function(&self, index: usize) -> std::borrow::Cow<'_, str> {
        let mut len = 0;
        // SAFETY: the name lives as long as the list.
        unsafe { text(mtpc_diagnostics_function(self.raw, index, &mut len), len) }
    }

    /// Everything diagnostic `index` says, as one string: two diagnostics
    /// are the same if their identities are. `None` for a diagnostic every
    /// copy of which is one of its own (a call to a function with a
    /// `warning` attribute, reported per call emitted).
    pub fn identity(&self, index: usize) -> Option<String> {
        // SAFETY: the shim returns a strdup'ed string, or null.
        let raw = unsafe { mtpc_diagnostics_identity(self.raw, index) };
        (!raw.is_null()).then(|| take_malloc_message(raw))
    }

    /// True if diagnostic `index` came from the code generator, false if
    /// from the optimizer.
    pub fn from_code_generator(&self, index: usize) -> bool {
        // SAFETY: reads the list.
        unsafe { mtpc_diagnostics_phase(self.raw, index) != 0 }
    }

    /// The callee of diagnostic `index` if it is the inliner's remark that a
    /// callee's definition is not available.
    pub fn unavailable_callee(&self, index: usize) -> Option<std::borrow::Cow<'_, str>> {
        let mut len = 0;
        // SAFETY: the name lives as long as the list.
        unsafe {
            let p = mtpc_diagnostics_unavailable_callee(self.raw, index, &mut len);
            (!p.is_null()).then(|| text(p, len))
        }
    }

    /// Renames what diagnostic `index` names by value (a remark's
    /// arguments, the function a warning attribute marks) for which `rename`
    /// gives another name.
    pub fn rename_values(&mut self, index: usize, rename: impl Fn(&str) -> Option<String>) {
        // SAFETY: reads the list.
        let count = unsafe { mtpc_diagnostics_value_count(self.raw, index) };
        for value in 0..count {
            let renamed = {
                let mut len = 0;
                // SAFETY: the value lives until it is replaced, after this borrow.
                let old = unsafe { text(mtpc_diagnostics_value(self.raw, index, value, &mut len), len) };
                // Bytes that are not UTF-8 are left as they are.
                match old {
                    std::borrow::Cow::Borrowed(old) => rename(old),
                    std::borrow::Cow::Owned(_) => None,
                }
            };
            if let Some(name) = renamed {
                // SAFETY: the shim copies the name.
                unsafe { mtpc_diagnostics_set_value(self.raw, index, value, name.as_ptr().cast(), name.len()) }
            }
        }
    }

    /// Reports diagnostic `index` in the context of `host`, the module the
    /// partitions came from, about its function `function`.
    pub fn reemit(&self, index: usize, host: &ModuleRef<'_>, function: &str) {
        // SAFETY: on the host's thread, before the module is replaced; the
        // shim copies the name.
        unsafe { mtpc_diagnostics_reemit(self.raw, index, host.raw, function.as_ptr().cast(), function.len()) }
    }
}

impl Drop for PartitionDiagnostics {
    fn drop(&mut self) {
        // SAFETY: we own the list.
        unsafe { mtpc_diagnostics_free(self.raw) }
    }
}
