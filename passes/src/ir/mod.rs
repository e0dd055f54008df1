//! The safe layer over LLVM: every `unsafe` call of mtpc lives in this
//! module (this file: modules, globals, values, bitcode, the time trace;
//! [`host_pipeline`]: the host's pass pipeline and compiling partitions;
//! `memory_file`: the one libc call, a file in memory the host reads).
//!
//! Handles borrow the module (or context) they come from, so they cannot
//! outlive it. Only the operations mtpc needs are wrapped, in LLVM-C terms;
//! those that LLVM-C lacks go to the C++ shim (`shim/`, see `shim/shim.h`).

mod ffi;
pub mod host_pipeline;
mod host_llvm;
pub mod llvm_version;
mod memory_file;
mod module;
pub mod time_trace;
mod values;

pub use host_llvm::{foreign_host_llvm, llvm_version_major, report_fatal_error, ForeignLlvm};
pub use memory_file::MemoryFile;
pub use module::*;
pub use values::*;

/// Which pipeline a partition runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PipelinePhase {
    /// `default<On>`: what clang runs on a translation unit.
    PerModule,
    /// The ThinLTO post-link pipeline: what a ThinLTO backend runs.
    ThinLtoPostLink,
    /// The full LTO pipeline (`lto<On>`) after its whole-program part:
    /// what lld runs on the merged module of a full LTO link.
    FullLtoPostLink,
}

impl PipelinePhase {
    /// The shim's number for the phase (`MtpcParallelRequest::Phase`).
    pub fn number(self) -> i32 {
        match self {
            PipelinePhase::PerModule => 0,
            PipelinePhase::ThinLtoPostLink => 1,
            PipelinePhase::FullLtoPostLink => 2,
        }
    }

    /// The phase the shim numbers `n` (unknown numbers: per-module).
    pub fn from_number(n: i32) -> PipelinePhase {
        match n {
            1 => PipelinePhase::ThinLtoPostLink,
            2 => PipelinePhase::FullLtoPostLink,
            _ => PipelinePhase::PerModule,
        }
    }
}

/// Optimization levels in the order the shim numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptLevel {
    O0,
    O1,
    O2,
    O3,
    Os,
    Oz,
}
