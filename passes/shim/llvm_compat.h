// llvm_compat.h - what differs between the LLVM majors mtpc is built for
// (16, 19 and 22), named once, so that the rest of the shim is written for
// all of them. The Rust side's differences are in src/ir/llvm_version.rs.
#pragma once

#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Pass.h" // ThinOrFullLTOPhase
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#if LLVM_VERSION_MAJOR >= 20
#include "llvm/CodeGen/CodeGenTargetMachineImpl.h"
#endif

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class DICompileUnit;
class formatted_raw_ostream;
class MCAsmBackend;
class MCCodeEmitter;
class MCContext;
class MCObjectWriter;
class MCStreamer;
class MCSubtargetInfo;
class MCTargetOptions;
class Target;
class raw_ostream;
namespace remarks {
class RemarkSerializer;
}
} // namespace llvm

static_assert(LLVM_VERSION_MAJOR == 16 || LLVM_VERSION_MAJOR == 19 || LLVM_VERSION_MAJOR == 22,
              "mtpc's shim is written for LLVM 16, 19 and 22");

namespace mtpc {

// Code generation's optimization level and output kind (enum classes of
// their own from LLVM 18).
#if LLVM_VERSION_MAJOR >= 18
using CodeGenOptLevel = llvm::CodeGenOptLevel;
constexpr llvm::CodeGenFileType AssemblyFileType = llvm::CodeGenFileType::AssemblyFile;
constexpr llvm::CodeGenFileType ObjectFileType = llvm::CodeGenFileType::ObjectFile;
#else
using CodeGenOptLevel = llvm::CodeGenOpt::Level;
constexpr llvm::CodeGenFileType AssemblyFileType = llvm::CGFT_AssemblyFile;
constexpr llvm::CodeGenFileType ObjectFileType = llvm::CGFT_ObjectFile;
#endif

// The target triple as the Target's factories take it (an llvm::Triple from
// LLVM 21, a string before).
#if LLVM_VERSION_MAJOR >= 21
inline const llvm::Triple &tripleArg(const llvm::Triple &T) { return T; }
#else
inline std::string tripleArg(const llvm::Triple &T) { return T.str(); }
#endif

// Makes target options write an object a transcript reads: debug sections
// not compressed (-gz; a TargetOptions field in LLVM 16, an MCTargetOptions
// one by LLVM 19), relocations in RELA sections, not CREL (-Wa,--crel, from
// LLVM 19). The host compresses and encodes what it writes from the
// transcript as its settings say.
inline void writeForTranscript(llvm::TargetOptions &Options) {
#if LLVM_VERSION_MAJOR >= 19
  Options.MCOptions.CompressDebugSections = llvm::DebugCompressionType::None;
  Options.MCOptions.Crel = false;
#else
  Options.CompressDebugSections = llvm::DebugCompressionType::None;
#endif
}

// Moves every function, global variable, alias and ifunc of From to the end
// of To's lists, in their order, without copying or freeing anything (the
// lists of global variables, aliases and ifuncs are private from LLVM 17).
// They leave their comdats, which are From's.
void moveGlobalValues(llvm::Module &From, llvm::Module &To);

// The code generator's TargetMachine class (LLVMTargetMachine before LLVM 20).
#if LLVM_VERSION_MAJOR >= 20
using CodeGenTargetMachine = llvm::CodeGenTargetMachineImpl;
#else
using CodeGenTargetMachine = llvm::LLVMTargetMachine;
#endif

// How the asm printer words the instruction mix when it writes an object:
// assembly text counts by mnemonic (movl); an object, which has none, counts
// every instruction under one empty mnemonic in LLVM 16 and 19 (true), by
// opcode (MOV32rr) in LLVM 22 (false: not made from the mnemonics' counts).
constexpr bool ObjectMixIsOneEmptyMnemonic = LLVM_VERSION_MAJOR < 22;

// The rest is defined in llvm_compat.cpp.

// The compiler's arguments a host recorded in its MC options (clang's -cc1
// arguments; a list before LLVM 20, one quoted string from 20).
std::vector<std::string> commandLineArgs(const llvm::MCTargetOptions &Options);
// Points Options' list of arguments at Args, which outlives it (before
// LLVM 20 the options only refer to the host's list; from 20 they own it).
void referToCommandLineArgs(llvm::MCTargetOptions &Options, const std::vector<std::string> &Args);

// An object streamer for T, relaxing and linker-compatible as Options (the
// context's) say.
llvm::MCStreamer *createObjectStreamer(const llvm::Target &T, const llvm::Triple &TT, llvm::MCContext &Ctx,
                                       std::unique_ptr<llvm::MCAsmBackend> Backend,
                                       std::unique_ptr<llvm::MCObjectWriter> Writer,
                                       std::unique_ptr<llvm::MCCodeEmitter> Emitter, const llvm::MCSubtargetInfo &STI,
                                       const llvm::MCTargetOptions &Options);

// A streamer writing terse assembly text to OS, with file directories as
// UseDwarfDirectory says (from LLVM 19 as the context's MC options say:
// give it options that say the same, with AsmVerbose off).
std::unique_ptr<llvm::MCStreamer> createAsmTextStreamer(llvm::MCContext &Ctx,
                                                        std::unique_ptr<llvm::formatted_raw_ostream> OS,
                                                        bool UseDwarfDirectory);

// Whether compile unit CU is C++'s (its language a plain DWARF code before
// LLVM 22, possibly a versioned language name from 22).
bool isCxxUnit(const llvm::DICompileUnit &CU);

// Calls Each with the metadata of the debug records attached to I (their
// variable or label, expression and location; none in LLVM 16).
void forEachDebugRecordMetadata(const llvm::Instruction &I, llvm::function_ref<void(const llvm::Metadata *)> Each);

// Calls Each with every value that a debug variable location of I names:
// the location operands (a DIArgList's each) and an assignment's address,
// of I itself if it is a debug intrinsic (llvm.dbg.value and friends) and,
// from LLVM 19, of the debug records attached to I. Only reads.
void forEachDebugLocationValue(const llvm::Instruction &I, llvm::function_ref<void(const llvm::Value *)> Each);

// A YAML remark serializer writing to OS.
std::unique_ptr<llvm::remarks::RemarkSerializer> createYamlRemarkSerializer(llvm::raw_ostream &OS);

// A module pass in a pass manager, and an analysis registered with an
// analysis manager (LLVM 18 dropped their PreservedAnalyses parameter).
#if LLVM_VERSION_MAJOR >= 18
template <typename IRUnitT, typename PassT, typename AnalysisManagerT>
using PassModel = llvm::detail::PassModel<IRUnitT, PassT, AnalysisManagerT>;
template <typename IRUnitT, typename PassT, typename InvalidatorT>
using AnalysisPassModel = llvm::detail::AnalysisPassModel<IRUnitT, PassT, InvalidatorT>;
template <typename IRUnitT, typename InvalidatorT>
using AnalysisPassConcept = llvm::detail::AnalysisPassConcept<IRUnitT, InvalidatorT>;
#else
template <typename IRUnitT, typename PassT, typename AnalysisManagerT>
using PassModel = llvm::detail::PassModel<IRUnitT, PassT, llvm::PreservedAnalyses, AnalysisManagerT>;
template <typename IRUnitT, typename PassT, typename InvalidatorT>
using AnalysisPassModel = llvm::detail::AnalysisPassModel<IRUnitT, PassT, llvm::PreservedAnalyses, InvalidatorT>;
template <typename IRUnitT, typename InvalidatorT>
using AnalysisPassConcept = llvm::detail::AnalysisPassConcept<IRUnitT, llvm::PreservedAnalyses, InvalidatorT>;
#endif

// The PassBuilder's module extension points. From LLVM 20, the callbacks of
// PipelineEarlySimplification, OptimizerEarly and OptimizerLast are also
// told which pipeline is being built (a ThinOrFullLTOPhase). mtpc does not
// need to know (which pipelines fire which point is the same in 16 to 22):
// its callbacks are callable both ways.
using ModuleEPCallback = std::function<void(llvm::ModulePassManager &, llvm::OptimizationLevel)>;
using ModuleEPCallbacks = llvm::SmallVector<ModuleEPCallback, 2>;
#if LLVM_VERSION_MAJOR >= 20
using PhaseEPCallback =
    std::function<void(llvm::ModulePassManager &, llvm::OptimizationLevel, llvm::ThinOrFullLTOPhase)>;
#else
using PhaseEPCallback = ModuleEPCallback;
#endif
using PhaseEPCallbacks = llvm::SmallVector<PhaseEPCallback, 2>;

// Calls callback C of a builder's list, with Phase where it takes one.
inline void callEPCallback(const ModuleEPCallback &C, llvm::ModulePassManager &MPM, llvm::OptimizationLevel L,
                           llvm::ThinOrFullLTOPhase) {
  C(MPM, L);
}
#if LLVM_VERSION_MAJOR >= 20
inline void callEPCallback(const PhaseEPCallback &C, llvm::ModulePassManager &MPM, llvm::OptimizationLevel L,
                           llvm::ThinOrFullLTOPhase Phase) {
  C(MPM, L, Phase);
}
#endif

} // namespace mtpc
