// diagnostics.cpp - a partition's diagnostics, recorded on its thread and
// passed on to the host's context (see diagnostics.h). See shim.h for the
// rules.
#include "diagnostics.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMRemarkStreamer.h"
#include "llvm/Remarks/RemarkSerializer.h"
#include "llvm/Remarks/RemarkStreamer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using mtpc::RecordedDiagnostic;
using mtpc::RecordedLocation;

// DiagnosticLocation keeps its file private and has no constructor from a
// file, line and column.
MTPC_EXPOSE_PRIVATE(LocationFile, DIFile *, DiagnosticLocation, File);
MTPC_EXPOSE_PRIVATE(LocationLine, unsigned, DiagnosticLocation, Line);
MTPC_EXPOSE_PRIVATE(LocationColumn, unsigned, DiagnosticLocation, Column);
// Where a remark's extra arguments (the optimization record's only) start.
MTPC_EXPOSE_PRIVATE(RemarkFirstExtraArg, int, DiagnosticInfoOptimizationBase, FirstExtraArgIndex);

namespace {

RecordedLocation recordLocation(const DiagnosticLocation &L) {
  RecordedLocation R;
  if (const DIFile *F = L.*member(mtpc::LocationFile())) {
    R.File = F->getFilename().str();
    R.Directory = F->getDirectory().str();
    R.Line = L.getLine();
    R.Column = L.getColumn();
    R.Valid = true;
  }
  return R;
}

DiagnosticLocation makeLocation(LLVMContext &Ctx, const RecordedLocation &R) {
  DiagnosticLocation L;
  if (R.Valid) {
    L.*member(mtpc::LocationFile()) = DIFile::get(Ctx, R.File, R.Directory);
    L.*member(mtpc::LocationLine()) = R.Line;
    L.*member(mtpc::LocationColumn()) = R.Column;
  }
  return L;
}

std::string printed(const DiagnosticInfo &DI) {
  std::string S;
  raw_string_ostream OS(S);
  DiagnosticPrinterRawOStream DP(OS);
  DI.print(DP);
  return OS.str();
}

// The optimization-remark kinds, machine remarks as the IR remark of the
// same meaning: the host reports both the same way.
std::optional<DiagnosticKind> remarkKind(DiagnosticKind K) {
  switch (K) {
  case DK_OptimizationRemark:
  case DK_MachineOptimizationRemark:
    return DK_OptimizationRemark;
  case DK_OptimizationRemarkMissed:
  case DK_MachineOptimizationRemarkMissed:
    return DK_OptimizationRemarkMissed;
  case DK_OptimizationRemarkAnalysis:
  case DK_MachineOptimizationRemarkAnalysis:
    return DK_OptimizationRemarkAnalysis;
  case DK_OptimizationRemarkAnalysisFPCommute:
  case DK_OptimizationRemarkAnalysisAliasing:
  case DK_OptimizationFailure:
    return K;
  default:
    return std::nullopt;
  }
}

// Records into a PartitionDiagnostics; owned by the partition's context.
class RecordingHandler : public DiagnosticHandler {
public:
  RecordingHandler(std::shared_ptr<mtpc::PartitionDiagnostics> Out, std::shared_ptr<mtpc::RemarkPolicy> Remarks)
      : Out(std::move(Out)), Remarks(std::move(Remarks)) {}
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    Out->record(DI);
    return true;
  }
  bool isAnalysisRemarkEnabled(StringRef PassName) const override {
    return Remarks->wanted(&DiagnosticHandler::isAnalysisRemarkEnabled, PassName);
  }
  bool isMissedOptRemarkEnabled(StringRef PassName) const override {
    return Remarks->wanted(&DiagnosticHandler::isMissedOptRemarkEnabled, PassName);
  }
  bool isPassedOptRemarkEnabled(StringRef PassName) const override {
    return Remarks->wanted(&DiagnosticHandler::isPassedOptRemarkEnabled, PassName);
  }
  bool isAnyRemarkEnabled() const override { return Remarks->anyWanted(); }

private:
  std::shared_ptr<mtpc::PartitionDiagnostics> Out;
  std::shared_ptr<mtpc::RemarkPolicy> Remarks;
};

// The asm printer's instruction mix of a block counts instructions by
// mnemonic, which only an assembly streamer knows: a partition prints
// assembly; a host that writes an object counts every instruction under one
// empty mnemonic (LLVM 16 and 19; LLVM 22 counts by opcode, which the
// mnemonics' counts cannot give). The remark is made what that host's
// would be.
void asObjectStreamerCounts(RecordedDiagnostic &R) {
  // "BasicBlock: " <name> "\n", then per mnemonic: <mnemonic> ": " INST_<m> "\n".
  if (R.Args.size() < 3)
    return;
  uint64_t Total = 0;
  for (size_t I = 3; I < R.Args.size(); ++I) {
    uint64_t Count = 0;
    if (StringRef(R.Args[I].Key).starts_with("INST_") && !StringRef(R.Args[I].Val).getAsInteger(10, Count))
      Total += Count;
  }
  R.Args.resize(3);
  R.Args.push_back({"String", "", {}});
  R.Args.push_back({"String", ": ", {}});
  R.Args.push_back({"INST_", std::to_string(Total), {}});
  R.Args.push_back({"String", "\n", {}});
}

} // namespace

mtpc::RemarkPolicy::RemarkPolicy(const LLVMContext &Host, bool HostWritesObject)
    : Host(Host.getDiagHandlerPtr()), Record(Host.getLLVMRemarkStreamer() != nullptr),
      AnyWanted(this->Host && this->Host->isAnyRemarkEnabled()),
      HotnessRequested(Host.getDiagnosticsHotnessRequested()),
      HotnessThreshold(Host.isDiagnosticsHotnessThresholdSetFromPSI()
                           ? std::nullopt
                           : std::optional<uint64_t>(Host.getDiagnosticsHotnessThreshold())),
      MisExpect(Host.getMisExpectWarningRequested()), MisExpectTolerance(Host.getDiagnosticsMisExpectTolerance()),
      HostWritesObject(HostWritesObject) {}

void mtpc::RemarkPolicy::configure(LLVMContext &Partition) const {
  Partition.setDiagnosticsHotnessRequested(HotnessRequested);
  Partition.setDiagnosticsHotnessThreshold(HotnessThreshold);
  Partition.setMisExpectWarningRequested(MisExpect);
  Partition.setDiagnosticsMisExpectTolerance(MisExpectTolerance);
  if (Record) {
    // Passes produce some remarks only where an optimization record is
    // written (they ask the context for its streamer). The host's writes
    // them; the partition's only has to exist: what it writes is thrown
    // away, the handler records each remark for the host.
    static thread_local raw_null_ostream Discard;
    if (std::unique_ptr<remarks::RemarkSerializer> Serializer = mtpc::createYamlRemarkSerializer(Discard)) {
      Partition.setMainRemarkStreamer(std::make_unique<remarks::RemarkStreamer>(std::move(Serializer)));
      Partition.setLLVMRemarkStreamer(std::make_unique<LLVMRemarkStreamer>(*Partition.getMainRemarkStreamer()));
    }
  }
}

// The host's handler is asked exactly what the partition's is: a pass asks
// the streamer (see configure) and the handler separately.
bool mtpc::RemarkPolicy::wanted(Query Ask, StringRef PassName) const {
  if (!AnyWanted)
    return false;
  std::lock_guard<std::mutex> Guard(Lock);
  return (Host->*Ask)(PassName);
}

std::shared_ptr<mtpc::PartitionDiagnostics> mtpc::PartitionDiagnostics::install(LLVMContext &Partition,
                                                                                std::shared_ptr<RemarkPolicy> Remarks) {
  auto Out = std::make_shared<PartitionDiagnostics>();
  Out->HostWritesObject = Remarks->hostWritesObject();
  Remarks->configure(Partition);
  Partition.setDiagnosticHandler(std::make_unique<RecordingHandler>(Out, std::move(Remarks)));
  return Out;
}

void mtpc::PartitionDiagnostics::record(const DiagnosticInfo &DI) {
  if (DI.getSeverity() == DS_Error) {
    Failure += printed(DI) + "\n";
    return;
  }
  RecordedDiagnostic R{static_cast<DiagnosticKind>(DI.getKind()), DI.getSeverity()};
  R.CodeGen = InCodeGen;
  if (auto *O = dyn_cast<DiagnosticInfoOptimizationBase>(&DI)) {
    std::optional<DiagnosticKind> Kind = remarkKind(R.Kind);
    if (!Kind) {
      Failure += "a diagnostic mtpc cannot pass on to the host: " + printed(DI) + "\n";
      return;
    }
    R.Kind = *Kind;
    R.Function = O->getFunction().getName().str();
    R.PassName = O->getPassName().str();
    R.RemarkName = O->getRemarkName().str();
    R.Location = recordLocation(O->getLocation());
    for (const DiagnosticInfoOptimizationBase::Argument &A : O->getArgs())
      R.Args.push_back({A.Key, A.Val, recordLocation(A.Loc)});
    if (R.PassName == "asm-printer" && R.RemarkName == "InstructionMix" && HostWritesObject &&
        mtpc::ObjectMixIsOneEmptyMnemonic)
      asObjectStreamerCounts(R);
    // The first argument only the optimization record shows (-1: none).
    int FirstExtra = O->*member(mtpc::RemarkFirstExtraArg());
    R.FirstExtraArg = FirstExtra < 0 ? R.Args.size() : size_t(FirstExtra);
    R.Verbose = O->isVerbose();
    R.Hotness = O->getHotness();
  } else if (auto *L = dyn_cast<DiagnosticInfoResourceLimit>(&DI)) {
    // Stack frame sizes (-Wframe-larger-than) and other resource limits.
    R.Function = L->getFunction().getName().str();
    R.Resource = L->getResourceName();
    R.Size = L->getResourceSize();
    R.Limit = L->getResourceLimit();
  } else if (auto *C = dyn_cast<DiagnosticInfoDontCall>(&DI)) {
    // A call to a function declared with __attribute__((warning(...))).
    R.Resource = C->getFunctionName().str();
    R.Note = C->getNote().str();
    R.LocCookie = C->getLocCookie();
  } else {
    Failure += "a diagnostic mtpc cannot pass on to the host: " + printed(DI) + "\n";
    return;
  }
  Recorded.push_back(std::move(R));
}

namespace {

// The host's function a diagnostic is about, given an entry block for the
// time of the report if it has none (remarks name their code region by a
// block): a function a partition's pipeline created, or one the host module
// only declares. The stand-in is undone when this object goes.
class HostFunction {
public:
  HostFunction(Module &M, StringRef Name) {
    F = M.getFunction(Name);
    if (!F) {
      Created = Function::Create(FunctionType::get(Type::getVoidTy(M.getContext()), false),
                                 GlobalValue::ExternalLinkage, Name, M);
      F = Created;
    }
    if (F->isDeclaration()) {
      DeclarationLinkage = F->getLinkage();
      new UnreachableInst(M.getContext(), BasicBlock::Create(M.getContext(), "", F));
    }
  }
  ~HostFunction() {
    if (Created) {
      Created->eraseFromParent();
    } else if (DeclarationLinkage) {
      F->deleteBody();
      F->setLinkage(*DeclarationLinkage);
    }
  }
  Function &function() { return *F; }

private:
  Function *F = nullptr;
  Function *Created = nullptr;
  std::optional<GlobalValue::LinkageTypes> DeclarationLinkage;
};

template <typename RemarkT>
void reemitRemark(const RecordedDiagnostic &D, LLVMContext &Ctx, Function &F) {
  RemarkT R(D.PassName.c_str(), D.RemarkName, makeLocation(Ctx, D.Location), &F.getEntryBlock());
  if (D.Verbose)
    R.insert(DiagnosticInfoOptimizationBase::setIsVerbose());
  for (size_t I = 0; I < D.Args.size(); ++I) {
    if (I == D.FirstExtraArg)
      R.insert(DiagnosticInfoOptimizationBase::setExtraArgs());
    DiagnosticInfoOptimizationBase::Argument A;
    A.Key = D.Args[I].Key;
    A.Val = D.Args[I].Val;
    A.Loc = makeLocation(Ctx, D.Args[I].Location);
    R.insert(A);
  }
  R.setHotness(D.Hotness);
  Ctx.diagnose(R);
}

} // namespace

void mtpc::reemit(const RecordedDiagnostic &D, Module &Host, StringRef FunctionName) {
  LLVMContext &Ctx = Host.getContext();
  if (D.Kind == DK_DontCall) {
    Ctx.diagnose(DiagnosticInfoDontCall(D.Resource, D.Note, D.Severity, D.LocCookie));
    return;
  }
  HostFunction F(Host, FunctionName);
  Function &Fn = F.function();
  if (Fn.getName() != FunctionName)
    return; // the name is taken by a variable: nothing to report it against
  switch (D.Kind) {
  case DK_StackSize:
    Ctx.diagnose(DiagnosticInfoStackSize(Fn, D.Size, D.Limit, D.Severity));
    return;
  case DK_ResourceLimit:
    Ctx.diagnose(DiagnosticInfoResourceLimit(Fn, D.Resource.c_str(), D.Size, D.Limit, D.Severity));
    return;
  case DK_OptimizationRemark:
    return reemitRemark<OptimizationRemark>(D, Ctx, Fn);
  case DK_OptimizationRemarkMissed:
    return reemitRemark<OptimizationRemarkMissed>(D, Ctx, Fn);
  case DK_OptimizationRemarkAnalysis:
    return reemitRemark<OptimizationRemarkAnalysis>(D, Ctx, Fn);
  case DK_OptimizationRemarkAnalysisFPCommute:
    return reemitRemark<OptimizationRemarkAnalysisFPCommute>(D, Ctx, Fn);
  case DK_OptimizationRemarkAnalysisAliasing:
    return reemitRemark<OptimizationRemarkAnalysisAliasing>(D, Ctx, Fn);
  case DK_OptimizationFailure:
    return reemitRemark<DiagnosticInfoOptimizationFailure>(D, Ctx, Fn);
  default:
    return;
  }
}

namespace {
// A diagnostics list as handed to Rust, and its diagnostic Index.
std::shared_ptr<mtpc::PartitionDiagnostics> &listOf(void *Diags) {
  return *static_cast<std::shared_ptr<mtpc::PartitionDiagnostics> *>(Diags);
}
const RecordedDiagnostic &diagnosticAt(void *Diags, size_t Index) { return listOf(Diags)->recorded()[Index]; }
// Value J of diagnostic D (see mtpc_diagnostics_value_count).
std::string &valueAt(RecordedDiagnostic &D, size_t J) { return D.Kind == DK_DontCall ? D.Resource : D.Args[J].Val; }
} // namespace

extern "C" {

void mtpc_diagnostics_free(void *Diags) { delete &listOf(Diags); }

size_t mtpc_diagnostics_count(void *Diags) {
  return listOf(Diags)->recorded().size();
}

// The partition's name of the function diagnostic Index is about (empty:
// none), for deciding which partition reports it.
const char *mtpc_diagnostics_function(void *Diags, size_t Index, size_t *Len) {
  const RecordedDiagnostic &D = diagnosticAt(Diags, Index);
  *Len = D.Function.size();
  return D.Function.data();
}

// Everything diagnostic Index says, as one string (free with free()): two
// partitions' diagnostics are the same if their identities are. Null for a
// call to a function with a warning attribute: the code generator
// reports each call it emits, and two partitions' calls alike (one helper's
// call inlined into functions of both) are two calls in the object.
char *mtpc_diagnostics_identity(void *Diags, size_t Index) {
  const RecordedDiagnostic &D = diagnosticAt(Diags, Index);
  if (D.Kind == DK_DontCall)
    return nullptr;
  std::string S;
  raw_string_ostream OS(S);
  auto Location = [&](const mtpc::RecordedLocation &L) {
    OS << '|' << L.Directory << '|' << L.File << ':' << L.Line << ':' << L.Column;
  };
  OS << int(D.Kind) << '|' << int(D.Severity) << '|' << D.Function << '|' << D.PassName << '|' << D.RemarkName;
  Location(D.Location);
  for (const RecordedDiagnostic::Argument &A : D.Args) {
    OS << '|' << A.Key << '=' << A.Val;
    Location(A.Location);
  }
  OS << '|' << D.Resource << '|' << D.Size << '|' << D.Limit << '|' << D.Note << '|' << D.LocCookie;
  return mtpc::copyString(OS.str());
}

// 1 if diagnostic Index came from the code generator, 0 if from the optimizer.
int mtpc_diagnostics_phase(void *Diags, size_t Index) {
  return diagnosticAt(Diags, Index).CodeGen;
}

// The callee of an inliner remark that says a callee's definition is not
// available (null for any other diagnostic).
const char *mtpc_diagnostics_unavailable_callee(void *Diags, size_t Index, size_t *Len) {
  const RecordedDiagnostic &D = diagnosticAt(Diags, Index);
  if (D.PassName != "inline" || D.RemarkName != "NoDefinition")
    return nullptr;
  for (const RecordedDiagnostic::Argument &A : D.Args)
    if (A.Key == "Callee") {
      *Len = A.Val.size();
      return A.Val.data();
    }
  return nullptr;
}

// The names diagnostic Index gives as values, as the host's module would
// name them: a remark's arguments (a callee, a caller, a variable, or text),
// the function a call reaches that a warning attribute marks. Value counts
// them; Value J is at *Len bytes; SetValue replaces it.
size_t mtpc_diagnostics_value_count(void *Diags, size_t Index) {
  const RecordedDiagnostic &D = diagnosticAt(Diags, Index);
  return D.Kind == DK_DontCall ? 1 : D.Args.size();
}

const char *mtpc_diagnostics_value(void *Diags, size_t Index, size_t J, size_t *Len) {
  const std::string &V = valueAt(listOf(Diags)->recorded()[Index], J);
  *Len = V.size();
  return V.data();
}

void mtpc_diagnostics_set_value(void *Diags, size_t Index, size_t J, const char *Text, size_t Len) {
  valueAt(listOf(Diags)->recorded()[Index], J).assign(Text, Len);
}

// Reports diagnostic Index in the host module's context, about the host's
// function FunctionName.
void mtpc_diagnostics_reemit(void *Diags, size_t Index, LLVMModuleRef Host, const char *FunctionName, size_t Len) {
  const RecordedDiagnostic &D = diagnosticAt(Diags, Index);
  mtpc::reemit(D, *unwrap(Host), StringRef(FunctionName, Len));
}

} // extern "C"
