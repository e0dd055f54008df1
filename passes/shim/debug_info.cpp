// debug_info.cpp - what of the module's debug information each partition
// describes (see shim.h for the rules), and the walk of every debug
// metadata node a module reaches, which the file numbering and the classes
// described once (debug_files.cpp, debug_types.cpp) share.
//
// A compile unit's lists (global variables, enumerations, retained types,
// imported entities, macros) are emitted by every module that holds the
// unit, whatever its functions use. A partition keeps the entries of the
// variables it defines; the primary partition also keeps the unit's own
// entries: variables no partition defines (a constant the front end folded)
// and the other lists. So each is described once in the merged object, as
// in stock's.
#include "shim.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"

using namespace llvm;

// A walk of the whole graph, not of what DebugInfoFinder visits: the DWARF
// writer also reaches the types that only template parameters, pointers to
// members, a subprogram's retained nodes or heap allocation sites name.
void mtpc::walkDebugMetadata(const Module &M, function_ref<bool(const MDNode *)> Enter) {
  DenseSet<const MDNode *> Seen;
  SmallVector<const MDNode *, 256> Work;
  auto Reach = [&](const Metadata *MD) {
    if (auto *N = dyn_cast_or_null<MDNode>(MD))
      if (Seen.insert(N).second)
        Work.push_back(N);
  };
  auto Walk = [&]() {
    while (!Work.empty()) {
      const MDNode *N = Work.pop_back_val();
      if (Enter(N))
        for (const MDOperand &Op : N->operands())
          Reach(Op.get());
    }
  };
  for (const DICompileUnit *CU : M.debug_compile_units()) {
    Reach(CU);
    Walk();
  }
  SmallVector<std::pair<unsigned, MDNode *>, 8> Attached;
  // (Both getters used here append to the list: it is cleared first.)
  for (const GlobalVariable &GV : M.globals()) {
    Attached.clear();
    GV.getAllMetadata(Attached);
    for (auto &A : Attached)
      Reach(A.second);
    Walk();
  }
  for (const Function &F : M) {
    Attached.clear();
    F.getAllMetadata(Attached);
    for (auto &A : Attached)
      Reach(A.second);
    // Runs of instructions share a location: each is looked up once a run.
    const MDNode *LastLocation = nullptr;
    for (const Instruction &I : instructions(F)) {
      if (const MDNode *Location = I.getDebugLoc().getAsMDNode(); Location != LastLocation) {
        Reach(Location);
        LastLocation = Location;
      }
      Attached.clear();
      I.getAllMetadataOtherThanDebugLoc(Attached);
      for (auto &A : Attached)
        Reach(A.second);
      if (auto *Call = dyn_cast<CallBase>(&I))
        for (const Value *Arg : Call->args())
          if (auto *MAV = dyn_cast<MetadataAsValue>(Arg))
            Reach(MAV->getMetadata());
      mtpc::forEachDebugRecordMetadata(I, Reach);
      Walk();
    }
  }
}

extern "C" {

// Trims the compile units of partition M: their global variable entries to
// those of the variables in Defined (N of them), and of no variable of M if
// Primary; their other lists to nothing unless Primary. Call before any
// variable of M is dropped or declared.
void mtpc_trim_compile_units(LLVMModuleRef MRef, const LLVMValueRef *Defined, size_t N, bool Primary) {
  Module &M = *unwrap(MRef);
  SmallPtrSet<Metadata *, 32> Kept, Attached;
  SmallVector<DIGlobalVariableExpression *, 2> Entries;
  for (size_t I = 0; I < N; ++I) {
    Entries.clear();
    unwrap<GlobalVariable>(Defined[I])->getDebugInfo(Entries);
    Kept.insert(Entries.begin(), Entries.end());
  }
  for (GlobalVariable &GV : M.globals()) {
    Entries.clear();
    GV.getDebugInfo(Entries);
    Attached.insert(Entries.begin(), Entries.end());
  }
  for (DICompileUnit *CU : M.debug_compile_units()) {
    SmallVector<Metadata *, 64> Globals;
    for (DIGlobalVariableExpression *E : CU->getGlobalVariables())
      if (Kept.count(E) || (Primary && !Attached.count(E)))
        Globals.push_back(E);
    if (Globals.size() != CU->getGlobalVariables().size())
      CU->replaceGlobalVariables(MDTuple::get(M.getContext(), Globals));
    if (!Primary) {
      CU->replaceEnumTypes(nullptr);
      CU->replaceRetainedTypes(nullptr);
      CU->replaceImportedEntities(nullptr);
      CU->replaceMacros(nullptr);
    }
  }
}

} // extern "C"
