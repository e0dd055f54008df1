//! The `mtpc-parallel` transformation: split the module, optimize and
//! compile every partition on the worker pool with the host's settings,
//! merge their assembly, and hand the host one module whose only content
//! is that text (module-level asm), which its own code generation
//! assembles into the one object it writes.
//!
//! The host's module is changed only at the very end, once every partition
//! has compiled: if anything fails before (a partition that does not
//! verify, an LLVM error, a panic), the module is left as it was and the
//! host compiles it the normal way.

use std::sync::Arc;
use std::time::Instant;

use crate::ir::time_trace::Span;
use crate::ir::{GlobalKind, HostSettings, ModuleRef, OwnedContext};
use crate::module_facts::Linkage;
use crate::options::{ParallelOptions, SplitOptions};
use crate::partition_builder::{self, SplitInput};
use crate::split;
use crate::stats::{elapsed_ms as ms, ModuleStats, PartitionStats};

/// Test-only: `MTPC_TEST_FAIL_PARTITION=K` makes partition K fail (panic),
/// so that the fallback can be tested on real hosts.
const FAIL_INJECTION_VAR: &str = "MTPC_TEST_FAIL_PARTITION";
/// Test-only: `MTPC_TEST_BREAK_PARTITION=K` leaves partition K's IR invalid
/// (its first function declaration made internal), as a bug in the symbol
/// rules would, so that the verifier's fallback can be tested on real hosts.
const BREAK_INJECTION_VAR: &str = "MTPC_TEST_BREAK_PARTITION";

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

pub enum Outcome {
    /// The module now holds the merged assembly.
    Parallel(ModuleStats),
    /// The module is small (or has one unit): left to the host untouched.
    NotSplit,
    /// Something failed: the module is untouched and compiled whole.
    Fallback(ModuleStats),
}

/// What a partition job returns.
struct PartitionResult {
    asm: Vec<u8>,
    build_ms: f64,
    opt_ms: f64,
    codegen_ms: f64,
    start_unix_ms: f64,
    end_unix_ms: f64,
}

pub fn run(module: &ModuleRef<'_>, host: &Arc<HostSettings>, opts: &ParallelOptions) -> Result<Outcome, String> {
    let start = Instant::now();
    let module_name = module.source_filename();
    let _whole = Span::begin("mtpc-parallel", &module_name);
    let split_span = Span::begin("mtpc split", &module_name);
    let pool = crate::worker::pool()?;
    let threads = opts.threads.unwrap_or(pool.size()).min(pool.size()).max(1);
    let split_options = SplitOptions {
        partitions: Some(opts.partitions.unwrap_or(threads as u32).max(1)),
        min_size: opts.min_size,
        out: None,
    };
    let plan = split::plan_module(module, &split_options).map_err(|e| e.to_string())?;
    let partitions = plan.partitions.partitions;
    if partitions < 2 {
        return Ok(Outcome::NotSplit);
    }
    let mut parts: Vec<PartitionStats> = (0..partitions)
        .map(|k| PartitionStats {
            index: k,
            functions: 0,
            instructions: plan.partitions.cost[k as usize],
            build_ms: 0.0,
            opt_ms: 0.0,
            codegen_ms: 0.0,
            start_unix_ms: 0.0,
            end_unix_ms: 0.0,
        })
        .collect();
    for (i, g) in plan.facts.globals.iter().enumerate() {
        if let (true, Some(p)) = (g.is_function(), plan.partitions.owner[i]) {
            parts[p as usize].functions += 1;
        }
    }
    let input = Arc::new(SplitInput { bitcode: module.to_bitcode(), facts: plan.facts, plan: plan.symbols });
    let split_ms = ms(start);
    drop(split_span);

    let (fail_partition, break_partition) = (injected_partition(FAIL_INJECTION_VAR), injected_partition(BREAK_INJECTION_VAR));
    let (level, phase) = (opts.level, opts.phase);
    let order = input.plan.largest_first(&input.facts);
    let jobs: Vec<_> = order
        .iter()
        .map(|&k| {
            let (input, host) = (input.clone(), host.clone());
            move || -> Result<PartitionResult, String> {
                let (t, start_unix_ms) = (Instant::now(), crate::stats::unix_ms());
                let label = format!("partition {k}");
                let _span = Span::begin("mtpc partition", &label);
                let ctx = OwnedContext::new();
                let build_span = Span::begin("mtpc build", &label);
                let mut m = partition_builder::build(&ctx, &input, k)?;
                if break_partition == Some(k) {
                    break_for_test(&m.as_module());
                }
                m.as_module().verify().map_err(|e| format!("{label}: partition fails the verifier: {e}"))?;
                // Frees the bitcode reader, whose tables would otherwise stay
                // allocated through optimization and code generation.
                m.as_module().finish_lazy_load().map_err(|e| format!("{label}: {e}"))?;
                drop(build_span);
                let build_ms = ms(t);
                if fail_partition == Some(k) {
                    panic!("failure injected by {FAIL_INJECTION_VAR}={k}");
                }
                let compiled = m.as_module().compile_to_asm(&host, level, phase).map_err(|e| format!("{label}: {e}"))?;
                Ok(PartitionResult {
                    asm: compiled.asm,
                    build_ms,
                    opt_ms: compiled.opt_ms,
                    codegen_ms: compiled.codegen_ms,
                    start_unix_ms,
                    end_unix_ms: crate::stats::unix_ms(),
                })
            }
        })
        .collect();
    let results = pool.run(jobs, threads);

    let mut stats = ModuleStats {
        module: module_name,
        partitions,
        threads,
        fallback: false,
        fallback_reason: None,
        split_ms,
        merge_ms: 0.0,
        wall_ms: 0.0,
        work_ms: 0.0,
        parts,
    };
    // Back in partition order: the merge and the stats follow it.
    let mut by_partition: Vec<(u32, Result<PartitionResult, String>)> = order.into_iter().zip(results).collect();
    by_partition.sort_by_key(|(k, _)| *k);
    let mut texts = Vec::with_capacity(by_partition.len());
    let mut failure = None;
    for (k, r) in by_partition {
        let k = k as usize;
        match r {
            Ok(r) => {
                let p = &mut stats.parts[k];
                (p.build_ms, p.opt_ms, p.codegen_ms) = (r.build_ms, r.opt_ms, r.codegen_ms);
                (p.start_unix_ms, p.end_unix_ms) = (r.start_unix_ms, r.end_unix_ms);
                stats.work_ms += r.build_ms + r.opt_ms + r.codegen_ms;
                texts.push(r.asm);
            }
            Err(e) => {
                failure.get_or_insert(format!("partition {k} failed: {e}"));
            }
        }
    }
    let t = Instant::now();
    let merge_span = Span::begin("mtpc merge", &stats.module);
    let merged = match failure {
        Some(reason) => Err(reason),
        None => crate::asm_merge::merge_bytes(&texts).map_err(|e| format!("cannot merge the partitions' assembly: {e}")),
    };
    drop(merge_span);
    match merged {
        Ok(text) => {
            module.replace_with_asm(&text);
            stats.merge_ms = ms(t);
            stats.wall_ms = ms(start);
            Ok(Outcome::Parallel(stats))
        }
        Err(reason) => {
            stats.fallback = true;
            stats.fallback_reason = Some(reason);
            stats.wall_ms = ms(start);
            Ok(Outcome::Fallback(stats))
        }
    }
}
