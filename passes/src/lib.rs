//! mtpc: parallel compilation of one large LLVM module, as a pass plugin.
//!
//! The plugin crate (`plugin/`) only registers passes; the logic is here,
//! one module per concern:
//! - [`ir`]: the safe layer over LLVM-C and the C++ shim;
//!   [`ir::host_pipeline`]: the host's pass pipeline and compiling partitions;
//! - [`module_facts`]: the module read once into plain Rust;
//! - [`call_graph`]: the call graph and its SCCs (petgraph);
//! - [`partition_plan`]: which partition owns each definition;
//! - [`packing`]: which partition gets each unit of a plan, when units share copies;
//! - [`symbol_rules`]: what each global becomes in each partition;
//! - [`odr_copies`]: C++ inline and template definitions, copied into
//!   every partition that uses them, and which partition emits each;
//! - [`partition_builder`]: builds one partition in its own context;
//! - [`split`]: the `mtpc-split` transformation;
//! - [`parallel`]: the `mtpc-parallel` transformation;
//! - [`cost_model`]: whether splitting a module pays, and into how many partitions;
//! - [`machine_load`]: the cores the rest of the machine leaves free;
//! - [`decline`]: the compiles mtpc leaves to the host, whole;
//! - [`diagnostics`]: which partition reports a function's diagnostics;
//! - [`stats`]: `MTPC_STATS` lines;
//! - [`asm_merge`]: merges the partitions' assembly into one text;
//! - [`object_writer`]: who assembles the merged text into the object;
//! - [`elf_object`]: a part's object, parsed, as the join and the transcript read it;
//! - [`object_merge`]: what the parts' objects say alike, kept once;
//! - [`local_again`]: the split's promoted locals made local again where
//!   the parts meet (both merges);
//! - [`object_transcript`]: the parts' objects as a text the host reads
//!   without parsing instructions;
//! - [`worker`]: the process-wide worker pool;
//! - [`machine_slots`]: without a jobserver, the limit of partition jobs
//!   shared by every compile on the machine;
//! - [`options`]: pass parameters;
//! - [`logging`]: the `MTPC_LOG` stderr logger;
//! - [`host`]: glue to the hosts' pass managers.
//!
//! Every `unsafe` block is in [`ir`] (LLVM, and one libc call for a file
//! in memory), but one: [`worker`] takes over the
//! make jobserver's file descriptors (`jobserver::Client::from_env_ext`).
//! Safe code cannot use a handle on a deleted value: handles borrow the
//! module, and edits that delete take it mutably ([`ir::GlobalTable`]).

#![deny(unsafe_op_in_unsafe_fn)]

// The LLVM-C bindings of the LLVM major the build is for (see
// `ir::llvm_version`), under one name.
#[cfg(feature = "llvm16")]
extern crate llvm_sys_160 as llvm_sys;
#[cfg(feature = "llvm19")]
extern crate llvm_sys_191 as llvm_sys;
#[cfg(feature = "llvm22")]
extern crate llvm_sys_221 as llvm_sys;
#[cfg(not(any(
    all(feature = "llvm16", not(feature = "llvm19"), not(feature = "llvm22")),
    all(feature = "llvm19", not(feature = "llvm16"), not(feature = "llvm22")),
    all(feature = "llvm22", not(feature = "llvm16"), not(feature = "llvm19")),
)))]
compile_error!(
    "build mtpc for exactly one LLVM major: the default is LLVM 16; for another, \
     `cargo build --release --no-default-features --features llvm22` (or llvm19)"
);

pub mod asm_merge;
pub mod call_graph;
pub mod cost_model;
pub mod decline;
pub mod elf_object;
pub mod diagnostics;
pub mod host;
pub mod ir;
pub mod local_again;
pub mod logging;
pub mod machine_load;
pub mod machine_slots;
pub mod module_facts;
pub mod object_merge;
pub mod object_transcript;
pub mod object_writer;
pub mod odr_copies;
pub mod options;
pub mod partition_builder;
pub mod parallel;
pub mod packing;
pub mod partition_plan;
pub mod split;
pub mod stats;
pub mod symbol_rules;
pub mod worker;

/// Maps and sets looked up for every name of every line (the merge) or
/// every operand (the facts): a fast, fixed hash. The keys are the code
/// generator's and the module's, not an adversary's, and no output depends
/// on the order of one.
pub(crate) type FastHashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
pub(crate) type FastHashSet<T> = std::collections::HashSet<T, foldhash::fast::FixedState>;

#[cfg(test)]
mod test_support;
