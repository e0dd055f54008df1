// seen_functions.cpp - a tiny pass plugin for mtpc's fidelity and full LTO tests, standing
// in for any other plugin a build loads beside mtpc. Like most plugins it
// registers callbacks at extension points: at PipelineStart a pass that
// records how many function definitions the module has ("start N"), at
// OptimizerLast one that records each function definition it sees
// ("last NAME"), and at FullLinkTimeOptimizationLast (lld's full LTO) the
// same ("lto-last NAME"). Lines go to the file SEEN_FUNCTIONS_FILE names, appended
// with one write per module (partitions run on several threads).
//
//   clang++-16 -shared -fPIC $(llvm-config-16 --cxxflags) seen_functions.cpp -o seen.so
//   SEEN_FUNCTIONS_FILE=seen.txt clang-16 -O2 -fpass-plugin=seen.so -fpass-plugin=libmtpc.so -c x.c
//
// It builds against LLVM 16, 19 and 22 (22 moved the header; from 20 some
// callbacks also take a ThinOrFullLTOPhase, which `auto &&...` accepts).
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#if __has_include("llvm/Plugins/PassPlugin.h")
#include "llvm/Plugins/PassPlugin.h"
#else
#include "llvm/Passes/PassPlugin.h"
#endif

#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <unistd.h>

using namespace llvm;

namespace {

void append(const std::string &Lines) {
  const char *Path = std::getenv("SEEN_FUNCTIONS_FILE");
  if (!Path || Lines.empty())
    return;
  int FD = open(Path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (FD < 0)
    return;
  (void)!write(FD, Lines.data(), Lines.size());
  close(FD);
}

struct CountAtStart : PassInfoMixin<CountAtStart> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    unsigned Definitions = 0;
    for (Function &F : M)
      Definitions += !F.isDeclaration();
    append("start " + std::to_string(Definitions) + "\n");
    return PreservedAnalyses::all();
  }
};

// Records each function definition, as "KIND NAME".
struct ListFunctions : PassInfoMixin<ListFunctions> {
  std::string Kind;
  explicit ListFunctions(std::string Kind) : Kind(std::move(Kind)) {}
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    std::string Lines;
    for (Function &F : M)
      if (!F.isDeclaration())
        Lines += Kind + " " + F.getName().str() + "\n";
    append(Lines);
    return PreservedAnalyses::all();
  }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "seen-functions", "1", [](PassBuilder &PB) {
            PB.registerPipelineStartEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) { MPM.addPass(CountAtStart()); });
            PB.registerOptimizerLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel, auto &&...) { MPM.addPass(ListFunctions("last")); });
            PB.registerFullLinkTimeOptimizationLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) { MPM.addPass(ListFunctions("lto-last")); });
          }};
}
