//! Glue between the hosts' pass managers (through llvm-plugin) and mtpc.
//!
//! [`register`] is called once per host PassBuilder (once per compile in
//! clang, once per ThinLTO backend in lld): it captures that builder's
//! code-generation settings, recognizes mtpc's passes in pipeline text, and
//! turns on automatic mode at the extension points:
//! - PipelineStart (clang, opt's `default<On>`): the per-module pipeline;
//!   pre-link compiles (`-flto`, `-flto=thin`) are left alone;
//! - PipelineEarlySimplification, only where PipelineStart did not fire
//!   (lld's ThinLTO backends, opt's `thinlto<On>`): the ThinLTO post-link
//!   pipeline. Full LTO fires neither and is left untouched.
//!
//! No panic crosses into LLVM: each pass entry catches it. In mtpc-split,
//! errors in the user's request end the process the way LLVM's tools do; in
//! mtpc-parallel, any failure leaves the module to the host's normal
//! compilation, with one warning.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use llvm_plugin::inkwell::module::Module;
use llvm_plugin::{
    LlvmModulePass, ModuleAnalysisManager, ModulePassManager, OptimizationLevel, PassBuilder, PipelineParsing,
    PreservedAnalyses,
};

use crate::ir::{report_fatal_error, HostSettings, ModuleRef, OptLevel, PipelinePhase};
use crate::options::{automatic_from_env, parse_parallel_options, parse_split_options, strip_pass_name, ParallelOptions, SplitOptions};
use crate::parallel::{self, Outcome};
use crate::split;

pub const SPLIT_PASS_NAME: &str = "mtpc-split";
pub const PARALLEL_PASS_NAME: &str = "mtpc-parallel";

/// Checks that the host runs the LLVM this library was built against (the
/// shared libLLVM of LLVM 16); a host of another LLVM would crash on the
/// first call. The error names both versions and what to do.
pub fn check_host_llvm() -> Result<(), String> {
    let Some(foreign) = crate::ir::foreign_host_llvm() else { return Ok(()) };
    let ours = crate::ir::llvm_version_major();
    let program = std::env::args_os().next().map(std::path::PathBuf::from);
    let host = program.and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    let host = host.unwrap_or_else(|| "this program".into());
    let theirs = match foreign.major {
        Some(major) if major != ours => format!("LLVM {major}"),
        Some(_) => format!("its own copy of LLVM {ours} (not the shared libLLVM-{ours})"),
        None => "another LLVM".into(),
    };
    Err(format!(
        "libmtpc.so was built for LLVM {ours}, but {host} runs {theirs} ({}); \
         load it into the LLVM {ours} tools (clang-{ours}, ld.lld-{ours}, opt-{ours}), \
         or rebuild mtpc against this host's LLVM",
        foreign.file
    ))
}

/// Registers mtpc with one host PassBuilder.
///
/// # Safety
/// `pass_builder` must be the `llvm::PassBuilder*` LLVM 16 hands to a
/// plugin's registrar.
pub unsafe fn register(pass_builder: *mut std::ffi::c_void) {
    crate::logging::init();
    let host = HostSettings::capture(pass_builder).map(Arc::new);
    if let Some(h) = &host {
        log::debug!("host settings: {}", h.describe());
    }
    let mut builder = PassBuilder::from_raw(pass_builder);
    let parsing_host = host.clone();
    builder.add_module_pipeline_parsing_callback(move |text, manager| parse_module_pipeline_element(text, manager, &parsing_host));

    let pipeline_start_seen = Rc::new(Cell::new(false));
    let (seen, start_host) = (pipeline_start_seen.clone(), host.clone());
    builder.add_pipeline_start_ep_callback(move |manager, level| {
        seen.set(true);
        manager.add_pass(ParallelPass { host: start_host.clone(), mode: Mode::Automatic(opt_level(level), PipelinePhase::PerModule) });
    });
    builder.add_pipeline_early_simplification_ep_callback(move |manager, level| {
        if !pipeline_start_seen.get() {
            manager.add_pass(ParallelPass { host: host.clone(), mode: Mode::Automatic(opt_level(level), PipelinePhase::ThinLtoPostLink) });
        }
    });
}

fn opt_level(level: OptimizationLevel) -> OptLevel {
    match level {
        OptimizationLevel::O0 => OptLevel::O0,
        OptimizationLevel::O1 => OptLevel::O1,
        OptimizationLevel::O2 => OptLevel::O2,
        OptimizationLevel::O3 => OptLevel::O3,
        OptimizationLevel::Os => OptLevel::Os,
        OptimizationLevel::Oz => OptLevel::Oz,
    }
}

enum Mode {
    /// From pipeline text: `mtpc-parallel<...>`.
    Explicit(ParallelOptions),
    /// From an extension point; the environment adjusts it.
    Automatic(OptLevel, PipelinePhase),
}

/// The `mtpc-parallel<O2;partitions=N;threads=T;min-size=M>` module pass,
/// also what automatic mode adds.
pub struct ParallelPass {
    host: Option<Arc<HostSettings>>,
    mode: Mode,
}

impl LlvmModulePass for ParallelPass {
    fn run_pass(&self, module: &mut Module<'_>, _: &ModuleAnalysisManager) -> PreservedAnalyses {
        // SAFETY: the pass manager hands us the module for the duration of the pass.
        let module = unsafe { ModuleRef::from_raw(module.as_mut_ptr()) };
        let options = match &self.mode {
            Mode::Explicit(o) => o.clone(),
            Mode::Automatic(level, phase) => {
                let is_pre_link = module.flag("EnableSplitLTOUnit").is_some() || module.flag("ThinLTO").is_some();
                if *phase == PipelinePhase::PerModule && is_pre_link {
                    return PreservedAnalyses::All;
                }
                match automatic_from_env(*level, *phase) {
                    Ok(Some(o)) => o,
                    Ok(None) => return PreservedAnalyses::All,
                    Err(e) => {
                        warn_once(&format!("{e}; mtpc is off"));
                        return PreservedAnalyses::All;
                    }
                }
            }
        };
        let Some(host) = &self.host else {
            log::warn!("the host gave no target machine; {} compiled whole", module.source_filename());
            return PreservedAnalyses::All;
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parallel::run(&module, host, &options)));
        match outcome {
            Ok(Ok(Outcome::Parallel(stats))) => {
                log::info!(
                    "{}: {} partitions on {} threads, {:.0} ms (split {:.0} ms, merge {:.0} ms, work {:.0} ms)",
                    stats.module, stats.partitions, stats.threads, stats.wall_ms, stats.split_ms, stats.merge_ms, stats.work_ms
                );
                crate::stats::record(&stats);
                PreservedAnalyses::None
            }
            Ok(Ok(Outcome::NotSplit)) => PreservedAnalyses::All,
            Ok(Ok(Outcome::Fallback(stats))) => {
                let reason = stats.fallback_reason.clone().unwrap_or_default();
                log::warn!("{}: {reason}; compiling the module whole instead", stats.module);
                crate::stats::record(&stats);
                PreservedAnalyses::All
            }
            Ok(Err(e)) => {
                log::warn!("{}: {e}; compiling the module whole instead", module.source_filename());
                PreservedAnalyses::All
            }
            Err(panic) => {
                log::warn!(
                    "{}: internal error ({}); compiling the module whole instead",
                    module.source_filename(),
                    crate::worker::panic_text(&panic)
                );
                PreservedAnalyses::All
            }
        }
    }
}

/// Warns about a bad setting once per process, not once per module.
fn warn_once(message: &str) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| log::warn!("{message}"));
}

/// The `mtpc-split<partitions=N;min-size=M;out=PREFIX>` module pass.
pub struct SplitPass {
    pub options: SplitOptions,
}

impl LlvmModulePass for SplitPass {
    fn run_pass(&self, module: &mut Module<'_>, _: &ModuleAnalysisManager) -> PreservedAnalyses {
        // SAFETY: the pass manager hands us the module for the duration of the pass.
        let module = unsafe { ModuleRef::from_raw(module.as_mut_ptr()) };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_split(&module, &self.options)));
        match outcome {
            Ok(Ok(preserved)) => preserved,
            Ok(Err(e)) => report_fatal_error(&format!("{SPLIT_PASS_NAME}: {e}")),
            Err(panic) => report_fatal_error(&format!(
                "{SPLIT_PASS_NAME}: internal error (please report it with the input module): {}",
                crate::worker::panic_text(&panic)
            )),
        }
    }
}

fn run_split(module: &ModuleRef<'_>, options: &SplitOptions) -> Result<PreservedAnalyses, split::SplitError> {
    let start = std::time::Instant::now();
    let _span = crate::ir::time_trace::Span::begin(SPLIT_PASS_NAME, &module.source_filename());
    let (summary, preserved) = match &options.out {
        Some(prefix) => (split::write_partitions(module, options, prefix)?, PreservedAnalyses::All),
        None => {
            let plan = split::plan_module(module, options)?;
            split::annotate(module, &plan)?;
            (plan.summary(), PreservedAnalyses::None)
        }
    };
    log::info!("{SPLIT_PASS_NAME}: {summary}, split in {:.1} ms", crate::stats::elapsed_ms(start));
    Ok(preserved)
}

/// The pipeline-parsing callback: recognizes mtpc's passes in pipeline text.
fn parse_module_pipeline_element(text: &str, manager: &mut ModulePassManager, host: &Option<Arc<HostSettings>>) -> PipelineParsing {
    let (name, parsed) = if let Some(params) = strip_pass_name(text, SPLIT_PASS_NAME) {
        (SPLIT_PASS_NAME, parse_split_options(params).map(|options| manager.add_pass(SplitPass { options })))
    } else if let Some(params) = strip_pass_name(text, PARALLEL_PASS_NAME) {
        let pass = |options| ParallelPass { host: host.clone(), mode: Mode::Explicit(options) };
        (PARALLEL_PASS_NAME, parse_parallel_options(params).map(|options| manager.add_pass(pass(options))))
    } else {
        return PipelineParsing::NotParsed;
    };
    match parsed {
        Ok(()) => PipelineParsing::Parsed,
        Err(message) => {
            // LLVM then reports the element as an unknown pass; say why first.
            eprintln!("error: {name}: {message}");
            PipelineParsing::NotParsed
        }
    }
}
