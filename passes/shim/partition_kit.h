// partition_kit.h - what one partition is optimized and compiled with.
//
// A kit is built on the host's thread, from the host's PassBuilder, while
// mtpc's pass runs (host_pipeline.cpp), and then handed to the worker thread
// that compiles the partition (partition_compile.cpp). Nothing in it is
// shared with the host or with another kit, except the host's objects the
// pipeline's passes were built from (options captured by the host's
// callbacks), which live until mtpc's pass returns, after every kit is gone.
#pragma once

#include "shim.h"
#include "debug_files.h"
#include "diagnostics.h"

#include "llvm/Passes/StandardInstrumentations.h"

namespace mtpc {

struct PartitionKit {
  std::unique_ptr<llvm::TargetMachine> TM;
  // The instrumentation a partition's passes run under: optnone functions
  // are left alone, as in the host, and under -ftime-trace every pass shows
  // in the worker thread's trace. Declared before the analysis managers,
  // which point to it.
  llvm::PassInstrumentationCallbacks PIC;
  llvm::OptNoneInstrumentation OptNone{/*DebugLogging=*/false};
  llvm::TimeProfilingPassesHandler TimeProfiling;
  // In this order, so that each manager outlives the proxies to it.
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::ModulePassManager MPM;
  // The host's library info, for the code generator.
  std::shared_ptr<const llvm::TargetLibraryInfoImpl> LibraryInfo;
  // Which remarks the host wants (shared by every kit of one module).
  std::shared_ptr<RemarkPolicy> Remarks;
  // The module's source files, numbered alike in every partition.
  std::shared_ptr<const DebugFiles> Files;
  // The host's context discards the names of values.
  bool DiscardValueNames = false;
  // The code generator writes an object (its debug sections whole), not
  // assembly text (see mtpc_run_environment).
  bool WritesObject = false;
  // The module's functions need unwind tables: the partition's call frame
  // information goes to .eh_frame, as the module's would, whatever its own
  // functions need (see mtpc_kit_codegen).
  bool UnwindTables = false;
  // What the context the partition is read into has reported since it was
  // created (see mtpc_kit_adopt_context).
  std::shared_ptr<PartitionDiagnostics> Recorded;
};

} // namespace mtpc
