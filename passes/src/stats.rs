//! `MTPC_STATS=FILE`: one JSON line per module mtpc processes, appended.
//!
//! Each line is written with one `write` under an exclusive lock on the
//! file, so lines from concurrent threads and processes never interleave.

use std::io::Write;

use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct PartitionStats {
    pub index: u32,
    pub functions: u32,
    /// Instructions of the definitions the partition owns.
    pub instructions: u64,
    /// Instructions of every body it holds: its own and the copies it
    /// optimizes for inlining (what it costs to build and optimize).
    pub held_instructions: u64,
    /// What the plan expected it to hold (`PartitionPlan::planned`).
    pub planned_instructions: u64,
    /// Time to load the partition from the serialized module and apply the plan.
    pub build_ms: f64,
    pub opt_ms: f64,
    /// Code generation, and the scan of its text (or object) for the merge.
    pub codegen_ms: f64,
    /// Writing its segment of the merged text (on the pool, side by side
    /// with the other parts', once the merge has decided what each keeps);
    /// 0 with `object_from_parts` (no text is merged).
    pub segment_ms: f64,
    /// Assembling its segment of the merged text, to check it (on the pool,
    /// side by side with the other parts' checks, after the merge); with
    /// `object_from_parts`, transcribing its object and assembling the
    /// transcript alone.
    pub check_ms: f64,
    /// When each of the partition's jobs ran (Unix time, ms): the first,
    /// which builds and optimizes it, and the second, its code generation
    /// (which may start later: see `odr_copies`). Shows how many jobs ran at
    /// once, across processes.
    pub jobs_unix_ms: [[f64; 2]; 2],
    /// With debug info: the shared C++ classes it describes as declarations
    /// (a partition that started before it describes them in full), and
    /// those it describes in full (kept among its retained types; see
    /// `shim/debug_types.cpp`).
    pub classes_declared: u64,
    pub classes_described: u64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ModuleStats {
    /// The module's source file name (or identifier).
    pub module: String,
    pub partitions: u32,
    pub threads: usize,
    /// Instructions of the module's function bodies (debug intrinsics
    /// aside): with the parts' `held_instructions`, how much the copies add.
    pub instructions: u64,
    pub fallback: bool,
    /// Why the module was compiled whole, if it was.
    pub fallback_reason: Option<String>,
    pub split_ms: f64,
    /// The partitions' phase, from the first job handed to the pool to the
    /// last one back (build, optimization and code generation, side by side).
    pub partitions_ms: f64,
    /// The merge: deciding what each part keeps, on the host's thread,
    /// then writing the parts' segments on the pool, then joining them;
    /// with `object_from_parts`, deciding what each part's transcript leaves
    /// out, renames and reads from the pool of debug strings
    /// (`object_merge`).
    pub merge_ms: f64,
    /// Within `merge_ms`: the pool's phase, writing the parts' segments.
    pub merge_segments_ms: f64,
    /// Assembling the merged text to check it: part by part on the worker
    /// pool, or, if `object_by_mtpc`, whole on the host's thread; with
    /// `object_from_parts`, the parts' transcripts, each alone on the pool.
    pub check_ms: f64,
    /// The merged text was assembled into the object by mtpc, and offered
    /// to the host's pre-codegen callback (clang 22, where the partitions
    /// print text; `object_writer`), instead of being assembled by the host.
    pub object_by_mtpc: bool,
    /// Each partition wrote an object, and the host was handed the objects
    /// transcribed (clang; `object_merge`, `object_transcript`): no
    /// assembly text was printed, merged or parsed.
    pub object_from_parts: bool,
    /// With `object_from_parts`: the check of what the parts' transcripts
    /// say of the same names and sections, on the host's thread after the
    /// parts' checks (part of `check_ms`).
    pub transcript_check_ms: f64,
    /// When the pass began (ms since the Unix epoch): with the time the
    /// compile ended, the serial tail measured inside the compile's own run
    /// (what followed the front end but was not the pass's parallel work),
    /// as `bench/model.py` does.
    pub start_unix_ms: f64,
    pub wall_ms: f64,
    /// The sum of all per-partition time (build, optimization, code generation).
    pub work_ms: f64,
    /// Bytes of the text the host assembles (the merged assembly, or the
    /// parts' transcripts).
    pub asm_bytes: u64,
    /// What the cost model saw and estimated, when it decided.
    pub model: Option<ModelStats>,
    /// The host's pipeline had optimized the module whole, and this line is
    /// about splitting its code generation alone (a module left whole for
    /// the machine's load when its optimization began, or
    /// `MTPC_CODE_GENERATION_ONLY`): a second line for the module, or the
    /// first with that setting.
    pub code_generation_only: bool,
    /// The group the plan cannot divide that weighs most with the copies
    /// it needs, where it went, and that weight (for the critical-path
    /// bound, `bench/model.py`).
    pub largest_unit: Option<crate::partition_plan::LargestUnit>,
    pub parts: Vec<PartitionStats>,
}

impl ModuleStats {
    /// The most partition jobs that ran at once (each part's
    /// `jobs_unix_ms`: its build, then its code generation or its
    /// optimization and code generation).
    pub fn most_jobs_at_once(&self) -> usize {
        let mut edges: Vec<(f64, i32)> = self.parts.iter().flat_map(|p| p.jobs_unix_ms).flat_map(|[start, end]| [(start, 1), (end, -1)]).collect();
        // An end before a start at the same moment: one after the other.
        edges.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut running = 0;
        edges.iter().map(|&(_, step)| {
            running += step;
            running
        }).max().map_or(0, |most| most.max(0) as usize)
    }


    /// Why the module was left whole: the failure's reason, or the cost model's.
    pub fn whole_reason(&self) -> Option<&str> {
        let model_reason = || self.model.as_ref().and_then(|m| m.whole_reason.as_deref());
        self.fallback_reason.as_deref().or_else(model_reason)
    }
}

/// The cost model's view of a module (`cost_model`), to check it against
/// the times measured.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ModelStats {
    /// `None` when the compile's settings alone decided (`cost_model::never_pays`).
    pub shape: Option<crate::cost_model::ModuleShape>,
    pub estimate: Option<crate::cost_model::Estimate>,
    /// The machine's load when the model looked (only for a module it
    /// would split on an idle machine, and unless `MTPC_LOAD_AWARE=0`),
    /// and the lanes (threads side by side) it planned for then.
    pub load: Option<crate::machine_load::MachineLoad>,
    pub lanes: Option<usize>,
    /// Why the module was compiled whole, if the model said so.
    pub whole_reason: Option<String>,
    /// Left whole only because the machine's cores were busy: split on an
    /// idle machine.
    pub whole_for_load: bool,
    /// Its code generation was split while every core was busy: the
    /// partitions ran one at a time until a core freed (their
    /// `jobs_unix_ms` show when each ran; `lanes` is the 1 they started
    /// with, `estimate` the idle machine's).
    pub waits_for_cores: bool,
}

/// Milliseconds since `start`.
pub fn elapsed_ms(start: std::time::Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// Now, in milliseconds since the Unix epoch.
pub fn unix_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

/// Appends `stats` as one line to the file named by `MTPC_STATS`, if set.
pub fn record(stats: &ModuleStats) {
    let Some(path) = std::env::var_os("MTPC_STATS") else { return };
    let mut line = serde_json::to_string(stats).expect("stats serialize");
    line.push('\n');
    let written = std::fs::OpenOptions::new().create(true).append(true).open(&path).and_then(|mut f| {
        f.lock()?;
        let r = f.write_all(line.as_bytes());
        f.unlock()?;
        r
    });
    if let Err(e) = written {
        log::warn!("cannot append statistics to {}: {e}", std::path::Path::new(&path).display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_the_documented_fields() {
        let compile = crate::cost_model::Compile { debug_info: false, optimized: true, after_optimization: false };
        let shape = crate::cost_model::ModuleShape { instructions: 70, data_bytes: 8, largest_group: 30, compile, transcribed: true };
        let s = ModuleStats {
            module: "m.c".into(),
            partitions: 2,
            threads: 2,
            instructions: 70,
            fallback: false,
            fallback_reason: None,
            split_ms: 1.0,
            partitions_ms: 3.0,
            merge_ms: 2.0,
            merge_segments_ms: 1.0,
            check_ms: 0.5,
            object_by_mtpc: false,
            object_from_parts: false,
            transcript_check_ms: 0.0,
            start_unix_ms: 1.0e12,
            wall_ms: 3.0,
            work_ms: 4.0,
            asm_bytes: 1000,
            model: Some(ModelStats { shape: Some(shape), estimate: Some(crate::cost_model::estimate(&shape, 2, 2)), load: None, lanes: None, whole_reason: None, whole_for_load: false, waits_for_cores: false }),
            code_generation_only: false,
            largest_unit: Some(crate::partition_plan::LargestUnit { partition: 0, instructions: 30, held_instructions: 36, alone: true }),
            parts: vec![PartitionStats { index: 0, functions: 3, instructions: 40, held_instructions: 45, planned_instructions: 44, build_ms: 0.5, opt_ms: 1.5, codegen_ms: 2.5, segment_ms: 0.75, check_ms: 0.25, jobs_unix_ms: [[1.0, 2.0], [2.5, 3.0]], classes_declared: 0, classes_described: 0 }],
        };
        let v: serde_json::Value = serde_json::to_value(&s).unwrap();
        for key in ["module", "partitions", "threads", "instructions", "fallback", "split_ms", "partitions_ms", "merge_ms", "merge_segments_ms", "check_ms", "object_by_mtpc", "object_from_parts", "transcript_check_ms", "start_unix_ms", "wall_ms", "work_ms", "asm_bytes", "model", "code_generation_only", "largest_unit", "parts"] {
            assert!(v.get(key).is_some(), "{key}");
        }
        for key in ["instructions", "data_bytes", "largest_group", "debug_info", "optimized", "after_optimization", "transcribed"] {
            assert!(v["model"]["shape"].get(key).is_some(), "{key}");
        }
        for key in ["partitions", "stock_ms", "mtpc_ms", "tail_ms"] {
            assert!(v["model"]["estimate"].get(key).is_some(), "{key}");
        }
        for key in ["partition", "instructions", "held_instructions", "alone"] {
            assert!(v["largest_unit"].get(key).is_some(), "{key}");
        }
        for key in ["index", "functions", "instructions", "held_instructions", "planned_instructions", "opt_ms", "codegen_ms", "segment_ms", "check_ms", "jobs_unix_ms"] {
            assert!(v["parts"][0].get(key).is_some(), "{key}");
        }
    }

    #[test]
    fn the_most_jobs_at_once_are_counted_from_their_times() {
        let part = |jobs_unix_ms| PartitionStats { jobs_unix_ms, ..PartitionStats::default() };
        let stats = |parts| ModuleStats { parts, ..ModuleStats::default() };
        // One after the other (an end and the next start at one moment).
        assert_eq!(stats(vec![part([[0.0, 1.0], [1.0, 5.0]]), part([[5.0, 6.0], [6.0, 9.0]])]).most_jobs_at_once(), 1);
        // The second partition's build while the first generates code.
        assert_eq!(stats(vec![part([[0.0, 1.0], [1.0, 5.0]]), part([[3.0, 4.0], [4.0, 8.0]])]).most_jobs_at_once(), 2);
        assert_eq!(stats(Vec::new()).most_jobs_at_once(), 0);
    }
}
