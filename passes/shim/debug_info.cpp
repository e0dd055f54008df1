// debug_info.cpp - what of the module's debug information each partition
// describes. See shim.h for the rules.
//
// A compile unit's lists (global variables, enumerations, retained types,
// imported entities, macros) are emitted by every module that holds the
// unit, whatever its functions use. A partition keeps the entries of the
// variables it defines; the primary partition also keeps the unit's own
// entries: variables no partition defines (a constant the front end folded)
// and the other lists. So each is described once in the merged object, as
// in stock's.
#include "shim.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GlobalVariable.h"

using namespace llvm;

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
