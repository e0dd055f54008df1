// diagnostics.h - a partition's diagnostics, recorded in its own context on
// a worker thread and passed on, once every partition has compiled, to the
// host's context on the host's thread, where the host's handler (clang's
// warnings and -Rpass remarks) and optimization-record file see them as if
// they came from the whole module.
#pragma once

#include "shim.h"

#include "llvm/IR/DiagnosticInfo.h"

#include <mutex>
#include <vector>

namespace mtpc {

// Which remarks the host's context wants, asked on the partitions' behalf.
// The host's handler is only ever asked under this object's lock: it was
// written for one thread.
class RemarkPolicy {
public:
  // HostWritesObject: the host writes an object (else assembly text).
  RemarkPolicy(const llvm::LLVMContext &Host, bool HostWritesObject);
  // Gives a partition's context the host's hotness and misexpect settings.
  void configure(llvm::LLVMContext &Partition) const;
  bool anyWanted() const { return AnyWanted; }
  bool hostWritesObject() const { return HostWritesObject; }
  // The host handler's answer to Ask (isPassedOptRemarkEnabled, ...).
  using Query = bool (llvm::DiagnosticHandler::*)(llvm::StringRef) const;
  bool wanted(Query Ask, llvm::StringRef PassName) const;

private:
  const llvm::DiagnosticHandler *Host;
  // The host writes an optimization record (so do partitions' contexts, to
  // nowhere: see configure).
  bool Record;
  bool AnyWanted;
  bool HotnessRequested;
  std::optional<uint64_t> HotnessThreshold;
  bool MisExpect;
  uint32_t MisExpectTolerance;
  bool HostWritesObject;
  mutable std::mutex Lock;
};

// A diagnostic's location, as plain data.
struct RecordedLocation {
  std::string File, Directory;
  unsigned Line = 0, Column = 0;
  bool Valid = false;
};

// One diagnostic a partition produced, as plain data (its context dies with
// the partition).
struct RecordedDiagnostic {
  llvm::DiagnosticKind Kind;
  llvm::DiagnosticSeverity Severity;
  // The partition's name of the function it is about; empty for none.
  std::string Function;
  // Reported by the code generator (else by the optimizer): the host hears
  // all of the latter first, as from one module.
  bool CodeGen = false;
  // Optimization remarks and failures.
  std::string PassName, RemarkName;
  RecordedLocation Location;
  struct Argument {
    std::string Key, Val;
    RecordedLocation Location;
  };
  std::vector<Argument> Args;
  size_t FirstExtraArg = 0; // Args.size(): none
  bool Verbose = false;
  std::optional<uint64_t> Hotness;
  // Resource limits (stack size); calls to functions marked warning().
  std::string Resource;
  uint64_t Size = 0, Limit = 0;
  std::string Note;
  unsigned LocCookie = 0;
};

// Everything one partition's context reported. Errors, and warnings of a
// kind mtpc cannot pass on, make the partition fail (the host then compiles
// the module whole, and reports them itself).
class PartitionDiagnostics {
public:
  // Records the diagnostics of Partition's context from now on, asking
  // Remarks which remarks to produce.
  static std::shared_ptr<PartitionDiagnostics> install(llvm::LLVMContext &Partition,
                                                       std::shared_ptr<RemarkPolicy> Remarks);
  void record(const llvm::DiagnosticInfo &DI);
  // What is recorded from now on comes from the code generator.
  void enterCodeGen() { InCodeGen = true; }
  const std::string &failure() const { return Failure; }
  const std::vector<RecordedDiagnostic> &recorded() const { return Recorded; }
  std::vector<RecordedDiagnostic> &recorded() { return Recorded; }

private:
  std::vector<RecordedDiagnostic> Recorded;
  std::string Failure;
  bool InCodeGen = false;
  // Remarks are worded as for an object file (see asObjectStreamerCounts).
  bool HostWritesObject = true;
};

// Reports D in Host's context, about Host's function FunctionName.
void reemit(const RecordedDiagnostic &D, llvm::Module &Host, llvm::StringRef FunctionName);

} // namespace mtpc
