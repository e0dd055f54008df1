//! The `mtpc-split` transformation: plan the partitions of a module and
//! either record the plan in metadata or write each partition as a module.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use crate::ir::time_trace::Span;
use crate::ir::{Bitcode, ModuleRef, OwnedContext, UseListOrder};
use crate::module_facts::{self, globals_in_fact_order, ModuleFacts};
use crate::options::{PartitionWork, SplitOptions};
use crate::partition_builder::{self, SplitInput};
use crate::stats::elapsed_ms;
use crate::partition_plan::{Grouped, PartitionPlan};
use crate::symbol_rules::{self, SymbolPlan};
use crate::worker::Pool;

/// Metadata kind on each definition: `!mtpc.partition !{i32 K}`.
pub const PARTITION_MD: &str = "mtpc.partition";
/// Named module metadata: `!mtpc.partitions = !{!{i32 N}}`.
pub const PARTITION_COUNT_MD: &str = "mtpc.partitions";

/// Why a split did not happen.
#[derive(Debug)]
pub enum SplitError {
    /// The input does not pass the IR verifier.
    BrokenInput(String),
    /// The output files cannot be written, or the environment is invalid.
    Output(String),
    /// mtpc produced something wrong: a bug to report.
    Internal(String),
}

impl std::fmt::Display for SplitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SplitError::BrokenInput(m) => write!(f, "the input module fails the IR verifier; fix the producer of this module:\n{m}"),
            SplitError::Output(m) => f.write_str(m),
            SplitError::Internal(m) => write!(f, "internal error (please report it with the input module): {m}"),
        }
    }
}

/// The planned split of one module.
pub struct Split {
    pub facts: ModuleFacts,
    pub partitions: PartitionPlan,
    pub symbols: SymbolPlan,
    pub plan_ms: f64,
}

/// What the pass reports about a plan.
pub struct PlanSummary {
    pub partitions: u32,
    pub instructions: u64,
    pub cost: Vec<u64>,
    pub plan_ms: f64,
}

impl std::fmt::Display for PlanSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} partitions of {} instructions (cost per partition {:?}); planned in {:.1} ms",
            self.partitions, self.instructions, self.cost, self.plan_ms
        )
    }
}

impl Split {
    pub fn summary(&self) -> PlanSummary {
        PlanSummary {
            partitions: self.partitions.partitions,
            instructions: self.facts.total_instructions(),
            cost: self.partitions.cost.clone(),
            plan_ms: self.plan_ms,
        }
    }
}

/// Reads the module and plans its partitions. Promoted names carry no
/// digest of the module's content: the plan is recorded in the module
/// ([`annotate`]), whose names stay as they are. The input is verified
/// where it is used: while it is split ([`write_partitions`]) or before it
/// is annotated ([`annotate`]).
pub fn plan_module(module: &ModuleRef<'_>, opts: &SplitOptions) -> Result<Split, SplitError> {
    let (split, _) = plan_module_sized(module, opts, |_, _, requested| requested, Serialize::No)?;
    Ok(split)
}

/// The partition count `sizing` decides for `module` (see
/// [`plan_module_sized`]), without planning; 1: whole.
pub fn sized_count(module: &ModuleRef<'_>, opts: &SplitOptions, sizing: impl FnOnce(&ModuleFacts, u64, u32) -> u32) -> u32 {
    let facts = read_facts(module, opts);
    group_and_size(&facts, opts, sizing).1
}

/// Whether the bitcode partitions are read from keeps the order of each
/// value's uses (see [`PartitionWork`]).
fn use_list_order(work: PartitionWork) -> UseListOrder {
    match work {
        PartitionWork::OptimizeAndGenerateCode => UseListOrder::Dropped,
        PartitionWork::GenerateCode => UseListOrder::Kept,
    }
}

/// What the plan reads of `module`, with the copies `opts` allow.
fn read_facts(module: &ModuleRef<'_>, opts: &SplitOptions) -> ModuleFacts {
    let start = Instant::now();
    let shared_library_code = module.flag("PIC Level").unwrap_or(0) > 0 && module.flag("PIE Level").unwrap_or(0) == 0;
    let mut facts = module_facts::collect(module, shared_library_code);
    if opts.work == PartitionWork::GenerateCode {
        facts.copy_limits = symbol_rules::CopyLimits::CODE_GENERATION;
    }
    log::debug!("read {} globals in {:.1} ms", facts.globals.len(), elapsed_ms(start));
    facts
}

/// The groups the plan cannot divide, and the partition count `sizing`
/// decides from them (at most what `opts` ask for).
fn group_and_size<'f>(facts: &'f ModuleFacts, opts: &SplitOptions, sizing: impl FnOnce(&ModuleFacts, u64, u32) -> u32) -> (Option<Grouped<'f>>, u32) {
    let requested = opts.partitions_for(facts.total_instructions());
    let t = Instant::now();
    let grouped = if requested > 1 { Grouped::of(facts) } else { None };
    let count = grouped.as_ref().map_or(1, |g| sizing(facts, g.largest_group(), requested).min(requested));
    log::debug!("grouped in {:.1} ms", elapsed_ms(t));
    (grouped, count)
}

/// Whether [`plan_module_sized`] writes the module to bitcode, for the
/// partitions to be read from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Serialize {
    /// Not at all: promoted names carry no digest.
    No,
    /// If the count sized is more than one: while the partitions and the
    /// symbol rules are planned, on another thread; promoted names carry
    /// the bitcode's digest. (A plan that then finds a single unit leaves
    /// the module whole, its bitcode written for nothing.)
    IfSplit,
}

/// [`plan_module`], where `sizing` may lower the partition count, as the
/// cost model does: given the module, its largest group's instructions
/// and the count asked for, it returns the count to plan (1: whole). See
/// [`Grouped`]. With [`Serialize::IfSplit`], the
/// bitcode of a module that is split.
pub fn plan_module_sized(
    module: &ModuleRef<'_>,
    opts: &SplitOptions,
    sizing: impl FnOnce(&ModuleFacts, u64, u32) -> u32,
    serialize: Serialize,
) -> Result<(Split, Option<Bitcode>), SplitError> {
    let start = Instant::now();
    let mut facts = read_facts(module, opts);
    let (grouped, count) = group_and_size(&facts, opts, sizing);
    // The partitions, and the symbol rules but the promoted names: from
    // the facts alone, while this thread writes the module.
    let plan = |facts: &ModuleFacts| {
        let t = Instant::now();
        let exact = |plan: &PartitionPlan| {
            let symbols = symbol_rules::decide_unnamed(facts, plan);
            (0..plan.partitions).map(|k| symbols.bodies_held(facts, k)).collect()
        };
        let partitions = grouped.map_or_else(|| PartitionPlan::single(facts), |g| g.plan(count, opts.merge_lighter, Some(&exact)));
        log::debug!("planned {} partitions in {:.1} ms", partitions.partitions, elapsed_ms(t));
        let t = Instant::now();
        let symbols = symbol_rules::decide_unnamed(facts, &partitions);
        log::debug!("symbol rules in {:.1} ms", elapsed_ms(t));
        (partitions, symbols)
    };
    let (bitcode, (partitions, mut symbols)) = match serialize {
        Serialize::IfSplit if count > 1 => {
            let t = Instant::now();
            let (bitcode, planned) = module.to_split_bitcode_while(use_list_order(opts.work), || plan(&facts));
            log::debug!("serialized {} bytes in {:.1} ms, while planning", bitcode.len(), elapsed_ms(t));
            let t = Instant::now();
            facts.content_digest = bitcode.digest();
            log::debug!("digest in {:.1} ms", elapsed_ms(t));
            (Some(bitcode), planned)
        }
        Serialize::IfSplit | Serialize::No => (None, plan(&facts)),
    };
    if let Some(unit) = partitions.largest_unit {
        log::debug!(
            "largest unit: {} instructions, {} with the copies it needs, in partition {}",
            unit.instructions,
            unit.held_instructions,
            unit.partition
        );
    }
    symbols.name_promotions(&facts);
    symbol_rules::check(&facts, &symbols).map_err(SplitError::Internal)?;
    if log::log_enabled!(log::Level::Debug) && partitions.partitions > 1 {
        log_what_partitions_hold(&facts, &partitions, &symbols);
    }
    Ok((Split { facts, partitions, symbols, plan_ms: elapsed_ms(start) }, bitcode))
}

/// The debug log's account of a plan: what the partitions hold, copies
/// included, against what was planned, and how many locals their users in
/// other partitions made external.
fn log_what_partitions_hold(facts: &ModuleFacts, partitions: &PartitionPlan, symbols: &symbol_rules::SymbolPlan) {
    let held: Vec<u64> = (0..partitions.partitions).map(|k| symbols.bodies_held(facts, k)).collect();
    let total: u64 = held.iter().sum();
    let made_external = |function: bool| {
        let external = |p: &Option<symbol_rules::Promotion>| p.as_ref().is_some_and(|p| p.linkage == crate::module_facts::Linkage::External);
        facts.globals.iter().zip(&symbols.promotions).filter(|(g, p)| g.linkage.is_local() && g.is_function() == function && external(p)).count()
    };
    log::debug!(
        "the partitions hold {total} instructions, copies included ({:.3}x the module's), the most {}: {held:?}; planned {} ({:?}); locals made external: {} functions, {} variables",
        total as f64 / facts.total_instructions().max(1) as f64,
        held.iter().max().copied().unwrap_or(0),
        partitions.planned.iter().sum::<u64>(),
        partitions.planned,
        made_external(true),
        made_external(false)
    );
}

/// Records the plan in the module: each definition's partition as
/// `!mtpc.partition`, the count as `!mtpc.partitions`.
pub fn annotate(module: &ModuleRef<'_>, split: &Split) -> Result<(), SplitError> {
    module.verify().map_err(SplitError::BrokenInput)?;
    let kind = module.md_kind(PARTITION_MD);
    for (i, g) in globals_in_fact_order(module).into_iter().enumerate() {
        let is_object = matches!(g.kind(), crate::ir::GlobalKind::Function | crate::ir::GlobalKind::Variable);
        if let (true, Some(p)) = (is_object, split.partitions.owner[i]) {
            module.set_global_int_metadata(g, kind, u64::from(p));
        }
    }
    module.add_named_int_metadata(PARTITION_COUNT_MD, u64::from(split.partitions.partitions));
    Ok(())
}

/// Why `mtpc-parallel` would compile the module of this split whole, for
/// what its partitions would hold together (`decline`); `None` for a plan
/// of one partition, which splits nothing.
fn whole_for_parallel(split: &Split) -> Option<String> {
    if split.partitions.partitions < 2 {
        return None;
    }
    crate::decline::module_reason(&split.facts).or_else(|| crate::decline::plan_reason(&split.facts, &split.symbols))
}

/// `PREFIX.K.bc`
pub fn partition_path(prefix: &Path, k: u32) -> PathBuf {
    let mut s = prefix.as_os_str().to_owned();
    s.push(format!(".{k}.bc"));
    PathBuf::from(s)
}

/// Checks that `PREFIX.K.bc` can be created before any work is done.
fn check_output_dir(prefix: &Path) -> Result<(), SplitError> {
    let dir = match prefix.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let meta = std::fs::metadata(&dir).map_err(|e| {
        SplitError::Output(format!("cannot write partitions to '{}': directory '{}': {e}", prefix.display(), dir.display()))
    })?;
    if !meta.is_dir() {
        return Err(SplitError::Output(format!("cannot write partitions to '{}': '{}' is not a directory", prefix.display(), dir.display())));
    }
    let probe = dir.join(format!(".mtpc-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| {
        SplitError::Output(format!("cannot write partitions to '{}': directory '{}' is not writable: {e}", prefix.display(), dir.display()))
    })?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

/// Plans the split of `module` and writes every partition to `PREFIX.K.bc`,
/// on the process's worker pool. Either all files are written or none is.
///
/// Only one thread touches the module at a time (LLVM's IR is not
/// synchronized, and even its readers fill caches: `StructType::isSized`,
/// metadata kind names). This thread serializes the module, then plans the
/// split (promoted names carry the bitcode's digest); from then on the
/// partitions are built from the bitcode, each in a
/// context of its own, while this thread verifies the module, the only one
/// to touch it. No partition is written before the verifier has passed the
/// input; the partitions themselves are left to the tools that read them
/// (`opt` and `llc` verify their input).
pub fn write_partitions(module: &ModuleRef<'_>, opts: &SplitOptions, prefix: &Path) -> Result<PlanSummary, SplitError> {
    check_output_dir(prefix)?;
    let pool = crate::worker::pool().map_err(SplitError::Output)?;
    let tmp = |k: u32| {
        let mut p = partition_path(prefix, k).into_os_string();
        p.push(format!(".tmp{}", std::process::id()));
        PathBuf::from(p)
    };
    let (split, bitcode) = plan_module_sized(module, opts, |_, _, requested| requested, Serialize::IfSplit)?;
    if let Some(why) = whole_for_parallel(&split) {
        log::warn!(
            "{}: mtpc-parallel would compile this module whole: {why}; its {} partitions are written as asked, \
             and the objects compiled from them together may not be the program the whole module is",
            crate::host::SPLIT_PASS_NAME,
            split.partitions.partitions
        );
    }
    // One partition: nothing is promoted, so its bitcode is the module's
    // (with the member listing every split's bitcode has).
    let bitcode = bitcode.unwrap_or_else(|| module.to_split_bitcode(use_list_order(opts.work)));
    let summary = split.summary();
    let input = SplitInput { bitcode, facts: split.facts, plan: split.symbols };
    let input_verdict = Arc::new(InputVerdict::default());
    let verdict_for_jobs = input_verdict.clone();
    // The builder thread gets nothing of the module: handles on it are
    // neither `Send` nor `Sync`, so the compiler checks that it cannot.
    let (verdict, outcome) = std::thread::scope(|scope| {
        let builder = scope.spawn(|| build_and_write_all(pool, input, verdict_for_jobs, &tmp));
        // Decided when dropped, as failed if the verifier unwinds.
        let mut decision = Decision(&input_verdict, false);
        let verdict = module.verify();
        decision.1 = verdict.is_ok();
        drop(decision);
        (verdict, builder.join())
    });
    let outcome = match outcome {
        Ok(result) => result.map_err(SplitError::Internal),
        Err(panic) => Err(SplitError::Internal(crate::worker::panic_text(&panic))),
    };
    // A broken input explains any other failure: report it first.
    if let Err(e) = verdict.map_err(SplitError::BrokenInput).and(outcome) {
        for k in 0..summary.partitions {
            let _ = std::fs::remove_file(tmp(k));
        }
        return Err(e);
    }
    for k in 0..summary.partitions {
        std::fs::rename(tmp(k), partition_path(prefix, k))
            .map_err(|e| SplitError::Output(format!("cannot create {}: {e}", partition_path(prefix, k).display())))?;
    }
    Ok(summary)
}

/// Whether the input passed the verifier, once that is known. Partition
/// jobs wait for it before they write, so nothing is written for a broken
/// input.
#[derive(Default)]
struct InputVerdict {
    passed: Mutex<Option<bool>>,
    known: Condvar,
}

impl InputVerdict {
    fn wait(&self) -> bool {
        let mut passed = self.passed.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match *passed {
                Some(p) => return p,
                None => passed = self.known.wait(passed).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }
}

/// Records the verdict it holds when dropped.
struct Decision<'a>(&'a InputVerdict, bool);

impl Drop for Decision<'_> {
    fn drop(&mut self) {
        *self.0.passed.lock().unwrap_or_else(|e| e.into_inner()) = Some(self.1);
        self.0.known.notify_all();
    }
}

/// Builds every partition of `input` on `pool`, the largest first, and
/// writes partition K to `path(K)` once `verdict` says the input is valid.
fn build_and_write_all(
    pool: &Pool,
    input: SplitInput,
    verdict: Arc<InputVerdict>,
    path: &dyn Fn(u32) -> PathBuf,
) -> Result<(), String> {
    let t = Instant::now();
    let input = Arc::new(input);
    let jobs: Vec<_> = input
        .plan
        .largest_first(&input.facts)
        .into_iter()
        .map(|k| {
            let (input, verdict, path) = (input.clone(), verdict.clone(), path(k));
            move || -> Result<(), String> {
                let t = Instant::now();
                let _span = Span::begin("mtpc partition", &format!("partition {k}"));
                let ctx = OwnedContext::new();
                let mut m = partition_builder::build(&ctx, &input, k, &format!("mtpc.partition.{k}"))?;
                let built = elapsed_ms(t);
                if !verdict.wait() {
                    return Err("the input fails the verifier".into());
                }
                m.as_module().write_bitcode(&path)?;
                log::debug!("partition {k}: built in {built:.1} ms, written in {:.1} ms", elapsed_ms(t) - built);
                Ok(())
            }
        })
        .collect();
    let results = pool.run(jobs, pool.size());
    log::debug!("built and wrote {} partitions in {:.1} ms", results.len(), elapsed_ms(t));
    results.into_iter().collect::<Result<Vec<()>, String>>().map(|_| ())
}
