// partition_compile.cpp - the host's code-generation settings, and compiling
// one partition: its pipeline (built from the host's PassBuilder, see
// host_pipeline.cpp) and the code generator, with the host's settings, to
// assembly text or to an object. See shim.h for the rules.
#include "shim.h"
#include "partition_kit.h"

#include "llvm-c/Target.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <utility>

using namespace llvm;
using mtpc::copyString;

// The PassBuilder keeps its TargetMachine, PipelineTuningOptions and
// PGOOptions private.
MTPC_EXPOSE_PRIVATE(PassBuilderTM, TargetMachine *, PassBuilder, TM);
MTPC_EXPOSE_PRIVATE(PassBuilderPTO, PipelineTuningOptions, PassBuilder, PTO);
MTPC_EXPOSE_PRIVATE(PassBuilderPGO, std::optional<PGOOptions>, PassBuilder, PGOOpt);

namespace {
// The first pass debugging option set on LLVM's command line (clang's
// -mllvm, opt's own), or clang's -ftime-report; null if none is.
const char *debuggingOption() {
  static const char *const Names[] = {
      "opt-bisect-limit",    //
      "print-before",        //
      "print-after",         //
      "print-before-all",    //
      "print-after-all",     //
      "print-changed",       //
      "print-after-isel",    //
      "print-on-crash",      //
      "filter-print-funcs",  //
      "filter-passes",       //
      "time-passes",         //
      "time-passes-per-run", //
      "debug-pass",          //
      "debug-pass-manager",  // opt's
  };
  auto &Options = cl::getRegisteredOptions();
  for (const char *Name : Names) {
    auto It = Options.find(Name);
    if (It != Options.end() && It->second->getNumOccurrences() > 0)
      return Name;
  }
  return TimePassesIsEnabled ? "time-passes" : nullptr;
}

// Where the code generator puts call frame information is decided once per
// module, when the asm printer is initialized (AsmPrinter::doInitialization):
// in .eh_frame if a function it emits needs an unwind table entry (it may
// throw, has a personality function or asks for tables), else in
// .debug_frame (with -g or -fforce-dwarf-frame). A partition decides from its
// own functions: one whose functions all neither throw nor ask for tables
// would print `.cfi_sections .debug_frame`, which applies to the whole object
// once the texts are merged (no function would keep an .eh_frame entry: an
// exception thrown elsewhere ends the program), and would write its object's
// entries to .debug_frame only. Where the module's functions need unwind
// tables, one of the partition's functions counts as throwing while the asm
// printer decides: LendUnwinding, initialized before the asm printer, takes
// its nounwind attribute, and ReturnUnwinding, initialized after it and
// before any function is compiled, gives it back. (The pass manager
// initializes all its passes, in order, before it runs any.)
struct UnwindingLent {
  Function *F = nullptr;
};

class LendUnwinding : public ModulePass {
public:
  static char ID;
  explicit LendUnwinding(std::shared_ptr<UnwindingLent> Lent) : ModulePass(ID), Lent(std::move(Lent)) {}
  bool doInitialization(Module &M) override {
    Function *Candidate = nullptr;
    for (Function &F : M) {
      if (F.isDeclarationForLinker())
        continue;
      if (F.needsUnwindTableEntry())
        return false; // the partition's own choice is the module's
      if (!Candidate)
        Candidate = &F;
    }
    if (Candidate) {
      Candidate->removeFnAttr(Attribute::NoUnwind);
      Lent->F = Candidate;
    }
    return false;
  }
  bool runOnModule(Module &) override { return false; }
  StringRef getPassName() const override { return "mtpc: call frame information where the module puts it"; }

private:
  std::shared_ptr<UnwindingLent> Lent;
};
char LendUnwinding::ID = 0;

class ReturnUnwinding : public ModulePass {
public:
  static char ID;
  explicit ReturnUnwinding(std::shared_ptr<UnwindingLent> Lent) : ModulePass(ID), Lent(std::move(Lent)) {}
  bool doInitialization(Module &) override {
    if (Function *F = std::exchange(Lent->F, nullptr))
      F->addFnAttr(Attribute::NoUnwind);
    return false;
  }
  bool runOnModule(Module &) override { return false; }
  StringRef getPassName() const override { return "mtpc: nounwind given back"; }

private:
  std::shared_ptr<UnwindingLent> Lent;
};
char ReturnUnwinding::ID = 0;
} // namespace

std::unique_ptr<mtpc::HostSettings> mtpc::HostSettings::capture(PassBuilder &PB) {
  TargetMachine *TM = PB.*member(mtpc::PassBuilderTM());
  if (!TM)
    return nullptr;
  auto H = std::make_unique<HostSettings>();
  H->Triple = TM->getTargetTriple().str();
  H->CPU = TM->getTargetCPU().str();
  H->Features = TM->getTargetFeatureString().str();
  H->Options = TM->Options;
  H->RM = TM->getRelocationModel();
  H->CM = TM->getCodeModel();
  H->OL = TM->getOptLevel();
  H->TheTarget = &TM->getTarget();
  H->Source = TM;
  H->PTO = PB.*member(mtpc::PassBuilderPTO());
  H->PGOOpt = PB.*member(mtpc::PassBuilderPGO());
  H->TMPGOOpt = TM->getPGOOption();
  H->CommandLine = std::make_shared<const std::vector<std::string>>(mtpc::commandLineArgs(H->Options.MCOptions));
  mtpc::referToCommandLineArgs(H->Options.MCOptions, *H->CommandLine);
  H->DebuggingOption = debuggingOption();
  return H;
}

std::unique_ptr<TargetMachine> mtpc::HostSettings::createTargetMachine(ObjectFormat Format) const {
  TargetOptions MachineOptions = Options;
  if (Format == ObjectFormat::ForTranscript)
    mtpc::writeForTranscript(MachineOptions);
  std::unique_ptr<TargetMachine> TM(TheTarget->createTargetMachine(mtpc::tripleArg(llvm::Triple(Triple)), CPU, Features,
                                                                   MachineOptions, RM, CM, OL));
  if (TM)
    TM->setPGOOption(TMPGOOpt);
  return TM;
}

mtpc::HostSettings::MCDescriptions mtpc::HostSettings::describeMC() const {
  const auto TT = mtpc::tripleArg(llvm::Triple(Triple));
  MCDescriptions D{Options.MCOptions, std::unique_ptr<MCRegisterInfo>(TheTarget->createMCRegInfo(TT)), nullptr,
                   std::unique_ptr<MCSubtargetInfo>(TheTarget->createMCSubtargetInfo(TT, CPU, Features))};
  if (D.MRI)
    D.MAI.reset(TheTarget->createMCAsmInfo(*D.MRI, TT, D.Options));
  return D;
}

extern "C" {

// Settings of a target machine for Triple with LLVM's defaults (PIC), for
// tests that have no host; null if the target is not registered (the
// targets are initialized here, as every host has done before it loads a
// plugin).
void *mtpc_host_settings_for_triple(const char *Triple) {
  // Once per process: registering a target is not thread-safe (two threads
  // registering it at once link it into the registry twice, and a lookup
  // then never ends), and Rust's tests call this from several threads.
  static const bool Registered = [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmParser();
    return true;
  }();
  (void)Registered;
  std::string Error;
  const Target *T = TargetRegistry::lookupTarget(Triple, Error);
  if (!T)
    return nullptr;
  auto *H = new mtpc::HostSettings();
  H->Triple = Triple;
  H->TheTarget = T;
  H->RM = Reloc::PIC_;
  return H;
}

// What mtpc needs to know of the host to decide whether it can compile a
// module as the host would (mirrored in Rust, decline.rs).
struct MtpcHostFacts {
  bool ObjectFormatElf;
  bool ArchX86_64;
  bool IntegratedAssembler;
  bool SplitDwarf;
  bool StackUsage;
  int PGOAction;   // PGOOptions::PGOAction: none, IR instr, IR use, sample use
  int CSPGOAction; // PGOOptions::CSPGOAction: none, CS IR instr, CS IR use
  bool PseudoProbes;
  size_t CommandLineArgs;
  const char *DebuggingOption; // static, or null
};

void mtpc_host_settings_facts(void *HP, MtpcHostFacts *Facts) {
  auto *H = static_cast<mtpc::HostSettings *>(HP);
  llvm::Triple T(H->Triple);
  Facts->ObjectFormatElf = T.isOSBinFormatELF();
  Facts->ArchX86_64 = T.getArch() == llvm::Triple::x86_64;
  Facts->IntegratedAssembler = !H->Options.DisableIntegratedAS;
  Facts->SplitDwarf = !H->Options.MCOptions.SplitDwarfFile.empty();
  Facts->StackUsage = !H->Options.StackUsageOutput.empty();
  Facts->PGOAction = H->PGOOpt ? int(H->PGOOpt->Action) : 0;
  Facts->CSPGOAction = H->PGOOpt ? int(H->PGOOpt->CSAction) : 0;
  Facts->PseudoProbes = H->PGOOpt && H->PGOOpt->PseudoProbeForProfiling;
  Facts->CommandLineArgs = H->CommandLine ? H->CommandLine->size() : 0;
  Facts->DebuggingOption = H->DebuggingOption;
}

// Argument Index of the compiler command line clang records in the target
// options (its -cc1 arguments; empty in other hosts).
const char *mtpc_host_settings_command_line_arg(void *HP, size_t Index) {
  return (*static_cast<mtpc::HostSettings *>(HP)->CommandLine)[Index].c_str();
}

// The target triple.
const char *mtpc_host_settings_triple(void *HP, size_t *Len) {
  const std::string &T = static_cast<mtpc::HostSettings *>(HP)->Triple;
  *Len = T.size();
  return T.data();
}

void mtpc_host_settings_free(void *H) { delete static_cast<mtpc::HostSettings *>(H); }

// "triple=...;cpu=...;features=...;reloc=...;..." for logs and tests.
char *mtpc_host_settings_describe(void *HP) {
  auto *H = static_cast<mtpc::HostSettings *>(HP);
  std::string S;
  raw_string_ostream OS(S);
  OS << "triple=" << H->Triple << ";cpu=" << H->CPU << ";features=" << H->Features
     << ";reloc=" << (H->RM ? int(*H->RM) : -1) << ";code-model=" << (H->CM ? int(*H->CM) : -1)
     << ";codegen-opt=" << int(H->OL) << ";function-sections=" << H->Options.FunctionSections
     << ";data-sections=" << H->Options.DataSections << ";pgo=" << (H->PGOOpt ? 1 : 0)
     << ";loop-vectorize=" << H->PTO.LoopVectorization << ";slp-vectorize=" << H->PTO.SLPVectorization
     << ";unroll=" << H->PTO.LoopUnrolling;
  return copyString(OS.str());
}

// Optimizes partition M with its kit's pipeline (M must be valid: the
// caller verifies it), in *OptMs. On failure returns false with *Error
// (free with free()); nothing is thrown. Label names the partition in the
// time trace. The kit's pipeline and analyses are freed afterwards: only
// its code generator is left (mtpc_kit_codegen).
bool mtpc_kit_optimize(void *KitP, LLVMModuleRef MRef, const char *Label, double *OptMs, char **Error) {
  using Clock = std::chrono::steady_clock;
  auto *Kit = static_cast<mtpc::PartitionKit *>(KitP);
  Module &M = *unwrap(MRef);
  if (!Kit->Recorded) {
    *Error = copyString("the kit was not given the partition's context (mtpc_kit_adopt_context)");
    return false;
  }
  if (!Kit->Recorded->failure().empty()) {
    *Error = copyString("reading the partition failed: " + Kit->Recorded->failure());
    return false;
  }
  auto Start = Clock::now();
  {
    TimeTraceScope Scope("mtpc optimize", Label);
    Kit->MPM.run(M, Kit->MAM);
    // Done with: the pipeline and the analyses it computed (which grow with
    // the module) are freed before code generation, not after it.
    Kit->MPM = ModulePassManager();
    Kit->MAM.clear();
  }
  *OptMs = std::chrono::duration<double, std::milli>(Clock::now() - Start).count();
  if (!Kit->Recorded->failure().empty()) {
    *Error = copyString("optimization failed: " + Kit->Recorded->failure());
    return false;
  }
  return true;
}

// Compiles partition M, optimized (mtpc_kit_optimize), to assembly text, or
// to an object if its kit writes one (mtpc_run_environment), with its kit's
// code generator: a buffer handle in *Output (free with
// mtpc_buffer_dispose), its bytes in *Data, *Len, the time in *CodegenMs.
// Hands over everything the partition reported, optimizer and code
// generator, in *Diags (free with mtpc_diagnostics_free). On failure
// returns false with *Error (free with free()). The kit is consumed.
bool mtpc_kit_codegen(void *KitP, LLVMModuleRef MRef, const char *Label, void **Output, const char **Data, size_t *Len,
                      double *CodegenMs, void **Diags, char **Error) {
  using Clock = std::chrono::steady_clock;
  std::unique_ptr<mtpc::PartitionKit> Kit(static_cast<mtpc::PartitionKit *>(KitP));
  Module &M = *unwrap(MRef);
  if (!Kit->Recorded) {
    *Error = copyString("the kit was not given the partition's context (mtpc_kit_adopt_context)");
    return false;
  }
  std::shared_ptr<mtpc::PartitionDiagnostics> Recorded = Kit->Recorded;
  *Diags = new std::shared_ptr<mtpc::PartitionDiagnostics>(Recorded);
  // Comments only where the text is what the host prints (clang -S), as
  // the host's settings ask for them: an object has none, and a text the
  // host assembles reads faster without them.
  if (Kit->WritesObject || Kit->Remarks->hostWritesObject())
    Kit->TM->Options.MCOptions.AsmVerbose = false;
  auto Start = Clock::now();
  auto Text = std::make_unique<SmallVector<char, 0>>();
  Recorded->enterCodeGen();
  {
    TimeTraceScope Scope("mtpc codegen", Label);
    raw_svector_ostream OS(*Text);
    legacy::PassManager CodeGen;
    CodeGen.add(new TargetLibraryInfoWrapperPass(*Kit->LibraryInfo));
    auto *MMIWP = new MachineModuleInfoWrapperPass(static_cast<mtpc::CodeGenTargetMachine *>(Kit->TM.get()));
    // Every part numbers the module's files alike, so that its debug
    // information and line table say what the merged text's do.
    CodeGen.add(mtpc::createReserveFileNumbersPass(Kit->Files, MMIWP, Kit->WritesObject));
    auto Lent = std::make_shared<UnwindingLent>();
    if (Kit->UnwindTables)
      CodeGen.add(new LendUnwinding(Lent));
    auto FileType = Kit->WritesObject ? mtpc::ObjectFileType : mtpc::AssemblyFileType;
    if (Kit->TM->addPassesToEmitFile(CodeGen, OS, nullptr, FileType, /*DisableVerify=*/true, MMIWP)) {
      *Error = copyString(Kit->WritesObject ? "the target cannot emit objects" : "the target cannot emit assembly");
      return false;
    }
    if (Kit->UnwindTables)
      CodeGen.add(new ReturnUnwinding(Lent));
    CodeGen.run(M);
  }
  *CodegenMs = std::chrono::duration<double, std::milli>(Clock::now() - Start).count();
  if (!Recorded->failure().empty()) {
    *Error = copyString("code generation failed: " + Recorded->failure());
    return false;
  }
  *Data = Text->data();
  *Len = Text->size();
  *Output = Text.release();
  return true;
}

// Makes Context, new and empty, the one the partition is read into: it
// discards value names if the host's does (clang's does, and the names of
// blocks show in remarks and assembly comments), and records what it
// reports from now on: the reader's and the verifier's diagnostics are the
// partition's too, recorded as the pipeline's are, not printed by LLVM's
// default handler.
void mtpc_kit_adopt_context(void *KitP, LLVMContextRef Context) {
  auto *Kit = static_cast<mtpc::PartitionKit *>(KitP);
  unwrap(Context)->setDiscardValueNames(Kit->DiscardValueNames);
  Kit->Recorded = mtpc::PartitionDiagnostics::install(*unwrap(Context), Kit->Remarks);
}

// Frees a kit that was never compiled with (a partition that failed before).
void mtpc_kit_free(void *Kit) { delete static_cast<mtpc::PartitionKit *>(Kit); }

} // extern "C"
