//! The `mtpc-parallel` transformation: split the module, optimize and
//! compile every partition on the worker pool with the host's own pipeline
//! and settings, join what they wrote, check it, pass the partitions'
//! warnings and remarks on to the host, and hand the host one module whose
//! only content is the joined text (module-level asm), which its own code
//! generation assembles into the one object it writes. Where clang 16 or
//! 22 writes an object, each partition writes an object and the text is
//! their transcript (`object_merge`, `object_transcript`), which the host
//! assembles without parsing an instruction; elsewhere each partition
//! prints assembly and the text is their merge (`asm_merge`; where clang 22
//! writes an object, mtpc assembles it and writes the object: see
//! `object_writer`).
//!
//! The same pass, at the end of the host's pipeline (`after_optimization`:
//! a module left whole for the machine's load, one whose profile the
//! pipeline applies by name and hash, or `MTPC_CODE_GENERATION_ONLY`),
//! splits only the code generation of the
//! module the host's pipeline has optimized whole: decided before the
//! host's last passes, which then run on the whole module first (but for
//! annotation remarks, which only report, and run in the partitions); its
//! partitions optimize nothing, get copies of constants alone, and are read
//! from bitcode that keeps the order of each value's uses
//! (`PartitionWork::GenerateCode`). On a machine whose cores are still all
//! busy then, a long code generation is split all the same and its
//! partitions start one at a time, the others as cores free
//! (`cost_model::waiting_count`, `worker::Limit::Growing`).
//!
//! The host's module is changed only at the very end, once every partition
//! has compiled and the text has assembled: if anything fails before (a
//! partition that does not verify, an LLVM error, a warning mtpc cannot
//! pass on, a text that does not assemble, a panic), the module is left as
//! it was and the host compiles it the normal way, reporting whatever the
//! partitions reported itself.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::asm_merge::{Files, MergeError, Merged, PartScan, Promoted};
use crate::cost_model::{self, Compile, ModuleShape, Verdict};
use crate::diagnostics::DiagnosticRouting;
use crate::machine_load::{FreedCore, MachineLoad};
use crate::ir::host_pipeline::{AssembledObject, DebugFiles, ObjectFormat, HostSettings, ObjectFrame, PartOutput, PartitionDiagnostics, PassRun};
use crate::ir::time_trace::Span;
use crate::ir::host_pipeline::{PartitionKit, PartitionPipeline};
use crate::ir::{GlobalKind, MemoryFile, ModuleRef, OptLevel, OwnedContext, PartitionModule, CALL_GRAPH_PROFILE_FLAG};
use crate::module_facts::{Linkage, ModuleFacts};
use crate::object_merge::{self, PartFacts};
use crate::object_transcript;
use crate::object_writer::{self, ObjectWriter};
use crate::odr_copies::{self, EmitterChoice};
use crate::options::{ParallelOptions, PartitionWork, SplitOptions};
use crate::partition_builder::{self, SplitInput};
use crate::split;
use crate::worker::Limit;
use crate::stats::{elapsed_ms as ms, ModelStats, ModuleStats, PartitionStats};

/// Test-only: `MTPC_TEST_FAIL_PARTITION=K` makes partition K fail (panic),
/// so that the fallback can be tested on real hosts.
const FAIL_INJECTION_VAR: &str = "MTPC_TEST_FAIL_PARTITION";
/// Test-only: `MTPC_TEST_BREAK_PARTITION=K` leaves partition K's IR invalid
/// (its first function declaration made internal), as a bug in the symbol
/// rules would, so that the verifier's fallback can be tested on real hosts.
const BREAK_INJECTION_VAR: &str = "MTPC_TEST_BREAK_PARTITION";
/// Test-only: `MTPC_TEST_BREAK_ASM=K` appends an instruction the assembler
/// rejects to partition K's text (or its object's transcript), as a bug in
/// the merge would, so that the check of what the host is handed can be
/// tested on real hosts.
const BREAK_ASM_INJECTION_VAR: &str = "MTPC_TEST_BREAK_ASM";

fn injected_partition(var: &str) -> Option<u32> {
    std::env::var(var).ok().and_then(|v| v.trim().parse().ok())
}

/// What `MTPC_TEST_BREAK_PARTITION` does to a partition.
fn break_for_test(module: &ModuleRef<'_>) {
    let declaration = module.globals(GlobalKind::Function).into_iter().find(|f| f.is_declaration());
    if let Some(f) = declaration {
        f.set_linkage(Linkage::Internal);
    }
}

/// What sizes the plan when the cost model does (and estimates it when the
/// user did): the partition count for a module's facts, with the model's
/// view of it kept for the stats.
struct Sizer<'a> {
    opts: &'a ParallelOptions,
    threads: usize,
    compile: Compile,
    /// What the partitions would write (see `object_writer::part_output`).
    part_output: &'a dyn Fn(&ModuleFacts, u32) -> Result<PartOutput, String>,
    load: LoadSample,
    model: Option<ModelStats>,
}

/// The machine's load, as the model decides with it.
enum LoadSample {
    /// Sampled when the model needs it.
    NotYet,
    /// Sampled already (`None`: `/proc` unreadable, planned as if idle).
    Taken(Option<MachineLoad>),
}

impl Sizer<'_> {
    /// The count for `facts`, whose largest indivisible group holds
    /// `largest_group` instructions, of at most `requested` partitions; 1: whole.
    fn size(&mut self, facts: &ModuleFacts, largest_group: u64, requested: u32) -> u32 {
        // What the object would hold once from every function: whole,
        // whatever the count asked for.
        if let Some(why) = crate::decline::module_reason(facts) {
            self.model = Some(ModelStats { whole_reason: Some(why), ..ModelStats::default() });
            return 1;
        }
        // At the most partitions asked for: fewer never need text where
        // that many do not (the objects' sections grow with the count).
        let transcribed = matches!((self.part_output)(facts, requested), Ok(PartOutput::Object));
        // What the partitions' text could not state: whole, before any work.
        if let Some(why) = (!transcribed).then(|| crate::decline::printed_text_reason(facts, crate::ir::llvm_version::MAJOR)).flatten() {
            self.model = Some(ModelStats { whole_reason: Some(why), ..ModelStats::default() });
            return 1;
        }
        let shape = ModuleShape {
            instructions: facts.total_instructions(),
            data_bytes: facts.data_bytes(),
            largest_group,
            compile: self.compile,
            transcribed,
        };
        // Estimated whatever decides, so that the stats can check the model
        // (a forced split: the estimate of the count asked for).
        let (opts, threads, sampled) = (self.opts, self.threads, std::mem::replace(&mut self.load, LoadSample::NotYet));
        let (verdict, estimate, seen) = match opts.cost_model {
            true => cost_model::decide_under_load(&shape, requested, threads, || match sampled {
                LoadSample::Taken(load) => load,
                LoadSample::NotYet => opts.load_aware.then(MachineLoad::sample).flatten(),
            }),
            false => (Verdict::Split(requested), cost_model::estimate(&shape, requested, threads), None),
        };
        let (load, lanes) = seen.unzip();
        let (partitions, whole_reason) = match verdict {
            Verdict::Split(n) => (n, None),
            Verdict::Whole(why) => (1, Some(why)),
        };
        // The load is looked at only for a module the model would split on an idle machine.
        let whole_for_load = whole_reason.is_some() && load.is_some();
        self.model = Some(ModelStats { shape: Some(shape), estimate: Some(estimate), load, lanes, whole_reason, whole_for_load, waits_for_cores: false });
        partitions
    }
}

/// What the second look decided for the optimized module's code generation.
enum CodeGenerationLook {
    /// Split into this many partitions; the host's last passes have run.
    /// `waits`: every core was busy, so the partitions start one at a time
    /// and the others as cores free (`Limit::Growing`).
    Split { count: u32, waits: bool },
    /// Left whole, with the model's view (for the info line and the stats).
    Whole(Box<ModelStats>),
    /// Too small to split: nothing to report.
    Small,
}

/// The second look, at the end of the host's pipeline (`after_optimization`):
/// the partition count of the optimized module's code generation, decided
/// before the host's last passes, which then run on the whole module (only
/// once it is to be split: the host runs them again on a module left
/// whole).
///
/// On a machine whose cores are all busy, a code generation long enough
/// to bet on (`cost_model::waiting_count`) is split as on an idle machine,
/// its partitions run one at a time until a core frees: a build's last
/// large files, whose code generation would otherwise run alone on one
/// core after the others end, take the cores they leave.
fn look_at_code_generation(module: &mut ModuleRef<'_>, run: &PassRun<'_>, split_options: &SplitOptions, sizer: &mut Sizer<'_>) -> CodeGenerationLook {
    let opts = sizer.opts;
    let whole = |model| CodeGenerationLook::Whole(Box::new(model));
    // The host's last passes record a profile's call graph in a module flag
    // that each of their runs adds to. mtpc runs them ahead of the host, and
    // erases what that run recorded if the split then fails
    // (`crate::host`); a module that already has such a flag (IR that went
    // through a pipeline before) would get it twice.
    if module.has_flag(CALL_GRAPH_PROFILE_FLAG) {
        let why = "the module already carries a call graph profile, which the host's last passes would record again";
        return whole(ModelStats { whole_reason: Some(why.into()), ..ModelStats::default() });
    }
    // Most often the cores are still busy, which the one sample the model
    // then decides with shows before the module is read; but a long code
    // generation may be split all the same, its partitions waiting for a
    // core, which the module's facts decide (read for that: about 70 ms on
    // sqlite3's amalgamation).
    let mut busy = None;
    if opts.cost_model && opts.load_aware {
        let load = MachineLoad::sample();
        match load.as_ref().and_then(|load| cost_model::no_lanes_reason(load, sizer.threads).map(|why| (*load, why))) {
            // Sized as on an idle machine, then looked at again below; only
            // where a core may free (other work, on a machine of two or more).
            Some((load, why)) if opts.wait_for_cores && load.busy > 0 && load.cores.min(sizer.threads) >= 2 => {
                busy = Some((load, why));
                sizer.load = LoadSample::Taken(None);
            }
            Some((load, why)) => return whole(ModelStats { load: Some(load), lanes: Some(1), whole_reason: Some(why), ..ModelStats::default() }),
            None => sizer.load = LoadSample::Taken(load),
        }
    }
    let mut count = split::sized_count(module, split_options, |facts, largest, requested| sizer.size(facts, largest, requested));
    // A module that would not be split on an idle machine either is left
    // whole below, for the model's reason.
    let busy = busy.filter(|_| count >= 2);
    let waits = busy.is_some();
    if let Some((load, why)) = busy {
        let mut model = sizer.model.take().unwrap_or_default();
        (model.load, model.lanes) = (Some(load), Some(1));
        match model.shape.as_ref().map(|shape| cost_model::waiting_count(shape, count)) {
            Some(Ok(waiting)) => count = waiting,
            Some(Err(not)) => return whole(ModelStats { whole_reason: Some(format!("{why}, and {not}")), ..model }),
            None => return whole(ModelStats { whole_reason: Some(why), ..model }),
        }
        log::debug!("every core is busy: the code generation is split all the same, its partitions after the first waiting for a core to free");
        sizer.model = Some(model);
    }
    if count < 2 {
        return match sizer.model.take() {
            Some(model) if model.whole_reason.is_some() => whole(model),
            _ => CodeGenerationLook::Small,
        };
    }
    if !run.finish_host_pipeline(opts.level, opts.phase) {
        let why = "the host's pipeline ends with passes mtpc cannot run ahead of it (global DCE, constant merging, the call graph \
                   profile and relative lookup tables, which the host then runs again, and last the annotation remarks, which the \
                   partitions run, are all it can)";
        return whole(ModelStats { whole_reason: Some(why.into()), ..sizer.model.take().unwrap_or_default() });
    }
    CodeGenerationLook::Split { count, waits }
}

pub enum Outcome {
    /// The module now holds the merged assembly.
    Parallel(ModuleStats),
    /// The module is small (or has one unit): left to the host untouched.
    NotSplit,
    /// The cost model expects no gain from splitting: left to the host
    /// untouched (the stats say why).
    Whole(ModuleStats),
    /// Something failed: the module is untouched and compiled whole.
    Fallback(ModuleStats),
    /// A partition failed because the module itself fails LLVM's verifier
    /// (as some of clang's output does, e.g. with -gembed-source): compiled
    /// whole, as the host would anyway.
    InvalidInput(ModuleStats),
}

/// What a partition's code generator wrote, with what the merge reads of
/// it first (on the partition's worker).
enum PartWritten {
    Text { asm: Vec<u8>, scan: PartScan },
    Object { object: Vec<u8>, facts: PartFacts },
}

/// A compiled partition.
struct PartitionResult {
    written: PartWritten,
    diagnostics: PartitionDiagnostics,
    build_ms: f64,
    opt_ms: f64,
    codegen_ms: f64,
    jobs_unix_ms: [[f64; 2]; 2],
    /// Shared C++ classes its unit declares, and describes in full (`stats`).
    classes_declared: usize,
    classes_described: usize,
}

pub fn run(module: &mut ModuleRef<'_>, run: &PassRun<'_>, host: &Arc<HostSettings>, opts: &ParallelOptions) -> Result<Outcome, String> {
    let (start, start_unix_ms) = (Instant::now(), crate::stats::unix_ms());
    let module_name = module.source_filename();
    let _whole = Span::begin("mtpc-parallel", &module_name);
    let split_span = Span::begin("mtpc split", &module_name);
    let pool = crate::worker::pool()?;
    let threads = opts.threads.unwrap_or(pool.size()).min(pool.size()).max(1);
    let split_options = SplitOptions {
        partitions: Some(opts.partitions.unwrap_or(threads as u32).max(1)),
        min_size: opts.min_size,
        work: if opts.after_optimization { PartitionWork::GenerateCode } else { PartitionWork::OptimizeAndGenerateCode },
        ..SplitOptions::default()
    };
    // Left whole by the cost model: the host compiles the module as usual.
    let whole = |model: ModelStats, instructions: u64| {
        let elapsed = ms(start);
        let model = Some(model);
        Outcome::Whole(ModuleStats {
            module: module_name.clone(),
            partitions: 1,
            threads,
            instructions,
            split_ms: elapsed,
            start_unix_ms,
            wall_ms: elapsed,
            model,
            code_generation_only: opts.after_optimization,
            ..ModuleStats::default()
        })
    };
    // Settings under which no module gains are known before reading it.
    let compile = Compile { optimized: opts.level != OptLevel::O0, debug_info: module.has_debug_info(), after_optimization: opts.after_optimization };
    if let Some(why) = (opts.cost_model && threads > 1).then(|| cost_model::never_pays(compile, threads)).flatten() {
        return Ok(whole(ModelStats { whole_reason: Some(why), ..ModelStats::default() }, 0));
    }
    // Full LTO: type tests need every function of a type; lowered now, on the
    // whole module, before it is read (a no-op in other phases).
    run.lower_type_tests_whole();
    // Who writes the object, and so what each partition writes: an object
    // where the host is handed the parts' objects transcribed, unless a
    // part's object could hold what a transcript cannot state.
    // Chosen once the model asks (a bad MTPC_WRITE_OBJECT warns once).
    let host_facts = host.facts();
    let chosen_writer = once_cell::unsync::OnceCell::new();
    let writer = || {
        *chosen_writer.get_or_init(|| {
            object_writer::choose_here(&host_facts, opts.phase).unwrap_or_else(|e| {
                log::warn!("{e}");
                ObjectWriter::Host
            })
        })
    };
    let module_asm = module.module_asm();
    let linker_directives = module.has_named_metadata("llvm.dependent-libraries") || module.has_named_metadata("llvm.linker.options");
    let part_output = |facts: &ModuleFacts, partitions: u32| {
        let outline = object_writer::ModuleOutline { facts, module_asm: &module_asm, linker_directives };
        object_writer::part_output(writer(), &outline, &host_facts.command_line, partitions)
    };
    // The cost model sizes the plan (to 1: whole) unless the user did.
    let mut sizer = Sizer { opts, threads, compile, part_output: &part_output, load: LoadSample::NotYet, model: None };
    // Serialized once the module is known to be split: the partitions are
    // read from it, and promoted names carry its digest.
    let (planned, waits_for_cores) = if opts.after_optimization {
        let (count, waits) = match look_at_code_generation(module, run, &split_options, &mut sizer) {
            CodeGenerationLook::Split { count, waits } => (count, waits),
            CodeGenerationLook::Whole(model) => return Ok(whole(*model, 0)),
            CodeGenerationLook::Small => return Ok(Outcome::NotSplit),
        };
        // The count decided stands, whatever the host's last passes removed.
        let decided = SplitOptions { partitions: Some(count), min_size: 0, ..split_options };
        (split::plan_module_sized(module, &decided, |_, _, requested| requested, split::Serialize::IfSplit), waits)
    } else {
        (split::plan_module_sized(module, &split_options, |facts, largest, requested| sizer.size(facts, largest, requested), split::Serialize::IfSplit), false)
    };
    let (plan, bitcode) = planned.map_err(|e| e.to_string())?;
    let model = sizer.model;
    let partitions = plan.partitions.partitions;
    let largest_unit = plan.partitions.largest_unit;
    if let Some(why) = (partitions > 1).then(|| crate::decline::plan_reason(&plan.facts, &plan.symbols)).flatten() {
        let model = ModelStats { whole_reason: Some(why), ..model.unwrap_or_default() };
        return Ok(whole(model, plan.facts.total_instructions()));
    }
    if partitions < 2 {
        let instructions = plan.facts.total_instructions();
        return Ok(match model {
            Some(model) if model.whole_reason.is_some() => whole(model, instructions),
            // Planned for 2 or more before the host's last passes ran (which
            // the host now runs again): said why.
            model if opts.after_optimization => {
                let why = "once the host's last passes ran, the plan found one unit to compile".to_string();
                whole(ModelStats { whole_reason: Some(why), ..model.unwrap_or_default() }, instructions)
            }
            _ => Outcome::NotSplit,
        });
    }
    let mut parts: Vec<PartitionStats> = (0..partitions)
        .map(|k| PartitionStats {
            index: k,
            functions: 0,
            instructions: plan.partitions.cost[k as usize],
            held_instructions: plan.symbols.bodies_held(&plan.facts, k),
            planned_instructions: plan.partitions.planned[k as usize],
            build_ms: 0.0,
            opt_ms: 0.0,
            codegen_ms: 0.0,
            segment_ms: 0.0,
            check_ms: 0.0,
            jobs_unix_ms: [[0.0; 2]; 2],
            classes_declared: 0,
            classes_described: 0,
        })
        .collect();
    for (i, g) in plan.facts.globals.iter().enumerate() {
        if let (true, Some(p)) = (g.is_function(), plan.partitions.owner[i]) {
            parts[p as usize].functions += 1;
        }
    }
    log::debug!("planned and serialized after {:.1} ms", ms(start));
    let t = Instant::now();
    let mut routing = DiagnosticRouting::new(&plan.facts, &plan.symbols);
    log::debug!("diagnostic routing in {:.1} ms", ms(t));
    let bitcode = bitcode.expect("serialized for a module that is split");
    let input = Arc::new(SplitInput { bitcode, facts: plan.facts, plan: plan.symbols });
    let parts_write = part_output(&input.facts, partitions).unwrap_or_else(|why| {
        log::debug!("{module_name}: the partitions print assembly: {why}");
        PartOutput::Assembly
    });
    // Every partition numbers the module's source files alike; the merge
    // of texts writes their table.
    let t = Instant::now();
    let files = DebugFiles::collect(module);
    let file_table = match parts_write {
        PartOutput::Assembly => Some(files.table(host).ok_or("the host's target has no assembly printer")?),
        PartOutput::Object => None,
    };
    log::debug!("source files in {:.1} ms", ms(t));
    // Each partition's pipeline, from the host's PassBuilder, on this thread.
    let t = Instant::now();
    // A partition whose functions neither throw nor ask for unwind tables
    // would put its call frame information in .debug_frame, which a text's
    // `.cfi_sections` line then asks of the whole merged object.
    let unwind_tables = module.needs_unwind_tables();
    let pipeline = match opts.after_optimization {
        true => PartitionPipeline::CodeGenerationOnly,
        false => PartitionPipeline::Host(opts.level, opts.phase),
    };
    let environment = run.environment(host, &files, pipeline, (host_facts.output(), parts_write), unwind_tables);
    let mut kits = (0..partitions).map(|_| environment.build_kit().map(Some)).collect::<Result<Vec<_>, String>>()?;
    log::debug!("{partitions} pipelines built in {:.1} ms", ms(t));
    // What the front end and the split freed, which the workers would not
    // reuse, now; what the partitions and the join free, which the host's
    // assembly would not, when this is dropped, at the end of the pass.
    let _memory_return = pool.return_memory_around_partitions();
    let split_ms = ms(start);
    drop(split_span);

    // The partitions carry the host module's identifier: what instrumentation
    // names the module by (a sanitizer's report) is the host's.
    let identifier = Arc::new(run.module_identifier());
    let order = input.plan.largest_first(&input.facts);
    let members = Arc::new(input.plan.odr_members_by_name(&input.facts));
    let mut emitters = EmitterChoice::new(&order, (0..partitions).map(|k| input.plan.odr_members_held(k)).collect());
    let injected = Arc::new(Injected::from_env());
    let failed = Arc::new(AtomicBool::new(false));
    // AddressSanitizer's brackets of global constructors: what the
    // partitions' ASan describes is known when every one is optimized.
    let asan_initializers = crate::ir::llvm_version::MAJOR < 22
        && !opts.after_optimization
        && asan_may_bracket_initializers(module, &host_facts.command_line);
    let own_constructors: Arc<Vec<String>> = Arc::new(input.facts.constructor_names());
    let mut described_dynamic_init = false;
    // And ASan's module constructor, which registers the object's globals
    // from some partitions only, known when every one is optimized.
    let asan_registration = !opts.after_optimization && asan_constructors_may_differ(&host_facts.command_line);
    let mut registers_globals = false;
    // Each partition's two jobs, in the order they are numbered.
    let mut job_partition: Vec<u32> = order.clone();
    let first_jobs: Vec<PartitionJob> = order
        .iter()
        .map(|&k| {
            let kit = kits[k as usize].take().expect("one kit per partition");
            let (input, identifier, members) = (input.clone(), identifier.clone(), members.clone());
            let own_constructors = own_constructors.clone();
            let (injected, failed) = (injected.clone(), failed.clone());
            Box::new(move || {
                if failed.load(Ordering::Relaxed) {
                    return Ok(Step::Skipped);
                }
                let asan = AsanQuestions {
                    initializers: asan_initializers.then_some(&own_constructors[..]),
                    registration: asan_registration,
                };
                optimize_partition(k, kit, &input, &identifier, &members, &injected, asan)
            }) as PartitionJob
        })
        .collect();
    let mut optimized: Vec<Option<Optimized>> = (0..partitions).map(|_| None).collect();
    let mut outcomes: Vec<Option<Result<Step, String>>> = (0..partitions).map(|_| None).collect();
    let partitions_started = Instant::now();
    // On a busy machine, one partition at a time until a core frees.
    let mut freed = FreedCore::default();
    let mut one_more = |tasks: &[PathBuf], jobs: usize| freed.look(MachineLoad::glance_besides(tasks), jobs, Instant::now());
    let limit = match waits_for_cores {
        true => Limit::Growing { max: threads, poll: FreedCore::POLL, more: &mut one_more },
        false => Limit::Fixed(threads),
    };
    pool.run_dynamic(first_jobs, limit, |job, result| {
        let k = job_partition[job];
        let mut result = match result {
            Ok(Step::Optimized(o)) => o,
            other => {
                if matches!(other, Err(_) | Ok(Step::Invalid(_))) {
                    failed.store(true, Ordering::Relaxed);
                }
                outcomes[k as usize] = Some(other);
                return Vec::new();
            }
        };
        if failed.load(Ordering::Relaxed) {
            return Vec::new();
        }
        let (kept, classes) = (std::mem::take(&mut result.kept), std::mem::take(&mut result.classes));
        described_dynamic_init |= result.describes_dynamic_init;
        registers_globals |= result.asan_constructor_registers == Some(true);
        if result.constructors_to_bracket || result.asan_constructor_registers == Some(false) {
            // What its constructors become depends on every partition's ASan.
            emitters.wait_for_every_optimization(k);
        }
        optimized[k as usize] = Some(result);
        // Code generation of every partition whose emitters are known now.
        emitters
            .optimized(k, kept, classes)
            .into_iter()
            .map(|r| {
                job_partition.push(r);
                let o = optimized[r as usize].take().expect("released once, after its optimization");
                let (members, injected) = (members.clone(), injected.clone());
                let classes = emitters.reaches_classes(r).then(|| emitters.described_elsewhere(r));
                let brackets = described_dynamic_init.then(|| own_constructors.clone());
                let elsewhere =
                    Elsewhere { members: emitters.emitted_elsewhere(r), classes, brackets, registers_globals };
                Box::new(move || compile_partition(r, o, &members, &elsewhere, parts_write, &injected)) as PartitionJob
            })
            .collect()
    });
    drop(optimized);
    let partitions_ms = ms(partitions_started);

    let mut stats = ModuleStats {
        module: module_name,
        partitions,
        threads,
        instructions: input.facts.total_instructions(),
        fallback: false,
        fallback_reason: None,
        split_ms,
        partitions_ms,
        merge_ms: 0.0,
        merge_segments_ms: 0.0,
        check_ms: 0.0,
        object_by_mtpc: false,
        object_from_parts: false,
        transcript_check_ms: 0.0,
        start_unix_ms,
        wall_ms: 0.0,
        work_ms: 0.0,
        asm_bytes: 0,
        model: model.map(|model| ModelStats { waits_for_cores, ..model }),
        code_generation_only: opts.after_optimization,
        largest_unit,
        parts,
    };
    let mut written = Vec::with_capacity(partitions as usize);
    let mut diagnostics = Vec::with_capacity(partitions as usize);
    let (mut failure, mut invalid) = (None, false);
    for (k, outcome) in outcomes.into_iter().enumerate() {
        let k = k as u32;
        match outcome {
            Some(Ok(Step::Compiled(r))) => {
                let p = &mut stats.parts[k as usize];
                (p.build_ms, p.opt_ms, p.codegen_ms) = (r.build_ms, r.opt_ms, r.codegen_ms);
                p.jobs_unix_ms = r.jobs_unix_ms;
                (p.classes_declared, p.classes_described) = (r.classes_declared as u64, r.classes_described as u64);
                stats.work_ms += r.build_ms + r.opt_ms + r.codegen_ms;
                written.push(r.written);
                diagnostics.push((k, r.diagnostics));
            }
            Some(Ok(Step::Invalid(e))) => {
                invalid = true;
                failure.get_or_insert(format!("partition {k} failed: {e}"));
            }
            Some(Err(e)) => {
                failure.get_or_insert(format!("partition {k} failed: {e}"));
            }
            Some(Ok(Step::Skipped | Step::Optimized(_))) | None => {}
        }
    }
    if failure.is_none() && written.len() != partitions as usize {
        failure = Some("a partition was never compiled (an internal error)".into());
    }
    let fallback = |mut stats: ModuleStats, reason: String| {
        stats.fallback = true;
        stats.fallback_reason = Some(reason);
        stats.wall_ms = ms(start);
        Ok(Outcome::Fallback(stats))
    };
    if let Some(reason) = failure {
        // A partition of an invalid module is invalid: the module is the
        // host's to report on.
        if invalid {
            if let Err(problem) = module.verify() {
                let first = problem.lines().next().unwrap_or("").to_string();
                stats.fallback = true;
                stats.fallback_reason = Some(format!("the module fails LLVM's verifier ({first})"));
                stats.wall_ms = ms(start);
                return Ok(Outcome::InvalidInput(stats));
            }
        }
        return fallback(stats, reason);
    }
    let on_pool = OnPool { pool, host, threads };
    let host_text = match parts_write {
        PartOutput::Object => {
            let (objects, facts) = written
                .into_iter()
                .map(|w| match w {
                    PartWritten::Object { object, facts } => (object, facts),
                    PartWritten::Text { .. } => unreachable!("every partition of this module writes an object"),
                })
                .unzip();
            // Made local again where the parts' objects meet (`object_merge`).
            let promoted = input.plan.promoted_locals(&input.facts);
            match join_objects(&on_pool, objects, facts, &promoted, &injected, &mut stats) {
                Ok(transcript) => {
                    log::debug!("{}: the host assembles the parts' objects: a transcript of {} bytes with {} reads from files",
                                stats.module, transcript.text.len(), transcript.files_read);
                    HostText::Transcript(transcript)
                }
                Err(e) => return fallback(stats, format!("the partitions' objects cannot be joined: {e}")),
            }
        }
        PartOutput::Assembly => {
            let (texts, scans) = written
                .into_iter()
                .map(|w| match w {
                    PartWritten::Text { asm, scan } => (asm, scan),
                    PartWritten::Object { .. } => unreachable!("every partition of this module prints assembly"),
                })
                .unzip();
            let file_table = file_table.expect("a table for partitions that print assembly");
            // Made local again where the parts' texts meet (`asm_merge`).
            let promoted = input.plan.promoted_locals(&input.facts);
            let texts = PartTexts { texts, scans, file_table, promoted };
            match merge_and_check(&on_pool, run, texts, module, writer().for_text(), &mut stats) {
                Ok(host_text) => host_text,
                Err(e) => return fallback(stats, e),
            }
        }
    };
    stats.object_by_mtpc = matches!(host_text, HostText::Object(..));
    if let HostText::Transcript(transcript) = &host_text {
        stats.object_from_parts = true;
        stats.transcript_check_ms = transcript.check_ms;
    }
    // What the optimizer reported, then what the code generator reported:
    // the order of one module's compile.
    for (k, found) in &diagnostics {
        for i in 0..found.len() {
            routing.note(*k, &found.function(i));
        }
    }
    for code_generator in [false, true] {
        for (k, found) in &mut diagnostics {
            for i in 0..found.len() {
                if found.from_code_generator(i) != code_generator
                    || found.unavailable_callee(i).is_some_and(|callee| routing.defines(&callee))
                {
                    continue;
                }
                let Some(function) = routing.route(*k, &found.function(i), || found.identity(i)).map(Cow::into_owned) else {
                    continue;
                };
                // What it names, as the host's module names it.
                found.rename_values(i, |value| routing.host_name(value));
                found.reemit(i, module, &function);
            }
        }
    }
    module.replace_with_asm(match &host_text {
        HostText::Transcript(transcript) => &transcript.text,
        HostText::Merged(merged) | HostText::Object(merged, ..) => &merged.text,
    });
    run.commit();
    match host_text {
        HostText::Transcript(transcript) => MemoryFile::hand_to_host(transcript.files),
        HostText::Object(_, object, frame) => run.offer_object(host, object, &frame),
        HostText::Merged(_) => {}
    }
    stats.wall_ms = ms(start);
    Ok(Outcome::Parallel(stats))
}

/// The test-only failures the environment asks for (see the constants).
struct Injected {
    fail: Option<u32>,
    break_ir: Option<u32>,
    break_asm: Option<u32>,
}

impl Injected {
    fn from_env() -> Injected {
        Injected {
            fail: injected_partition(FAIL_INJECTION_VAR),
            break_ir: injected_partition(BREAK_INJECTION_VAR),
            break_asm: injected_partition(BREAK_ASM_INJECTION_VAR),
        }
    }
}

type PartitionJob = Box<dyn FnOnce() -> Result<Step, String> + Send>;

/// How one of a partition's two jobs ends, short of failing.
enum Step {
    /// Built and optimized; waits for its code generation.
    Optimized(Optimized),
    /// The partition fails LLVM's verifier (what it says).
    Invalid(String),
    Compiled(PartitionResult),
    /// Not started: another partition failed, and the module is compiled whole.
    Skipped,
}

/// An optimized partition, and what its code generation needs.
struct Optimized {
    module: PartitionModule,
    kit: PartitionKit,
    /// The members of copied groups it still defines, until they are
    /// handed to the emitter choice.
    kept: BTreeSet<u32>,
    /// The shared C++ classes its debug information reaches (ODR
    /// identifiers; `shim/debug_types.cpp`), until they are handed to the
    /// emitter choice.
    classes: Vec<String>,
    /// Its AddressSanitizer described a dynamically initialized global
    /// (`ModuleRef::asan_describes_dynamic_init`).
    describes_dynamic_init: bool,
    /// Its pipeline made global constructors that ASan did not bracket
    /// (SanitizerCoverage's): whether they are bracketed depends on every
    /// partition's ASan.
    constructors_to_bracket: bool,
    /// Its ASan's module constructor registers the object's globals, or
    /// not (`ModuleRef::asan_constructor_registers`; asked only where
    /// [`asan_constructors_may_differ`]).
    asan_constructor_registers: Option<bool>,
    build_ms: f64,
    opt_ms: f64,
    /// When the first job started and ended (Unix time, ms).
    job_unix_ms: [f64; 2],
}

/// What partition `k` is asked of its AddressSanitizer once optimized, so
/// that the constructors ASan gives every partition agree.
#[derive(Clone, Copy)]
struct AsanQuestions<'a> {
    /// Where ASan (LLVM 16 and 19) may bracket the global constructors: the
    /// module's own, which mtpc leaves as they are.
    initializers: Option<&'a [String]>,
    /// Whether its module constructor registers the object's globals
    /// ([`asan_constructors_may_differ`]).
    registration: bool,
}

/// The first job of partition `k`: builds it in a context of its own,
/// verifies it and optimizes it with `kit`.
fn optimize_partition(
    k: u32,
    mut kit: PartitionKit,
    input: &Arc<SplitInput>,
    identifier: &str,
    members: &HashMap<String, u32>,
    injected: &Injected,
    asan: AsanQuestions<'_>,
) -> Result<Step, String> {
    let (t, start_unix_ms) = (Instant::now(), crate::stats::unix_ms());
    let label = format!("partition {k}");
    let _span = Span::begin("mtpc partition", &label);
    let ctx = OwnedContext::new();
    kit.adopt_context(&ctx);
    let build_span = Span::begin("mtpc build", &label);
    // Why a partition was not built: it fails the verifier, or an error.
    enum NotBuilt {
        Invalid(String),
        Error(String),
    }
    let built = PartitionModule::build(ctx, input.clone(), |ctx, input| {
        let t = Instant::now();
        let mut m = partition_builder::build(ctx, input, k, identifier).map_err(NotBuilt::Error)?;
        if injected.break_ir == Some(k) {
            break_for_test(&m.as_module());
        }
        let read_ms = ms(t);
        let t = Instant::now();
        if let Err(e) = m.as_module().verify() {
            return Err(NotBuilt::Invalid(format!("{label}: partition fails the verifier: {e}")));
        }
        log::debug!("{label}: read and edited in {read_ms:.1} ms, verified in {:.1} ms", ms(t));
        Ok(m)
    });
    let mut module = match built {
        Ok(m) => m,
        Err(NotBuilt::Invalid(invalid)) => return Ok(Step::Invalid(invalid)),
        Err(NotBuilt::Error(error)) => return Err(error),
    };
    drop(build_span);
    let build_ms = ms(t);
    if injected.fail == Some(k) {
        panic!("failure injected by {FAIL_INJECTION_VAR}={k}");
    }
    let (plan, facts) = (&input.plan, &input.facts);
    let copies = module.as_module().copies_debug_info(&plan.copies_made(k, facts), &plan.constant_copies(k, facts));
    let opt_ms = kit.optimize(&mut module.as_module(), &label).map_err(|e| format!("{label}: {e}"))?;
    copies.apply(&mut module.as_module());
    let renamed = input.plan.promoted_local_variables(&input.facts);
    if !renamed.is_empty() {
        module.as_module().restore_sanitized_local_names(&renamed);
    }
    let (describes_dynamic_init, constructors_to_bracket) = match asan.initializers {
        Some(own) => {
            let m = module.as_module();
            (m.asan_describes_dynamic_init(), m.unbracketed_dynamic_initializers(own) > 0)
        }
        None => (false, false),
    };
    let asan_constructor_registers = asan.registration.then(|| module.as_module().asan_constructor_registers()).flatten();
    let kept = odr_copies::kept_members(&module.as_module(), members);
    let classes = if module.as_module().has_debug_info() { module.shared_class_types() } else { Vec::new() };
    let job_unix_ms = [start_unix_ms, crate::stats::unix_ms()];
    Ok(Step::Optimized(Optimized {
        module,
        kit,
        kept,
        classes,
        describes_dynamic_init,
        constructors_to_bracket,
        asan_constructor_registers,
        build_ms,
        opt_ms,
        job_unix_ms,
    }))
}

/// What partitions that started before partition `k` emit and describe of
/// what `k` holds (`odr_copies::EmitterChoice`), and what the partitions'
/// AddressSanitizer made that `k`'s constructors must agree with.
struct Elsewhere {
    /// Members of copied groups (global indices) another partition emits.
    members: BTreeSet<u32>,
    /// Shared C++ classes (ODR identifiers) another partition describes,
    /// if `k` reaches any (`None` if it reaches none).
    classes: Option<Vec<String>>,
    /// Another partition's AddressSanitizer described a dynamically
    /// initialized global: the global constructors `k`'s pipeline created
    /// are bracketed as the whole module's (not the module's own, named
    /// here; `ModuleRef::bracket_dynamic_initializers`).
    brackets: Option<Arc<Vec<String>>>,
    /// Some partition's ASan module constructor registers the object's
    /// globals (final where `k`'s does not: `k` then waited for every
    /// partition's optimization): `k`'s, which does not, goes, and the
    /// merge keeps the other's copy of the group
    /// (`ModuleRef::drop_asan_constructor`).
    registers_globals: bool,
}

/// May the partitions' AddressSanitizer module constructors differ? With
/// `-fsanitize-address-globals-dead-stripping` (not clang 16's default),
/// LLVM 16's ASan registers the object's globals from a module that has
/// some only, in a constructor of one COMDAT group in every partition: the
/// merge would refuse the two kinds of copies. (19's and 22's register from
/// every module.)
fn asan_constructors_may_differ(command_line: &[String]) -> bool {
    crate::ir::llvm_version::MAJOR < 19
        && crate::ir::host_pipeline::sanitizers(command_line).any(|k| k == "address")
        && command_line.iter().any(|a| a == "-fsanitize-address-globals-dead-stripping")
}

/// May the host's AddressSanitizer bracket the whole module's global
/// constructors? `-fsanitize=address`, neither `-asan-initialization-order`
/// nor `-asan-globals` off, and a global clang asks it to treat as
/// dynamically initialized; whether ASan (LLVM 16 and 19) does so depends
/// on whether it instruments that global, known after the partitions'
/// pipelines. (LLVM 22's brackets them in every module, each partition's
/// too.)
fn asan_may_bracket_initializers(module: &ModuleRef<'_>, command_line: &[String]) -> bool {
    let off = |option: &str| {
        command_line.iter().any(|a| a.strip_prefix(option).is_some_and(|v| matches!(v, "=0" | "=false")))
    };
    crate::ir::host_pipeline::sanitizers(command_line).any(|k| k == "address")
        && !off("-asan-initialization-order")
        && !off("-asan-globals")
        && module.has_asan_dynamic_init()
}

/// The second job of partition `k`: its copies of what another partition
/// emits become declarations, so do its descriptions of classes another one
/// describes, and the rest is compiled to assembly or to an object (`parts`),
/// which is read for what the merge needs of it first.
fn compile_partition(
    k: u32,
    o: Optimized,
    members: &HashMap<String, u32>,
    elsewhere: &Elsewhere,
    parts: PartOutput,
    injected: &Injected,
) -> Result<Step, String> {
    let label = format!("partition {k}");
    let _span = Span::begin("mtpc partition", &label);
    let start_unix_ms = crate::stats::unix_ms();
    let Optimized { mut module, kit, build_ms, opt_ms, job_unix_ms, asan_constructor_registers, .. } = o;
    // Before any copy is dropped: what the module reaches now is what the
    // choice of who describes each class was made on.
    let (classes_declared, classes_described) = match &elsewhere.classes {
        Some(classes) => {
            let names: Vec<&str> = classes.iter().map(String::as_str).collect();
            module.describe_shared_class_types(&names)
        }
        None => (0, 0),
    };
    if let Some(own) = &elsewhere.brackets {
        let bracketed = module.as_module().bracket_dynamic_initializers(own);
        log::debug!("{label}: {bracketed} global constructors bracketed for AddressSanitizer's initialization order checks");
    }
    if elsewhere.registers_globals && asan_constructor_registers == Some(false) {
        let dropped = module.as_module().drop_asan_constructor();
        log::debug!("{label}: AddressSanitizer's module constructor, which registers no globals, dropped: {dropped}");
    }
    odr_copies::declare_emitted_elsewhere(&mut module.as_module(), members, &elsewhere.members);
    // The call graph profile its pipeline recorded (where functions carry
    // profile counts) names its copies of functions another partition
    // emits: those edges are that partition's to write.
    if module.as_module().has_flag(CALL_GRAPH_PROFILE_FLAG) {
        let edges = module.as_module().keep_call_graph_profile_of_definitions().map_err(|e| format!("{label}: {e}"))?;
        log::trace!("{label}: {edges} edges of the call graph profile, from the functions it emits");
    }
    let mut compiled = kit.codegen(&module.as_module(), &label).map_err(|e| format!("{label}: {e}"))?;
    if let Some(error) = module.context().errors().into_iter().next() {
        return Err(format!("{label}: LLVM reported an error: {error}"));
    }
    let (scan_span, t) = (Span::begin("mtpc scan", &label), Instant::now());
    let written = match parts {
        PartOutput::Assembly => {
            if injected.break_asm == Some(k) {
                compiled.output.extend_from_slice(b"\tnot_an_instruction %eax\n");
            }
            crate::asm_merge::write_assignments_as_set(&mut compiled.output);
            let scan = PartScan::of_bytes(&compiled.output);
            PartWritten::Text { asm: compiled.output, scan }
        }
        PartOutput::Object => {
            let facts = PartFacts::read(&compiled.output).map_err(|e| format!("{label}: {e}"))?;
            PartWritten::Object { object: compiled.output, facts }
        }
    };
    let scan_ms = ms(t);
    drop(scan_span);
    Ok(Step::Compiled(PartitionResult {
        written,
        diagnostics: compiled.diagnostics,
        build_ms,
        opt_ms,
        codegen_ms: compiled.codegen_ms + scan_ms,
        jobs_unix_ms: [job_unix_ms, [start_unix_ms, crate::stats::unix_ms()]],
        classes_declared,
        classes_described,
    }))
}

/// Whether a transcript that reads from files `files_read` times (a
/// section, or a piece of one: `.incbin` lines) is
/// within [`object_transcript::MAX_FILES_READ`].
fn within_files_read_cap(files_read: usize) -> Result<(), String> {
    match files_read {
        n if n > object_transcript::MAX_FILES_READ => {
            Err(format!("its transcript would read from files {n} times (at most {})", object_transcript::MAX_FILES_READ))
        }
        _ => Ok(()),
    }
}

/// What the host is handed for a module that was split.
enum HostText {
    /// The merged text, which the host assembles.
    Merged(Arc<Merged<Vec<u8>>>),
    /// The merged text, and the object mtpc assembled from it, which the
    /// host's callback writes.
    Object(Arc<Merged<Vec<u8>>>, AssembledObject, ObjectFrame),
    /// The parts' objects, transcribed.
    Transcript(PartsTranscript),
}

/// The transcript of the parts' objects, the files it reads them from,
/// how many sections it reads, and how long the check of what the parts'
/// transcripts say of the same names and sections took on the host's
/// thread.
struct PartsTranscript {
    text: Vec<u8>,
    files: Vec<MemoryFile>,
    files_read: usize,
    check_ms: f64,
}

/// Joins the parts' objects into what the host is handed
/// (`object_merge`, `object_transcript`): decides on this thread what each
/// part's transcript leaves out, renames and reads from the pools of debug
/// strings ([`object_merge::decide`]); transcribes and checks each part on
/// the pool ([`transcribe_parts`]); checks on this thread what the parts'
/// transcripts say of the same names and sections; and joins them, the
/// pools first. `promoted`: the module's locals the split promoted, by
/// promoted name (see `object_merge`). Records the times in
/// `stats`; `Err` says why the parts cannot be joined.
fn join_objects(
    on_pool: &OnPool<'_>,
    objects: Vec<Vec<u8>>,
    facts: Vec<PartFacts>,
    promoted: &HashMap<String, String>,
    injected: &Injected,
    stats: &mut ModuleStats,
) -> Result<PartsTranscript, String> {
    // One span for the join, as the merge of texts has (the decisions
    // alone take a millisecond or two, shorter than a trace may show).
    let _span = Span::begin("mtpc merge", &stats.module);
    let t = Instant::now();
    let decisions = object_merge::decide(&objects.iter().map(Vec::as_slice).collect::<Vec<_>>(), &facts, promoted)?;
    let pools_file = match decisions.pools.is_empty() {
        true => None,
        false => Some(MemoryFile::with_bytes(&decisions.pools.bytes())?),
    };
    // A part without the table says every symbol of it is significant,
    // which a table for the others would not say.
    let address_significance = match facts.iter().filter(|f| f.has_address_significance()).count() {
        0 => false,
        n if n == facts.len() => true,
        _ => return Err("some parts' objects have an address-significance table, others none".into()),
    };
    stats.merge_ms = ms(t);

    let t = Instant::now();
    let check_span = Span::begin("mtpc check", "parts' objects");
    let pools_text = pools_file.as_ref().map(|file| decisions.pools.text(&file.path())).unwrap_or_default();
    let pools_read = if pools_file.is_some() { decisions.pools.files_read() } else { 0 };
    let transcribed = transcribe_parts(on_pool, objects, decisions, address_significance, injected.break_asm);
    let (mut transcripts, mut files) = (Vec::with_capacity(transcribed.len()), Vec::with_capacity(transcribed.len() + 1));
    for (k, result) in transcribed.into_iter().enumerate() {
        let (check_ms, transcript, file) = result?;
        stats.parts[k].check_ms = check_ms;
        transcripts.push(transcript);
        files.push(file);
    }
    let files_read = transcripts.iter().map(|t| t.files_read).sum::<usize>() + pools_read;
    within_files_read_cap(files_read)?;
    // Each part's transcript assembled alone; where they meet, only what
    // they say of the same names and sections can clash.
    let across = Instant::now();
    object_transcript::check_across_parts(&transcripts.iter().map(|t| &t.stated).collect::<Vec<_>>())
        .map_err(|e| format!("the parts' transcripts clash: {e}"))?;
    let check_ms = ms(across);
    stats.check_ms = ms(t);
    drop(check_span);

    let length = pools_text.len() + transcripts.iter().map(|t| t.text.len() + t.address_significance.len()).sum::<usize>() + 16;
    let mut text = Vec::with_capacity(length);
    text.extend_from_slice(pools_text.as_bytes());
    for transcript in &transcripts {
        text.extend_from_slice(transcript.text.as_bytes());
    }
    if address_significance {
        text.extend_from_slice(b"\t.addrsig\n");
        for transcript in &transcripts {
            text.extend_from_slice(transcript.address_significance.as_bytes());
        }
    }
    stats.asm_bytes = text.len() as u64;
    files.extend(pools_file);
    Ok(PartsTranscript { text, files, files_read, check_ms })
}

/// A part's transcript, how long making and checking it took (ms), and the
/// file in memory it reads its object from.
type TranscribedPart = (f64, object_transcript::Transcript, MemoryFile);

/// On the pool, the longest first: writes each part's object into a file
/// in memory, transcribes it with what the merge decided of it, and
/// assembles the transcript alone, as the host's text will hold it (after
/// what stands for the pools; `break_asm`: the part whose transcript is
/// broken first, as a test asks). The results in part order.
fn transcribe_parts(
    on_pool: &OnPool<'_>,
    objects: Vec<Vec<u8>>,
    decisions: object_merge::Decisions,
    address_significance: bool,
    break_asm: Option<u32>,
) -> Vec<Result<TranscribedPart, String>> {
    let sizes: Vec<usize> = objects.iter().map(Vec::len).collect();
    let stand_in = decisions.pools.stand_in();
    let shared = Arc::new((objects, decisions, stand_in));
    let host = on_pool.host.clone();
    longest_first(on_pool.pool, &sizes, on_pool.threads, move |k| {
        let t = Instant::now();
        let (objects, decisions, stand_in) = &*shared;
        let file = MemoryFile::with_bytes(&objects[k]).map_err(|e| format!("part {k}: {e}"))?;
        let mut transcript = object_transcript::transcribe(&objects[k], &file.path(), k, &decisions.parts[k])
            .and_then(|transcript| within_files_read_cap(transcript.files_read).map(|()| transcript))
            .map_err(|e| format!("part {k}: {e}"))?;
        if break_asm == Some(k as u32) {
            transcript.text.push_str("\tnot_an_instruction %eax\n");
        }
        check_transcript(&host, &transcript, stand_in, address_significance).map_err(|e| format!("part {k}: {e}"))?;
        Ok((ms(t), transcript, file))
    })
}

/// Assembles part `k`'s transcript alone, as the host's text holds it:
/// after what stands for the pools of debug strings (`stand_in`), with its
/// address-significance table if the text has one.
fn check_transcript(host: &HostSettings, transcript: &object_transcript::Transcript, stand_in: &str, address_significance: bool)
    -> Result<(), String> {
    let mut text = String::with_capacity(stand_in.len() + transcript.text.len() + transcript.address_significance.len() + 16);
    text.push_str(stand_in);
    text.push_str(&transcript.text);
    if address_significance {
        text.push_str("\t.addrsig\n");
        text.push_str(&transcript.address_significance);
    }
    host.check_asm(text.as_bytes()).map_err(|e| format!("its transcript does not assemble: {e}"))
}

/// Where the parts' output is joined: on the pool, with this many of its
/// threads, for the host's target.
struct OnPool<'a> {
    pool: &'a crate::worker::Pool,
    host: &'a Arc<HostSettings>,
    threads: usize,
}

/// The partitions' texts, what the merge read of each on its worker, the
/// file table every part numbers its files by, and the module's locals the
/// split promoted.
struct PartTexts {
    texts: Vec<Vec<u8>>,
    scans: Vec<PartScan>,
    file_table: String,
    promoted: Promoted,
}

/// Merges the parts' texts (`asm_merge`) and checks the merged text: by
/// assembling it whole into the object mtpc writes, where the host lets it
/// (`object_writer`), else part by part on the pool. What the host is
/// handed, or why the module is compiled whole; the times in `stats`.
fn merge_and_check(
    on_pool: &OnPool<'_>,
    run: &PassRun<'_>,
    parts: PartTexts,
    module: &ModuleRef<'_>,
    writer: ObjectWriter,
    stats: &mut ModuleStats,
) -> Result<HostText, String> {
    let OnPool { pool, host, threads } = *on_pool;
    let t = Instant::now();
    let merge_span = Span::begin("mtpc merge", &stats.module);
    let directory = module.compile_unit_directory();
    let files = Files { table: Some(&parts.file_table), compile_unit_directory: directory.as_deref() };
    let merged = merge_on_pool(pool, parts.texts, parts.scans, files, &parts.promoted, threads);
    drop(merge_span);
    stats.merge_ms = ms(t);
    let merged = match merged {
        Ok((m, write_ms, phase_ms)) => {
            stats.parts.iter_mut().zip(write_ms).for_each(|(part, ms)| part.segment_ms = ms);
            stats.merge_segments_ms = phase_ms;
            stats.asm_bytes = m.text.len() as u64;
            Arc::new(m)
        }
        Err(e) => return Err(format!("cannot merge the partitions' assembly: {e}")),
    };
    let t = Instant::now();
    let frame = match writer {
        ObjectWriter::Mtpc => run.object_frame(host).map_err(|e| log::debug!("{}: the host assembles the object: {e}", stats.module)).ok(),
        ObjectWriter::Host | ObjectWriter::HostFromParts { .. } => None,
    };
    let checked = match frame {
        Some(frame) => {
            let _span = Span::begin("mtpc assemble", "merged assembly");
            host.assemble_object(&frame.around(&merged.text), ObjectFormat::AsHost).map(|object| HostText::Object(merged.clone(), object, frame))
        }
        None => check_merged_text(pool, host, &merged, threads).map(|by_part| {
            stats.parts.iter_mut().zip(by_part).for_each(|(part, ms)| part.check_ms = ms);
            HostText::Merged(merged.clone())
        }),
    };
    stats.check_ms = ms(t);
    checked.map_err(|e| format!("the merged assembly does not assemble cleanly: {e}"))
}

/// Assembles each part's segment of the merged text, with the file table
/// before it, on the pool: the text the host will assemble, checked in
/// parallel (the merge has checked what the segments share: no symbol is
/// defined twice). Returns how long each part's check took (ms).
fn check_merged_text(pool: &crate::worker::Pool, host: &Arc<HostSettings>, merged: &Arc<Merged<Vec<u8>>>, threads: usize) -> Result<Vec<f64>, String> {
    let _span = Span::begin("mtpc check", "merged assembly");
    for_each_segment(pool, merged, threads, {
        let host = host.clone();
        move |merged: &Merged<Vec<u8>>, k| {
            let t = Instant::now();
            host.check_asm(&merged.segment_with_table(k)).map_err(|e| format!("part {k}: {e}"))?;
            Ok(ms(t))
        }
    })
}

/// The merged text, how long each part's segment took to write, and the
/// wall time of the pool's phase (ms).
type MergedOnPool = (Merged<Vec<u8>>, Vec<f64>, f64);

/// Merges the parts' texts (`asm_merge`): what the merge keeps of each part
/// is decided here, part after part (and which of the module's `promoted`
/// locals are local again); each part's segment is written on the pool,
/// the longest first, and joined here. A text that is not ASCII (the asm
/// printer's comment naming a byte of data, inline assembly, a file name)
/// is merged so too, each byte carried as a char (`TextsToMerge`).
fn merge_on_pool(
    pool: &crate::worker::Pool,
    texts: Vec<Vec<u8>>,
    scans: Vec<PartScan>,
    files: Files<'_>,
    promoted: &Promoted,
    threads: usize,
) -> Result<MergedOnPool, MergeError> {
    let texts = crate::asm_merge::TextsToMerge::new(texts, files);
    let plan = Arc::new(texts.plan(&scans, files, promoted)?);
    let (sizes, carried) = (texts.sizes(), texts.carried());
    let parts = Arc::new((texts, scans));
    let t = Instant::now();
    let written = longest_first(pool, &sizes, threads, {
        let (plan, parts) = (plan.clone(), parts.clone());
        move |k| {
            let t = Instant::now();
            Ok(plan.write_segment(k, parts.0.part(k), &parts.1[k]).map(|segment| (segment, ms(t))))
        }
    });
    let phase_ms = ms(t);
    // The first part's error in writing (every part's decisions were made
    // before any segment was written, and their errors come first).
    let (segments, write_ms): (Vec<String>, Vec<f64>) =
        written.into_iter().map(|w| w.map_err(MergeError).and_then(|w| w)).collect::<Result<Vec<_>, _>>()?.into_iter().unzip();
    // The parts' texts go before the segments are joined, and the segments
    // before the joined text becomes bytes: two copies of the text at most.
    drop(parts);
    let joined = plan.join(&segments);
    drop(segments);
    Ok((carried.into_bytes(joined), write_ms, phase_ms))
}

/// Runs `job` on every part's segment of `merged` on the pool (see
/// [`longest_first`]); the results in part order, or the first part's
/// failure.
fn for_each_segment<T: Send + 'static>(
    pool: &crate::worker::Pool,
    merged: &Arc<Merged<Vec<u8>>>,
    threads: usize,
    job: impl Fn(&Merged<Vec<u8>>, usize) -> Result<T, String> + Clone + Send + 'static,
) -> Result<Vec<T>, String> {
    let sizes: Vec<usize> = merged.segments.iter().map(|segment| segment.len()).collect();
    let merged = merged.clone();
    longest_first(pool, &sizes, threads, move |k| job(&merged, k)).into_iter().collect()
}

/// Runs `job(k)` for every part `k` on the pool, the parts of the largest
/// `sizes` first (so that the last to finish is a short one); the results
/// in part order (a panic is that part's `Err`).
fn longest_first<T: Send + 'static>(
    pool: &crate::worker::Pool,
    sizes: &[usize],
    threads: usize,
    job: impl Fn(usize) -> Result<T, String> + Clone + Send + 'static,
) -> Vec<Result<T, String>> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(sizes[k]));
    let jobs: Vec<_> = order
        .iter()
        .map(|&k| {
            let job = job.clone();
            move || job(k)
        })
        .collect();
    let mut by_part: Vec<Option<Result<T, String>>> = (0..sizes.len()).map(|_| None).collect();
    for (k, result) in order.into_iter().zip(pool.run(jobs, threads)) {
        by_part[k] = Some(result);
    }
    by_part.into_iter().map(|result| result.expect("every part's job reported")).collect()
}
