//! Glue between the hosts' pass managers (through llvm-plugin) and mtpc.
//!
//! Parses mtpc's elements of pipeline text and runs the passes. No panic
//! crosses into LLVM: each pass entry catches it. Errors in the user's
//! request (bad parameters, unwritable output, broken input) end the
//! process the way LLVM's own tools do, with a message naming the problem.

use llvm_plugin::inkwell::module::Module;
use llvm_plugin::{LlvmModulePass, ModuleAnalysisManager, ModulePassManager, PipelineParsing, PreservedAnalyses};

use crate::ir::{report_fatal_error, ModuleRef};
use crate::options::{parse_split_options, strip_pass_name, threads_from_env, SplitOptions};
use crate::split;

pub const SPLIT_PASS_NAME: &str = "mtpc-split";

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
    let plan = split::plan_module(module, options)?;
    let preserved = match &options.out {
        Some(prefix) => {
            let threads = threads_from_env().map_err(split::SplitError::Output)?;
            split::write_partitions(module, &plan, prefix, threads)?;
            PreservedAnalyses::All
        }
        None => {
            split::annotate(module, &plan)?;
            PreservedAnalyses::None
        }
    };
    log::info!(
        "{SPLIT_PASS_NAME}: {} partitions of {} instructions (cost per partition {:?}); planned in {:.1} ms, split in {:.1} ms",
        plan.partitions.partitions,
        plan.facts.total_instructions(),
        plan.partitions.cost,
        plan.plan_ms,
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(preserved)
}

/// The pipeline-parsing callback: recognizes mtpc's passes in pipeline text.
pub fn parse_module_pipeline_element(text: &str, manager: &mut ModulePassManager) -> PipelineParsing {
    crate::logging::init();
    let Some(params) = strip_pass_name(text, SPLIT_PASS_NAME) else {
        return PipelineParsing::NotParsed;
    };
    match parse_split_options(params) {
        Ok(options) => {
            manager.add_pass(SplitPass { options });
            PipelineParsing::Parsed
        }
        Err(message) => {
            // LLVM then reports the element as an unknown pass; say why first.
            eprintln!("error: {SPLIT_PASS_NAME}: {message}");
            PipelineParsing::NotParsed
        }
    }
}
