// llvm_compat.cpp - the functions of llvm_compat.h that differ between the
// LLVM majors mtpc is built for, beyond a type's name.
#include "llvm_compat.h"

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugLoc.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/IntrinsicInst.h"
#if LLVM_VERSION_MAJOR >= 19
#include "llvm/IR/DebugProgramInstruction.h"
#endif
#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Remarks/RemarkSerializer.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormattedStream.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

std::vector<std::string> mtpc::commandLineArgs(const MCTargetOptions &Options) {
#if LLVM_VERSION_MAJOR >= 20
  // clang writes each argument quoted (sys::printArg), as a shell would read them.
  BumpPtrAllocator Allocator;
  StringSaver Saver(Allocator);
  SmallVector<const char *, 64> Args;
  cl::TokenizeGNUCommandLine(Options.CommandlineArgs, Saver, Args);
  return std::vector<std::string>(Args.begin(), Args.end());
#else
  return std::vector<std::string>(Options.CommandLineArgs.begin(), Options.CommandLineArgs.end());
#endif
}

void mtpc::referToCommandLineArgs(MCTargetOptions &Options, const std::vector<std::string> &Args) {
#if LLVM_VERSION_MAJOR < 20
  Options.CommandLineArgs = Args;
#endif
}

MCStreamer *mtpc::createObjectStreamer(const Target &T, const Triple &TT, MCContext &Ctx,
                                       std::unique_ptr<MCAsmBackend> Backend, std::unique_ptr<MCObjectWriter> Writer,
                                       std::unique_ptr<MCCodeEmitter> Emitter, const MCSubtargetInfo &STI,
                                       const MCTargetOptions &Options) {
#if LLVM_VERSION_MAJOR >= 19
  (void)Options; // the context's, the same
  return T.createMCObjectStreamer(TT, Ctx, std::move(Backend), std::move(Writer), std::move(Emitter), STI);
#else
  return T.createMCObjectStreamer(TT, Ctx, std::move(Backend), std::move(Writer), std::move(Emitter), STI,
                                  Options.MCRelaxAll, Options.MCIncrementalLinkerCompatible,
                                  /*DWARFMustBeAtTheEnd=*/false);
#endif
}

std::unique_ptr<MCStreamer> mtpc::createAsmTextStreamer(MCContext &Ctx, std::unique_ptr<formatted_raw_ostream> OS,
                                                        bool UseDwarfDirectory) {
#if LLVM_VERSION_MAJOR >= 19
  (void)UseDwarfDirectory; // the context's options say the same
  return std::unique_ptr<MCStreamer>(createAsmStreamer(Ctx, std::move(OS), nullptr, nullptr, nullptr));
#else
  return std::unique_ptr<MCStreamer>(createAsmStreamer(Ctx, std::move(OS), /*isVerboseAsm=*/false, UseDwarfDirectory,
                                                       nullptr, nullptr, nullptr, /*ShowInst=*/false));
#endif
}

bool mtpc::isCxxUnit(const DICompileUnit &CU) {
#if LLVM_VERSION_MAJOR >= 22
  DISourceLanguageName Language = CU.getSourceLanguage();
  if (Language.hasVersionedName())
    return Language.getName() == dwarf::DW_LNAME_C_plus_plus;
  return dwarf::isCPlusPlus(dwarf::SourceLanguage(Language.getName()));
#else
  return dwarf::isCPlusPlus(dwarf::SourceLanguage(CU.getSourceLanguage()));
#endif
}

void mtpc::forEachDebugRecordMetadata(const Instruction &I, function_ref<void(const Metadata *)> Each) {
#if LLVM_VERSION_MAJOR >= 19
  for (const DbgRecord &R : I.getDbgRecordRange()) {
    Each(R.getDebugLoc().getAsMDNode());
    if (auto *V = dyn_cast<DbgVariableRecord>(&R)) {
      Each(V->getRawVariable());
      Each(V->getRawExpression());
      if (V->isDbgAssign()) {
        Each(V->getRawAssignID());
        Each(V->getRawAddressExpression());
      }
    } else if (auto *L = dyn_cast<DbgLabelRecord>(&R)) {
      Each(L->getRawLabel());
    }
  }
#else
  (void)I, (void)Each;
#endif
}

void mtpc::forEachDebugLocationValue(const Instruction &I, function_ref<void(const Value *)> Each) {
  if (auto *DVI = dyn_cast<DbgVariableIntrinsic>(&I)) {
    for (const Value *V : DVI->location_ops())
      Each(V);
    if (auto *DAI = dyn_cast<DbgAssignIntrinsic>(DVI))
      Each(DAI->getAddress());
  }
#if LLVM_VERSION_MAJOR >= 19
  for (const DbgVariableRecord &R : filterDbgVars(I.getDbgRecordRange())) {
    for (const Value *V : R.location_ops())
      Each(V);
    if (R.isDbgAssign())
      Each(R.getAddress());
  }
#endif
}

std::unique_ptr<remarks::RemarkSerializer> mtpc::createYamlRemarkSerializer(raw_ostream &OS) {
#if LLVM_VERSION_MAJOR >= 21
  Expected<std::unique_ptr<remarks::RemarkSerializer>> Serializer =
      remarks::createRemarkSerializer(remarks::Format::YAML, OS);
#else
  Expected<std::unique_ptr<remarks::RemarkSerializer>> Serializer =
      remarks::createRemarkSerializer(remarks::Format::YAML, remarks::SerializerMode::Separate, OS);
#endif
  if (!Serializer) {
    consumeError(Serializer.takeError());
    return nullptr;
  }
  return std::move(*Serializer);
}

void mtpc::moveGlobalValues(Module &From, Module &To) {
  // A comdat belongs to From's table, which dies with From: a global that
  // outlives From must not name one (~GlobalObject leaves its comdat).
  for (GlobalObject &GO : From.global_objects())
    GO.setComdat(nullptr);
  To.getFunctionList().splice(To.end(), From.getFunctionList());
#if LLVM_VERSION_MAJOR >= 17
  while (!From.global_empty()) {
    GlobalVariable *GV = &*From.global_begin();
    From.removeGlobalVariable(GV);
    To.insertGlobalVariable(GV);
  }
  while (!From.alias_empty()) {
    GlobalAlias *A = &*From.alias_begin();
    From.removeAlias(A);
    To.insertAlias(A);
  }
  while (!From.ifunc_empty()) {
    GlobalIFunc *I = &*From.ifunc_begin();
    From.removeIFunc(I);
    To.insertIFunc(I);
  }
#else
  To.getGlobalList().splice(To.global_end(), From.getGlobalList());
  To.getAliasList().splice(To.alias_end(), From.getAliasList());
  To.getIFuncList().splice(To.ifunc_end(), From.getIFuncList());
#endif
}
