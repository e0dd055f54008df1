//! Glue between the hosts' pass managers and mtpc.
//!
//! The plugin registers with each host PassBuilder
//! ([`crate::ir::host_pipeline::register`]: once per compile in clang, once
//! per ThinLTO backend in lld), through the shim (`ir::host_pipeline`),
//! which parses both passes' pipeline text with [`HOOKS`] and runs them;
//! `mtpc-parallel` needs the host's PassBuilder and analysis managers while
//! it runs, to build the partitions' pipelines from them.
//! Automatic mode runs at the extension points:
//! - PipelineStart (clang, opt's `default<On>`): the per-module pipeline;
//!   pre-link compiles (`-flto`, `-flto=thin`) are left alone;
//! - PipelineEarlySimplification, only where PipelineStart did not fire
//!   (lld's ThinLTO backends, opt's `thinlto<On>`): the ThinLTO post-link
//!   pipeline;
//! - OptimizerLast, after either, for a module the first left whole for
//!   the machine's load, or to the host's optimization for its profile
//!   (`decline::optimization_reason`), or with `MTPC_CODE_GENERATION_ONLY`:
//!   its code generation alone.
//!
//! Full LTO has a pass of its own at FullLinkTimeOptimizationLast
//! (`shim/host_pipeline.cpp`).
//!
//! A compile mtpc cannot guarantee to give the stock result for is declined
//! (`crate::decline`), with one `info` line. No panic crosses into LLVM:
//! each pass entry catches it. In mtpc-split, errors in the user's request
//! end the process the way LLVM's tools do; in mtpc-parallel, any failure
//! leaves the module to the host's normal compilation, with one warning.

use std::sync::Arc;

use crate::decline::{self, HostProgram};
use crate::ir::host_pipeline::{Hooks, OfferOutcome, ParallelRequest, ParseOutcome, PassRun, Preserved};
use crate::ir::{report_fatal_error, ModuleRef, PipelinePhase, CALL_GRAPH_PROFILE_FLAG};
use crate::options::{automatic_from_env, parse_parallel_options, parse_split_options, strip_pass_name, ParallelOptions, SplitOptions};
use crate::parallel::{self, Outcome};
use crate::split;

pub const SPLIT_PASS_NAME: &str = "mtpc-split";
pub const PARALLEL_PASS_NAME: &str = "mtpc-parallel";

/// Checks that the host runs the LLVM this library was built against (the
/// shared libLLVM of its major); a host of another LLVM would crash on the
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

/// Reports what clang 22's pre-codegen callback did with the object mtpc
/// offered (see `crate::object_writer`); true if it wrote it, so that the
/// host does not generate code.
pub fn report_offer(outcome: OfferOutcome) -> bool {
    let why = match outcome {
        OfferOutcome::Written => {
            log::debug!("wrote the object mtpc assembled");
            return true;
        }
        OfferOutcome::NoneOffered => return false,
        OfferOutcome::NotAnObject => "the host writes no object",
        OfferOutcome::OtherTarget => "the host generates code with another target machine than the one the partitions were compiled with",
        OfferOutcome::ModuleChanged => "a pass after mtpc's changed the module",
    };
    log::info!("the host assembles the merged text: {why}");
    false
}

/// What the shim calls for `mtpc-parallel` and `mtpc-split`.
pub const HOOKS: Hooks = Hooks { run: run_parallel, parse: parse_parallel, parse_split, run_split: run_split_pass };

/// One run of `mtpc-parallel` on `module`; true if it changed the module.
/// An explicit `mtpc-parallel<On>` that does not split the module (small,
/// declined, failed) optimizes it whole, as `default<On>` would (for
/// `fulllto`: what `lto<On>` runs after its whole-program part, which ran).
fn run_parallel(request: &ParallelRequest, module: &mut ModuleRef<'_>, run: &PassRun<'_>) -> bool {
    if split_in_parallel(request, module, run) {
        return true;
    }
    if request.automatic == 0 {
        run.optimize_whole(request.level(), request.phase());
        return true;
    }
    false
}

/// Splits `module` and compiles it in parallel, unless that is declined or
/// fails; true if the module now holds the compiled code.
fn split_in_parallel(request: &ParallelRequest, module: &mut ModuleRef<'_>, run: &PassRun<'_>) -> bool {
    let automatic = request.automatic != 0;
    let options = if automatic {
        let is_pre_link = module.flag("EnableSplitLTOUnit").is_some() || module.flag("ThinLTO").is_some();
        if request.phase() == PipelinePhase::PerModule && is_pre_link {
            return false;
        }
        match automatic_from_env(request.level(), request.phase()) {
            Ok(Some(o)) => ParallelOptions { after_optimization: request.after_optimization != 0, ..o },
            Ok(None) => return false,
            Err(e) => {
                warn_once(&format!("{e}; mtpc is off"));
                return false;
            }
        }
    } else {
        match options_of(request) {
            Ok(o) => o,
            Err(e) => {
                warn_once(&format!("{e}; mtpc-parallel compiles every module whole"));
                return false;
            }
        }
    };
    let Some(settings) = run.host_settings().map(Arc::new) else {
        log::warn!("the host gave no target machine; {} compiled whole", module.source_filename());
        return false;
    };
    log::debug!("host settings: {}", settings.describe());
    let mode = if automatic { decline::Request::Automatic } else { decline::Request::Explicit };
    let host_facts = settings.facts();
    if let Some(reason) = decline::reason(&host_facts, mode, HostProgram::current()) {
        log::info!("{}: {reason}; mtpc leaves it to the host, whole", module.source_filename());
        return false;
    }
    // A profile the pipeline applies by name and hash: the host optimizes
    // the module whole, and its code generation may be split after.
    if let Some(reason) = decline::optimization_reason(&host_facts).filter(|_| !options.after_optimization) {
        // Asks for mtpc's pass at the end of the host's pipeline (automatic
        // mode; false in explicit mode and in full LTO, which have none).
        let later = automatic && run.want_code_generation_split();
        log::info!(
            "{}: {reason}; mtpc leaves {} to the host, whole{}",
            module.source_filename(),
            if later { "its optimization" } else { "it" },
            if later { " (its code generation may be split once it is optimized)" } else { "" }
        );
        return false;
    }
    if request.phase() == PipelinePhase::FullLtoPostLink {
        let virtual_function_elimination = module.flag("Virtual Function Elim").is_some_and(|v| v != 0);
        let other_plugins = run.foreign_full_lto_last_callbacks();
        if let Some(reason) = decline::full_lto_reason(virtual_function_elimination, other_plugins) {
            log::info!("{}: {reason}; mtpc leaves it to the host, whole", module.source_filename());
            return false;
        }
    }
    if options.code_generation_only && !options.after_optimization {
        if request.phase() == PipelinePhase::FullLtoPostLink {
            log::info!("{}: MTPC_CODE_GENERATION_ONLY: mtpc does not split full LTO's code generation alone; it leaves the module to the host, whole", module.source_filename());
        } else {
            log::debug!("{}: MTPC_CODE_GENERATION_ONLY: the code generation may be split once the host's pipeline has optimized the module", module.source_filename());
            run.want_code_generation_split();
        }
        return false;
    }
    // The code generation's split runs the host's last passes ahead of it;
    // where the module is then left to the host, the host runs them again,
    // and the call graph profile they record must be recorded once.
    let call_graph_profile_before = module.has_flag(CALL_GRAPH_PROFILE_FLAG);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parallel::run(module, run, &settings, &options)));
    if !matches!(outcome, Ok(Ok(Outcome::Parallel(_)))) && !call_graph_profile_before && module.erase_flag(CALL_GRAPH_PROFILE_FLAG) {
        log::debug!("{}: erased the call graph profile the host's last passes recorded ahead of the host", module.source_filename());
    }
    match outcome {
        Ok(Ok(Outcome::Parallel(stats))) => {
            let waited = stats.model.as_ref().is_some_and(|m| m.waits_for_cores);
            log::info!(
                "{}: {} partitions on {} threads{}, {:.0} ms (split {:.0} ms, merge {:.0} ms, check {:.0} ms, work {:.0} ms)",
                stats.module,
                stats.partitions,
                stats.threads,
                match (stats.code_generation_only, waited) {
                    (true, true) => format!(
                        " generating code (optimized whole; every core busy, its partitions waited for cores: at most {} at once)",
                        stats.most_jobs_at_once()
                    ),
                    (true, false) => " generating code (optimized whole)".to_string(),
                    (false, _) => String::new(),
                },
                stats.wall_ms,
                stats.split_ms,
                stats.merge_ms,
                stats.check_ms,
                stats.work_ms
            );
            crate::stats::record(&stats);
            true
        }
        Ok(Ok(Outcome::NotSplit)) => false,
        Ok(Ok(Outcome::Whole(stats) | Outcome::InvalidInput(stats))) => {
            let for_the_load = stats.model.as_ref().is_some_and(|m| m.whole_for_load);
            let later = for_the_load && !options.after_optimization && run.want_code_generation_split();
            log::info!(
                "{}: {}{}; mtpc leaves it to the host, whole{}",
                stats.module,
                if options.after_optimization { "its code generation: " } else { "" },
                stats.whole_reason().unwrap_or_default(),
                if later { " (its code generation may be split once it is optimized)" } else { "" }
            );
            crate::stats::record(&stats);
            false
        }
        Ok(Ok(Outcome::Fallback(stats))) => {
            let reason = stats.fallback_reason.clone().unwrap_or_default();
            log::warn!("{}: {reason}; compiling the module whole instead", stats.module);
            crate::stats::record(&stats);
            false
        }
        Ok(Err(e)) => {
            log::warn!("{}: {e}; compiling the module whole instead", module.source_filename());
            false
        }
        Err(panic) => {
            log::warn!(
                "{}: internal error ({}); compiling the module whole instead",
                module.source_filename(),
                crate::worker::panic_text(&panic)
            );
            false
        }
    }
}

/// The options an explicit request carries, and the environment's
/// `MTPC_LOAD_AWARE` and `MTPC_WAIT_FOR_CORES` (an invalid value: an error
/// naming it).
fn options_of(request: &ParallelRequest) -> Result<ParallelOptions, String> {
    Ok(ParallelOptions {
        level: request.level(),
        phase: request.phase(),
        partitions: (request.partitions > 0).then_some(request.partitions),
        threads: (request.threads > 0).then(|| usize::try_from(request.threads).unwrap_or(usize::MAX)),
        min_size: request.min_size,
        cost_model: request.cost_model != 0,
        load_aware: crate::options::load_aware_from_env()?,
        wait_for_cores: crate::options::wait_for_cores_from_env()?,
        after_optimization: request.after_optimization != 0,
        code_generation_only: false,
    })
}

/// `mtpc-parallel<...>` in pipeline text.
fn parse_parallel(text: &str) -> ParseOutcome<ParallelRequest> {
    let Some(params) = strip_pass_name(text, PARALLEL_PASS_NAME) else { return ParseOutcome::NotOurs };
    match parse_parallel_options(params) {
        Ok(o) => ParseOutcome::Parsed(ParallelRequest {
            automatic: 0,
            level: o.level as i32,
            phase: o.phase.number(),
            partitions: o.partitions.unwrap_or(0),
            threads: o.threads.map_or(0, |t| t as u64),
            min_size: o.min_size,
            cost_model: i32::from(o.cost_model),
            after_optimization: 0,
        }),
        Err(message) => {
            // LLVM then reports the element as an unknown pass; say why first.
            eprintln!("error: {PARALLEL_PASS_NAME}: {message}");
            ParseOutcome::Invalid
        }
    }
}

/// Warns about a bad setting once per process, not once per module.
fn warn_once(message: &str) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| log::warn!("{message}"));
}

/// `mtpc-split<partitions=N;min-size=M;out=PREFIX>` in pipeline text.
fn parse_split(text: &str) -> ParseOutcome<SplitOptions> {
    let Some(params) = strip_pass_name(text, SPLIT_PASS_NAME) else { return ParseOutcome::NotOurs };
    match parse_split_options(params) {
        Ok(options) => ParseOutcome::Parsed(options),
        Err(message) => {
            // LLVM then reports the element as an unknown pass; say why first.
            eprintln!("error: {SPLIT_PASS_NAME}: {message}");
            ParseOutcome::Invalid
        }
    }
}

/// One run of the `mtpc-split` pass that pipeline text `text` (parsed
/// before) asked for. Errors end the process, as LLVM's tools do.
fn run_split_pass(text: &str, module: &mut ModuleRef<'_>) -> Preserved {
    let ParseOutcome::Parsed(options) = parse_split(text) else {
        report_fatal_error(&format!("{SPLIT_PASS_NAME}: cannot parse '{text}' again"))
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_split(module, &options)));
    match outcome {
        Ok(Ok(preserved)) => preserved,
        Ok(Err(e)) => report_fatal_error(&format!("{SPLIT_PASS_NAME}: {e}")),
        Err(panic) => report_fatal_error(&format!(
            "{SPLIT_PASS_NAME}: internal error (please report it with the input module): {}",
            crate::worker::panic_text(&panic)
        )),
    }
}

fn run_split(module: &ModuleRef<'_>, options: &SplitOptions) -> Result<Preserved, split::SplitError> {
    let start = std::time::Instant::now();
    let _span = crate::ir::time_trace::Span::begin(SPLIT_PASS_NAME, &module.source_filename());
    let (summary, preserved) = match &options.out {
        Some(prefix) => (split::write_partitions(module, options, prefix)?, Preserved::All),
        None => {
            // Only the plan is recorded: no partition, no promoted name.
            let plan = split::plan_module(module, options)?;
            split::annotate(module, &plan)?;
            (plan.summary(), Preserved::None)
        }
    };
    log::info!("{SPLIT_PASS_NAME}: {summary}, split in {:.1} ms", crate::stats::elapsed_ms(start));
    Ok(preserved)
}
