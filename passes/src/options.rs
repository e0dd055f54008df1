//! The pass parameters of `mtpc-split<...>`, parsed from pipeline text.
//!
//! Parameters are `;`-separated `key=value` pairs, as LLVM's own passes
//! write them. Errors name the parameter and say what is accepted.

use std::path::PathBuf;

use crate::ir::{OptLevel, PipelinePhase};

/// Modules below this cost (IR instructions) stay one partition unless
/// `min-size` says otherwise: splitting them costs more than it saves.
pub const DEFAULT_MIN_SIZE: u64 = 20_000;
/// With no `partitions=`, one partition per this many IR instructions.
pub const DEFAULT_INSTRUCTIONS_PER_PARTITION: u64 = 50_000;
/// Upper bound of the derived partition count.
pub const DEFAULT_MAX_PARTITIONS: u32 = 64;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitOptions {
    /// Partitions to aim for; `None`: derived from the module's size.
    pub partitions: Option<u32>,
    pub min_size: u64,
    /// Write partition K to `PREFIX.K.bc`.
    pub out: Option<PathBuf>,
    /// Partitions merge while two together fit within four fifths of the
    /// heaviest (see `partition_plan`); `no-merge` keeps the count packing
    /// made, for tests that want many partitions.
    pub merge_lighter: bool,
    /// What the partitions will run, which decides what they are given.
    pub work: PartitionWork,
}

/// What the partitions of a split run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartitionWork {
    /// The optimization pipeline, then code generation: small callees and
    /// constants are copied into the partitions that use them, so that
    /// each inlines and folds them as the whole module would
    /// (`symbol_rules::copy_limits`).
    OptimizeAndGenerateCode,
    /// Code generation alone, of a module the host's pipeline optimized
    /// whole: constants alone are copied (`CopyLimits::CODE_GENERATION`),
    /// and the bitcode keeps the order of each value's uses, which some of
    /// the code generator's choices follow, so that each function's code is
    /// the whole module's.
    GenerateCode,
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions { partitions: None, min_size: DEFAULT_MIN_SIZE, out: None, merge_lighter: true, work: PartitionWork::OptimizeAndGenerateCode }
    }
}

impl SplitOptions {
    /// The partition count for a module of `instructions`.
    pub fn partitions_for(&self, instructions: u64) -> u32 {
        if instructions < self.min_size {
            return 1;
        }
        self.partitions.unwrap_or_else(|| {
            let derived = instructions / DEFAULT_INSTRUCTIONS_PER_PARTITION;
            derived.clamp(2, u64::from(DEFAULT_MAX_PARTITIONS)) as u32
        })
    }
}

/// The parameters of `mtpc-parallel<...>` and of automatic mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParallelOptions {
    pub level: OptLevel,
    pub phase: PipelinePhase,
    /// Partitions to aim for; `None`: one per worker thread.
    pub partitions: Option<u32>,
    /// At most this many of this module's partitions at once; `None`: the pool's size.
    pub threads: Option<usize>,
    pub min_size: u64,
    /// The cost model decides whether a module is split and into how many
    /// partitions (`cost_model`): unless the user gave a partition count or
    /// a minimum size, which then decide instead.
    pub cost_model: bool,
    /// The cost model counts only the cores other work leaves free
    /// (`machine_load`): read from the environment when the module is
    /// compiled (`load_aware_from_env`), not from pass parameters.
    pub load_aware: bool,
    /// On a machine whose cores are all busy, a long code generation may
    /// still be split, its partitions after the first waiting for a core
    /// to free (`parallel`): unless `MTPC_WAIT_FOR_CORES=0`
    /// (`wait_for_cores_from_env`; only where `load_aware`).
    pub wait_for_cores: bool,
    /// This run is at the end of the host's pipeline, which has optimized
    /// the module whole: only its code generation is split (automatic
    /// mode: a module left whole for the load, or `code_generation_only`).
    pub after_optimization: bool,
    /// Split only code generation, never the optimization
    /// (`MTPC_CODE_GENERATION_ONLY=1`): the host's pipeline optimizes the
    /// whole module, as without mtpc, and its code generation is split.
    pub code_generation_only: bool,
}

impl ParallelOptions {
    pub fn new(level: OptLevel, phase: PipelinePhase) -> Self {
        ParallelOptions { level, phase, partitions: None, threads: None, min_size: DEFAULT_MIN_SIZE, cost_model: true, load_aware: true, wait_for_cores: true, after_optimization: false, code_generation_only: false }
    }
}

/// What `mtpc-parallel` accepts, for error messages.
const PARALLEL_PARAMETERS: &str = "O0..O3, Os, Oz, default, thinlto, fulllto, partitions=N, threads=T and min-size=M";

/// Parses the parameters of `mtpc-parallel`: an optimization level
/// (`O0`..`O3`, `Os`, `Oz`), a pipeline (`default`, `thinlto` or
/// `fulllto`), and `partitions=N`, `threads=T`, `min-size=M`.
pub fn parse_parallel_options(params: &str) -> Result<ParallelOptions, String> {
    let mut opts = ParallelOptions::new(OptLevel::O2, PipelinePhase::PerModule);
    for item in params.split(';').filter(|s| !s.is_empty()) {
        if let Some(level) = parse_level(item) {
            opts.level = level;
            continue;
        }
        match item {
            "default" => opts.phase = PipelinePhase::PerModule,
            "thinlto" => opts.phase = PipelinePhase::ThinLtoPostLink,
            "fulllto" => opts.phase = PipelinePhase::FullLtoPostLink,
            _ => {
                let (key, value) = item
                    .split_once('=')
                    .ok_or_else(|| format!("unknown parameter '{item}'; mtpc-parallel accepts {PARALLEL_PARAMETERS}"))?;
                match key {
                    "partitions" => {
                        opts.partitions = Some(u32::try_from(parse_count(key, value, 1)?).unwrap_or(u32::MAX));
                        opts.cost_model = false;
                    }
                    "threads" => opts.threads = Some(usize::try_from(parse_count(key, value, 1)?).unwrap_or(usize::MAX)),
                    "min-size" => {
                        opts.min_size = parse_count(key, value, 0)?;
                        opts.cost_model = false;
                    }
                    _ => return Err(format!("unknown parameter '{key}'; mtpc-parallel accepts {PARALLEL_PARAMETERS}")),
                }
            }
        }
    }
    Ok(opts)
}

fn parse_level(text: &str) -> Option<OptLevel> {
    Some(match text {
        "O0" => OptLevel::O0,
        "O1" => OptLevel::O1,
        "O2" => OptLevel::O2,
        "O3" => OptLevel::O3,
        "Os" => OptLevel::Os,
        "Oz" => OptLevel::Oz,
        _ => return None,
    })
}

/// Automatic mode's settings from the environment, read at each module:
/// `MTPC_DISABLE=1` turns it off; `MTPC_PARTITIONS`, `MTPC_MIN_SIZE`
/// decide instead of the cost model (`MTPC_THREADS` sizes the pool).
pub fn automatic_from_env(level: OptLevel, phase: PipelinePhase) -> Result<Option<ParallelOptions>, String> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    if let Some(v) = var("MTPC_DISABLE") {
        if parse_switch("MTPC_DISABLE", &v)? {
            return Ok(None);
        }
    }
    let mut opts = ParallelOptions::new(level, phase);
    // Checked when the pool is made too; here so that a bad value is
    // reported before the module is read.
    machine_slots_from_env()?;
    opts.load_aware = load_aware_from_env()?;
    opts.wait_for_cores = wait_for_cores_from_env()?;
    if let Some(v) = var("MTPC_CODE_GENERATION_ONLY") {
        opts.code_generation_only = parse_switch("MTPC_CODE_GENERATION_ONLY", &v)?;
    }
    if let Some(v) = var("MTPC_PARTITIONS") {
        let n = parse_count("MTPC_PARTITIONS", v.trim(), 1).map_err(|e| e.replace("parameter", "variable"))?;
        opts.partitions = Some(u32::try_from(n).unwrap_or(u32::MAX));
        opts.cost_model = false;
    }
    if let Some(v) = var("MTPC_MIN_SIZE") {
        opts.min_size = parse_count("MTPC_MIN_SIZE", v.trim(), 0).map_err(|e| e.replace("parameter", "variable"))?;
        opts.cost_model = false;
    }
    Ok(Some(opts))
}

/// Threads for partition work: `MTPC_THREADS` if set, else the cores
/// this process may use.
pub fn threads_from_env() -> Result<usize, String> {
    match std::env::var("MTPC_THREADS") {
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| format!("invalid MTPC_THREADS value '{v}': expected an integer >= 1")),
        Err(_) => Ok(available_cores()),
    }
}

/// Whether the cost model looks at the machine's load (`machine_load`):
/// yes unless `MTPC_LOAD_AWARE=0`, or `SOURCE_DATE_EPOCH` is set (a
/// reproducible build: the object must not depend on what else ran).
pub fn load_aware_from_env() -> Result<bool, String> {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    match std::env::var("MTPC_LOAD_AWARE") {
        Ok(v) if !v.trim().is_empty() => parse_switch("MTPC_LOAD_AWARE", &v),
        _ => Ok(!set("SOURCE_DATE_EPOCH")),
    }
}

/// Whether a code generation may be split on a busy machine, its
/// partitions waiting for a core (`ParallelOptions::wait_for_cores`): yes
/// unless `MTPC_WAIT_FOR_CORES=0`.
pub fn wait_for_cores_from_env() -> Result<bool, String> {
    match std::env::var("MTPC_WAIT_FOR_CORES") {
        Ok(v) if !v.trim().is_empty() => parse_switch("MTPC_WAIT_FOR_CORES", &v),
        _ => Ok(true),
    }
}

/// An on/off variable's value: `1`, `true`, `yes` or `0`, `false`, `no`.
fn parse_switch(name: &str, value: &str) -> Result<bool, String> {
    match value.trim() {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        other => Err(format!("invalid {name} value '{other}': expected 1 or 0")),
    }
}

/// The cores this process may use (its CPU affinity and quota).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Partition jobs all compiles of this user may run at once without a
/// jobserver (`machine_slots`): `MTPC_MACHINE_SLOTS` if set (0: no such
/// limit), else this machine's cores.
pub fn machine_slots_from_env() -> Result<usize, String> {
    match std::env::var("MTPC_MACHINE_SLOTS") {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse::<usize>()
            .map_err(|_| format!("invalid MTPC_MACHINE_SLOTS value '{v}': expected an integer >= 0 (0 turns the limit off)")),
        _ => Ok(available_cores()),
    }
}

/// Splits `name<params>` into the pass name and its parameter text.
/// Returns `None` if `text` is not `name` or `name<...>`.
pub fn strip_pass_name<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(name)?;
    if rest.is_empty() {
        return Some("");
    }
    rest.strip_prefix('<')?.strip_suffix('>')
}

fn parse_count(key: &str, value: &str, min: u64) -> Result<u64, String> {
    value
        .parse::<u64>()
        .ok()
        .filter(|&v| v >= min)
        .ok_or_else(|| format!("invalid value '{value}' for parameter '{key}': expected an integer >= {min}"))
}

/// Parses the parameters of `mtpc-split`.
pub fn parse_split_options(params: &str) -> Result<SplitOptions, String> {
    let mut opts = SplitOptions::default();
    for item in params.split(';').filter(|s| !s.is_empty()) {
        if item == "no-merge" {
            opts.merge_lighter = false;
            continue;
        }
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| format!("parameter '{item}' has no value: write {item}=VALUE"))?;
        match key {
            "partitions" => {
                let n = parse_count(key, value, 1)?;
                opts.partitions = Some(u32::try_from(n).unwrap_or(u32::MAX));
            }
            "min-size" => opts.min_size = parse_count(key, value, 0)?,
            "out" => {
                if value.is_empty() {
                    return Err("parameter 'out' needs a file prefix: out=PREFIX".into());
                }
                opts.out = Some(PathBuf::from(value));
            }
            _ => {
                return Err(format!(
                    "unknown parameter '{key}'; mtpc-split accepts partitions=N, min-size=M, out=PREFIX and no-merge"
                ))
            }
        }
    }
    Ok(opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_parameters() {
        let o = parse_split_options("partitions=8;min-size=0;out=/tmp/x;no-merge").unwrap();
        assert_eq!(o, SplitOptions { partitions: Some(8), min_size: 0, out: Some("/tmp/x".into()), merge_lighter: false, work: PartitionWork::OptimizeAndGenerateCode });
        assert!(parse_split_options("partitions=8").unwrap().merge_lighter);
    }

    #[test]
    fn errors_name_the_parameter() {
        let e = parse_split_options("partitions=zero").unwrap_err();
        assert!(e.contains("'partitions'") && e.contains("'zero'"), "{e}");
        assert!(parse_split_options("partitions=0").unwrap_err().contains("partitions"));
        let e = parse_split_options("parts=2").unwrap_err();
        assert!(e.contains("unknown parameter 'parts'"), "{e}");
        assert!(parse_split_options("min-size").unwrap_err().contains("min-size"));
    }

    #[test]
    fn pass_name_and_parameters() {
        assert_eq!(strip_pass_name("mtpc-split", "mtpc-split"), Some(""));
        assert_eq!(strip_pass_name("mtpc-split<partitions=2>", "mtpc-split"), Some("partitions=2"));
        assert_eq!(strip_pass_name("mtpc-splitter", "mtpc-split"), None);
        assert_eq!(strip_pass_name("mtpc-split<x", "mtpc-split"), None);
    }

    #[test]
    fn parallel_parameters() {
        let o = parse_parallel_options("thinlto;O3;partitions=4;threads=2;min-size=0").unwrap();
        assert_eq!(o.level, OptLevel::O3);
        assert_eq!(o.phase, PipelinePhase::ThinLtoPostLink);
        assert_eq!((o.partitions, o.threads, o.min_size, o.cost_model), (Some(4), Some(2), 0, false));
        assert!(parse_parallel_options("O2;threads=2").unwrap().cost_model);
        assert!(!parse_parallel_options("min-size=0").unwrap().cost_model);
        assert_eq!(parse_parallel_options("").unwrap(), ParallelOptions::new(OptLevel::O2, PipelinePhase::PerModule));
        assert_eq!(parse_parallel_options("fulllto;O3").unwrap().phase, PipelinePhase::FullLtoPostLink);
        assert!(parse_parallel_options("O4").unwrap_err().contains("unknown parameter 'O4'"));
        assert!(parse_parallel_options("lto").unwrap_err().contains("fulllto"));
        assert!(parse_parallel_options("threads=0").unwrap_err().contains("'threads'"));
    }

    #[test]
    fn small_modules_stay_whole() {
        let o = SplitOptions { partitions: Some(8), ..Default::default() };
        assert_eq!(o.partitions_for(DEFAULT_MIN_SIZE - 1), 1);
        assert_eq!(o.partitions_for(DEFAULT_MIN_SIZE), 8);
        let d = SplitOptions { min_size: 0, ..Default::default() };
        assert_eq!(d.partitions_for(10), 2);
        assert_eq!(d.partitions_for(10_000_000), DEFAULT_MAX_PARTITIONS);
    }
}
