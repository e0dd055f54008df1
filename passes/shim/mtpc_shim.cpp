// mtpc_shim.cpp - the few LLVM operations that the LLVM-C API of LLVM 16 lacks.
//
// Rules (after rustc's llvm-wrapper): every entry point takes and returns
// opaque LLVM-C handles, never throws (LLVM is built without exceptions),
// reports failure through its return value, and does one small thing. The
// logic that decides what to do lives in Rust; this file only does it.
#include "llvm-c/Core.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>

using namespace llvm;

static_assert(LLVM_VERSION_MAJOR == 16, "mtpc's shim is written for LLVM 16");

// llvm::Any (how pass instrumentation is handed the IR unit) identifies a
// type by the address of Any::TypeId<T>::Id. The pass-manager code inlined
// into this library must use libLLVM's copies, the ones the instrumentation
// callbacks compiled into libLLVM compare with; a copy of its own would be
// private to libmtpc.so (a Rust cdylib exports only its entry point), and
// every any_cast in those callbacks would fail.
extern template struct llvm::Any::TypeId<const llvm::Module *>;
extern template struct llvm::Any::TypeId<const llvm::Function *>;
extern template struct llvm::Any::TypeId<const llvm::LazyCallGraph::SCC *>;
extern template struct llvm::Any::TypeId<const llvm::Loop *>;

// M as bitcode, without the LTO symbol table (LLVMWriteBitcodeTo* add one):
// partitions are read back by LLVM, never by a linker.
static SmallVector<char, 0> writeBitcode(Module &M) {
  SmallVector<char, 0> Buffer;
  Buffer.reserve(1 << 20);
  BitcodeWriter Writer(Buffer);
  Writer.writeModule(M);
  Writer.writeStrtab();
  return Buffer;
}

extern "C" {

unsigned mtpc_llvm_version_major(void) { return LLVM_VERSION_MAJOR; }

bool mtpc_is_dso_local(LLVMValueRef V) { return unwrap<GlobalValue>(V)->isDSOLocal(); }

void mtpc_set_dso_local(LLVMValueRef V, bool Local) { unwrap<GlobalValue>(V)->setDSOLocal(Local); }

// The text of an inline asm callee, or null if V is not inline asm.
const char *mtpc_inline_asm_string(LLVMValueRef V, size_t *Len) {
  auto *IA = dyn_cast<InlineAsm>(unwrap(V));
  if (!IA)
    return nullptr;
  *Len = IA->getAsmString().size();
  return IA->getAsmString().data();
}

// Reading metadata without changing the context. LLVM-C hands metadata out
// wrapped as values (LLVMGetMetadata, LLVMGetMDNodeOperands), which creates
// a MetadataAsValue in the context; these only read, so that the module can
// be planned while other threads serialize and verify it.

// The node attached to instruction I under Kind, or null.
LLVMMetadataRef mtpc_instruction_metadata(LLVMValueRef I, unsigned Kind) {
  return wrap(unwrap<Instruction>(I)->getMetadata(Kind));
}

// The number of operands of MD if it is a node, else 0.
unsigned mtpc_md_node_num_operands(LLVMMetadataRef MD) {
  auto *N = dyn_cast<MDNode>(unwrap(MD));
  return N ? N->getNumOperands() : 0;
}

// Operand Index of node MD: the value of a value operand (*Value), or the
// text of a string operand (*Str, *Len); both null for anything else.
void mtpc_md_node_operand(LLVMMetadataRef MD, unsigned Index, LLVMValueRef *Value, const char **Str,
                          size_t *Len) {
  *Value = nullptr;
  *Str = nullptr;
  *Len = 0;
  const MDOperand &Op = cast<MDNode>(unwrap(MD))->getOperand(Index);
  if (auto *V = dyn_cast_or_null<ValueAsMetadata>(Op.get())) {
    *Value = wrap(V->getValue());
  } else if (auto *S = dyn_cast_or_null<MDString>(Op.get())) {
    *Str = S->getString().data();
    *Len = S->getString().size();
  }
}

// Turns a function into a declaration without materializing a lazily loaded
// body: drops blocks, attachments, personality, prefix and prologue data.
void mtpc_function_delete_body(LLVMValueRef F) {
  unwrap<Function>(F)->deleteBody();
}

// Materializes one lazily loaded function body. Returns false and sets
// *Message (to be freed with LLVMDisposeMessage) on failure.
bool mtpc_materialize(LLVMValueRef GV, char **Message) {
  if (Error E = unwrap<GlobalValue>(GV)->materialize()) {
    *Message = strdup(toString(std::move(E)).c_str());
    return false;
  }
  return true;
}

// True if no function of M still waits for its body to be read.
bool mtpc_all_bodies_read(LLVMModuleRef M) {
  return llvm::none_of(*unwrap(M), [](const Function &F) { return F.isMaterializable(); });
}

// Finishes a lazy load: LLVM's bitcode upgrades run (for a module with debug
// info, the verifier, fatal if it fails), then the reader is freed.
bool mtpc_materialize_all(LLVMModuleRef M, char **Message) {
  if (Error E = unwrap(M)->materializeAll()) {
    *Message = strdup(toString(std::move(E)).c_str());
    return false;
  }
  return true;
}

// True if nothing but dead constants uses GV (and removes those constants).
bool mtpc_global_is_unused(LLVMValueRef V) {
  auto *GV = unwrap<GlobalValue>(V);
  GV->removeDeadConstantUsers();
  return GV->use_empty();
}

// Erases any global value (function, variable, alias or ifunc) from its module.
void mtpc_erase_global(LLVMValueRef V) {
  auto *GV = unwrap<GlobalValue>(V);
  GV->removeDeadConstantUsers();
  GV->eraseFromParent();
}

// Replaces an alias or ifunc by a declaration of the same name, type,
// visibility, dso_local and thread-local mode; returns the declaration.
LLVMValueRef mtpc_replace_with_declaration(LLVMValueRef V) {
  auto *GV = unwrap<GlobalValue>(V);
  Module &M = *GV->getParent();
  std::string Name = GV->getName().str();
  GV->setName("");
  GlobalValue *Decl;
  if (auto *FTy = dyn_cast<FunctionType>(GV->getValueType())) {
    Decl = Function::Create(FTy, GlobalValue::ExternalLinkage, GV->getAddressSpace(), Name, &M);
  } else {
    auto *Var = new GlobalVariable(M, GV->getValueType(), /*isConstant=*/false,
                                   GlobalValue::ExternalLinkage, nullptr, Name, nullptr,
                                   GV->getThreadLocalMode(), GV->getAddressSpace());
    Decl = Var;
  }
  Decl->setVisibility(GV->getVisibility());
  Decl->setDSOLocal(GV->isDSOLocal());
  Decl->setUnnamedAddr(GV->getUnnamedAddr());
  GV->replaceAllUsesWith(Decl);
  GV->eraseFromParent();
  return wrap(Decl);
}

// Replaces every use of an alias by its aliasee and erases the alias.
void mtpc_resolve_alias(LLVMValueRef V) {
  auto *GA = unwrap<GlobalAlias>(V);
  GA->replaceAllUsesWith(GA->getAliasee());
  GA->eraseFromParent();
}

// Writes M as bitcode. Returns the buffer the writer filled, as an opaque
// handle (free with mtpc_bitcode_dispose), and its bytes in *Data, *Size:
// the caller reads them in place, without a copy.
void *mtpc_bitcode_write(LLVMModuleRef M, const char **Data, size_t *Size) {
  auto *Buffer = new SmallVector<char, 0>(writeBitcode(*unwrap(M)));
  *Data = Buffer->data();
  *Size = Buffer->size();
  return Buffer;
}

void mtpc_bitcode_dispose(void *Bitcode) { delete static_cast<SmallVector<char, 0> *>(Bitcode); }

// Writes M as bitcode to the file Path. Returns false and sets *Message
// (free with free()) on failure.
bool mtpc_write_bitcode_file(LLVMModuleRef M, const char *Path, char **Message) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (!EC) {
    SmallVector<char, 0> Buffer = writeBitcode(*unwrap(M));
    OS.write(Buffer.data(), Buffer.size());
    OS.close();
    EC = OS.error();
    OS.clear_error();
  }
  if (EC) {
    *Message = strdup(EC.message().c_str());
    return false;
  }
  return true;
}

// The integer value of a module flag (e.g. "PIC Level"), or -1 if absent.
int64_t mtpc_module_flag_int(LLVMModuleRef M, const char *Name) {
  if (auto *CI = mdconst::extract_or_null<ConstantInt>(unwrap(M)->getModuleFlag(Name)))
    return CI->getSExtValue();
  return -1;
}

// Ends the process with LLVM's usual "LLVM ERROR: <message>" and exit code
// 1, without a crash report: for errors in the user's input or request.
void mtpc_report_fatal_error(const char *Message) {
  report_fatal_error(Twine(Message), /*gen_crash_diag=*/false);
}

} // extern "C"

// --- The host's code-generation and pipeline settings -----------------------
//
// LLVM 16's PassBuilder keeps its TargetMachine, PipelineTuningOptions and
// PGOOptions private and offers no accessor. The explicitly instantiated
// template below is the standard-conforming way to name a private member
// (access checks do not apply to explicit instantiations); it names the
// members of LLVM 16's PassBuilder, nothing else, so it breaks at compile
// time, not at run time, if they change.
namespace {
template <typename Tag, typename Tag::type Member> struct Expose {
  friend typename Tag::type member(Tag) { return Member; }
};
struct PassBuilderTM {
  using type = TargetMachine *PassBuilder::*;
  friend type member(PassBuilderTM);
};
struct PassBuilderPTO {
  using type = PipelineTuningOptions PassBuilder::*;
  friend type member(PassBuilderPTO);
};
struct PassBuilderPGO {
  using type = std::optional<PGOOptions> PassBuilder::*;
  friend type member(PassBuilderPGO);
};
template struct Expose<PassBuilderTM, &PassBuilder::TM>;
template struct Expose<PassBuilderPTO, &PassBuilder::PTO>;
template struct Expose<PassBuilderPGO, &PassBuilder::PGOOpt>;

// What a partition must be compiled with: everything the host would use.
struct HostSettings {
  std::string Triple, CPU, Features;
  TargetOptions Options;
  std::optional<Reloc::Model> RM;
  std::optional<CodeModel::Model> CM;
  CodeGenOpt::Level OL = CodeGenOpt::Default;
  const Target *TheTarget = nullptr;
  PipelineTuningOptions PTO;
  std::optional<PGOOptions> PGOOpt;
};

// Collects error diagnostics instead of letting LLVM exit the process.
struct CollectErrors : DiagnosticHandler {
  std::string *Errors;
  explicit CollectErrors(std::string *E) : Errors(E) {}
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() == DS_Error) {
      raw_string_ostream OS(*Errors);
      DiagnosticPrinterRawOStream DP(OS);
      DI.print(DP);
      OS << "\n";
    }
    return true;
  }
};

char *copyString(const std::string &S) { return strdup(S.c_str()); }
} // namespace

extern "C" {

// Captures the settings of the host PassBuilder `PB` (an llvm::PassBuilder*).
// Returns null if the host has no TargetMachine (then mtpc cannot compile).
void *mtpc_host_settings_capture(void *PB) {
  auto *Builder = static_cast<PassBuilder *>(PB);
  TargetMachine *TM = Builder->*member(PassBuilderTM());
  if (!TM)
    return nullptr;
  auto *H = new HostSettings();
  H->Triple = TM->getTargetTriple().str();
  H->CPU = TM->getTargetCPU().str();
  H->Features = TM->getTargetFeatureString().str();
  H->Options = TM->Options;
  H->RM = TM->getRelocationModel();
  H->CM = TM->getCodeModel();
  H->OL = TM->getOptLevel();
  H->TheTarget = &TM->getTarget();
  H->PTO = Builder->*member(PassBuilderPTO());
  H->PGOOpt = Builder->*member(PassBuilderPGO());
  return H;
}

void mtpc_host_settings_free(void *H) { delete static_cast<HostSettings *>(H); }

// "cpu=...;features=...;reloc=...;code-model=...;opt=...;function-sections=..."
// for logs and tests.
char *mtpc_host_settings_describe(void *HP) {
  auto *H = static_cast<HostSettings *>(HP);
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

// Optimizes partition M as the host would (Level 0-5 = O0 O1 O2 O3 Os Oz;
// Phase 0 = per-module pipeline, 1 = ThinLTO post-link pipeline) and
// compiles it to assembly text (*Asm, *Len; free with free()). M must be
// valid: the caller verifies it. On failure returns false with *Error (free
// with free()); nothing is thrown.
bool mtpc_compile_partition(void *HP, LLVMModuleRef MRef, int Level, int Phase, char **Asm,
                            size_t *Len, double *OptMs, double *CodegenMs, char **Error) {
  using Clock = std::chrono::steady_clock;
  auto *H = static_cast<HostSettings *>(HP);
  Module &M = *unwrap(MRef);
  std::string Errors;
  M.getContext().setDiagnosticHandler(std::make_unique<CollectErrors>(&Errors));
  std::unique_ptr<TargetMachine> TM(
      H->TheTarget->createTargetMachine(H->Triple, H->CPU, H->Features, H->Options, H->RM, H->CM, H->OL));
  if (!TM) {
    *Error = copyString("cannot create a target machine for " + H->Triple);
    return false;
  }
  TM->Options.MCOptions.AsmVerbose = false;
  auto OptStart = Clock::now();
  {
    TimeTraceScope Scope("mtpc optimize", M.getModuleIdentifier());
    // The instrumentation a host's pipeline has and a partition's needs:
    // optnone functions are left alone, and under -ftime-trace every pass
    // shows in the trace of this worker thread.
    PassInstrumentationCallbacks PIC;
    OptNoneInstrumentation OptNone(/*DebugLogging=*/false);
    OptNone.registerCallbacks(PIC);
    TimeProfilingPassesHandler TimeProfiling;
    TimeProfiling.registerCallbacks(PIC);
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PassBuilder PB(TM.get(), H->PTO, H->PGOOpt, &PIC);
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    static const OptimizationLevel Levels[] = {OptimizationLevel::O0, OptimizationLevel::O1, OptimizationLevel::O2,
                                               OptimizationLevel::O3, OptimizationLevel::Os, OptimizationLevel::Oz};
    OptimizationLevel L = Levels[Level < 0 || Level > 5 ? 2 : Level];
    ModulePassManager MPM;
    if (L == OptimizationLevel::O0)
      MPM = PB.buildO0DefaultPipeline(L, /*LTOPreLink=*/false);
    else if (Phase == 1)
      MPM = PB.buildThinLTODefaultPipeline(L, /*ImportSummary=*/nullptr);
    else
      MPM = PB.buildPerModuleDefaultPipeline(L);
    MPM.run(M, MAM);
  }
  if (!Errors.empty()) {
    *Error = copyString("optimization failed: " + Errors);
    return false;
  }
  auto CodegenStart = Clock::now();
  *OptMs = std::chrono::duration<double, std::milli>(CodegenStart - OptStart).count();
  SmallString<0> Text;
  {
    TimeTraceScope Scope("mtpc codegen", M.getModuleIdentifier());
    raw_svector_ostream OS(Text);
    legacy::PassManager CodeGen;
    if (TM->addPassesToEmitFile(CodeGen, OS, nullptr, CGFT_AssemblyFile)) {
      *Error = copyString("the target cannot emit assembly");
      return false;
    }
    CodeGen.run(M);
  }
  *CodegenMs = std::chrono::duration<double, std::milli>(Clock::now() - CodegenStart).count();
  if (!Errors.empty()) {
    *Error = copyString("code generation failed: " + Errors);
    return false;
  }
  *Asm = static_cast<char *>(malloc(Text.size() ? Text.size() : 1));
  memcpy(*Asm, Text.data(), Text.size());
  *Len = Text.size();
  return true;
}

// -ftime-trace (clang) and --time-trace (lld, opt): LLVM's time profiler
// keeps one instance per thread. A worker thread gets its own for the
// length of one job, and hands it to the host's instance when the job ends
// (timeTraceProfilerFinishThread), which writes it with its own.

bool mtpc_time_trace_enabled(void) { return timeTraceProfilerEnabled(); }

void mtpc_time_trace_thread_start(unsigned GranularityUs) {
  if (!timeTraceProfilerEnabled())
    timeTraceProfilerInitialize(GranularityUs, "mtpc");
}

void mtpc_time_trace_thread_finish(void) {
  if (timeTraceProfilerEnabled())
    timeTraceProfilerFinishThread();
}

void mtpc_time_trace_begin(const char *Name, const char *Detail) { timeTraceProfilerBegin(Name, Detail); }

void mtpc_time_trace_end(void) { timeTraceProfilerEnd(); }

// Replaces everything the module defines by Asm, as module-level inline
// asm: functions, variables, aliases, ifuncs and the debug-info and ident
// metadata go (the text carries them); the module flags stay.
void mtpc_replace_module_with_asm(LLVMModuleRef MRef, const char *Asm, size_t Len) {
  Module &M = *unwrap(MRef);
  M.dropAllReferences();
  while (!M.ifunc_empty())
    M.ifunc_begin()->eraseFromParent();
  while (!M.alias_empty())
    M.alias_begin()->eraseFromParent();
  while (!M.empty())
    M.begin()->eraseFromParent();
  while (!M.global_empty())
    M.global_begin()->eraseFromParent();
  for (const char *Name : {"llvm.dbg.cu", "llvm.ident", "llvm.linker.options", "llvm.dependent-libraries"})
    if (NamedMDNode *N = M.getNamedMetadata(Name))
      M.eraseNamedMetadata(N);
  M.setModuleInlineAsm(std::string(Asm, Len));
}

} // extern "C"
