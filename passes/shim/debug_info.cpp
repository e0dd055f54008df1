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
//
// A function another partition defines is a declaration in this one, and
// a call to it is described (DW_TAG_call_site, with the values of its
// arguments) only if the declaration carries a declaration's subprogram,
// as clang gives the functions a unit calls but does not define: stock's
// object describes those calls with the definition. The partitions' bodies
// are read lazily, and a function's subprogram is read with its body; so
// the module the partitions are built from lists each function's
// declaration (FunctionDeclarationListing), and each partition gives its
// declarations theirs.
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

namespace {

// The named metadata that lists, for the time the partitions' bitcode is
// written, each function's declaration subprogram (or an empty tuple), in
// the module's order of functions.
constexpr const char *FunctionDeclarationsName = "mtpc.function.declarations";

// What the debug information of the split's copies in a partition needs
// once the optimizer is done with them.
struct CopiesDebugInfo {
  // An available_externally copy's declaration subprogram, by the
  // function's name.
  std::vector<std::pair<std::string, DISubprogram *>> Declarations;
  // The variables the private copies of C-string constants another
  // partition owns are described as.
  SmallPtrSet<DIGlobalVariable *, 8> CopiedVariables;
};

// The global variable entries M's variables are attached to.
SmallPtrSet<DIGlobalVariableExpression *, 32> attachedVariableEntries(Module &M) {
  SmallPtrSet<DIGlobalVariableExpression *, 32> Attached;
  SmallVector<DIGlobalVariableExpression *, 2> Entries;
  for (GlobalVariable &GV : M.globals()) {
    Entries.clear();
    GV.getDebugInfo(Entries);
    Attached.insert(Entries.begin(), Entries.end());
  }
  return Attached;
}

// Whether a declaration of the function SP describes gets a subprogram of
// its own: SP is in a unit with full debug information, whose calls to the
// function, where calls are described (DW_TAG_call_site), name it. (Where
// none are, -O0 or DWARF 4 without a debugger's tuning, the declaration's
// subprogram changes nothing in the object.)
bool declarationDescribed(const DISubprogram *SP) {
  return SP && SP->getUnit() && SP->getUnit()->getEmissionKind() == DICompileUnit::FullDebug;
}

} // namespace

DISubprogram *mtpc::declarationOf(DISubprogram &SP) {
  // (A function declaration's subprogram must be uniqued: the verifier
  // takes a distinct one for another definition's.)
  if (DISubprogram *Declaration = SP.getDeclaration(); Declaration && !Declaration->isDistinct())
    return Declaration;
  return DISubprogram::get(SP.getContext(), SP.getScope(), SP.getName(), SP.getLinkageName(), SP.getFile(),
                           SP.getLine(), SP.getType(), /*ScopeLine=*/0, SP.getContainingType(), SP.getVirtualIndex(),
                           SP.getThisAdjustment(), SP.getFlags() & ~DINode::FlagAllCallsDescribed,
                           SP.getSPFlags() & ~DISubprogram::SPFlagDefinition, /*Unit=*/nullptr,
                           SP.getTemplateParams().get(), /*Declaration=*/nullptr, /*RetainedNodes=*/nullptr,
                           SP.getThrownTypes().get(), SP.getAnnotations().get(), SP.getTargetFuncName());
}

void mtpc::turnIntoDeclaration(Function &F) {
  DISubprogram *SP = F.getSubprogram();
  F.deleteBody();
  if (declarationDescribed(SP))
    F.setSubprogram(declarationOf(*SP));
}

mtpc::FunctionDeclarationListing::FunctionDeclarationListing(Module &M) {
  // Only where some call is described (-O2 -g with DWARF 5, or 4 for gdb
  // and lldb): at -O0, no function's.
  if (llvm::none_of(M, [](const Function &F) {
        const DISubprogram *SP = F.getSubprogram();
        return SP && SP->areAllCallsDescribed();
      }))
    return;
  auto Called = [](const Function &F) {
    return llvm::any_of(F.users(), [&](const User *U) {
      auto *Call = dyn_cast<CallBase>(U);
      return Call && Call->getCalledOperand() == &F;
    });
  };
  MDTuple *None = MDTuple::get(M.getContext(), {});
  List = M.getOrInsertNamedMetadata(FunctionDeclarationsName);
  for (Function &F : M) {
    // Not an available_externally definition of the input: stock's
    // optimizer drops its subprogram with its body, and describes no call
    // to it.
    DISubprogram *SP = F.isDeclaration() || F.hasAvailableExternallyLinkage() ? nullptr : F.getSubprogram();
    bool Listed = declarationDescribed(SP) && Called(F);
    List->addOperand(Listed ? declarationOf(*SP) : static_cast<MDNode *>(None));
  }
}

mtpc::FunctionDeclarationListing::~FunctionDeclarationListing() {
  if (List)
    List->eraseFromParent();
}

extern "C" {

// Gives each function of partition M that is a declaration, and has no
// subprogram, the declaration subprogram the module's listing names for
// it (FunctionDeclarationListing), and erases the listing. Call before any
// function of M is erased, added or renamed: the listing is by position. A
// declaration that names another function (by its linkage name, else its
// name) is left without one.
void mtpc_describe_declared_functions(LLVMModuleRef MRef) {
  Module &M = *unwrap(MRef);
  NamedMDNode *List = M.getNamedMetadata(FunctionDeclarationsName);
  if (!List)
    return;
  if (List->getNumOperands() == M.size()) {
    unsigned K = 0;
    for (Function &F : M) {
      auto *Declaration = dyn_cast<DISubprogram>(List->getOperand(K++));
      if (!Declaration || !F.isDeclaration() || F.getSubprogram())
        continue;
      // (A C++ constructor's or destructor's declaration has no linkage
      // name: it is named after its class.)
      StringRef Linkage = Declaration->getLinkageName();
      bool Names = Linkage.empty() ? isa_and_nonnull<DICompositeType>(Declaration->getScope()) ||
                                         Declaration->getName() == F.getName()
                                   : Linkage == F.getName();
      if (Names)
        F.setSubprogram(Declaration);
    }
  }
  List->eraseFromParent();
}

// What the split's copies in M need from its debug information once the
// optimizer is done with them (mtpc_copies_debug_info_apply), or null if
// nothing; free with mtpc_copies_debug_info_free:
// - each of the NF available_externally copies named in Functions (the
//   split's: not the input's, which stock's object does not describe
//   either) with full debug information, declared as (declarationOf), for
//   once the optimizer has dropped its body (EliminateAvailableExternally)
//   and its subprogram with it;
// - the variables the NV private copies of C-string constants named in
//   Variables are described as (M describes them as the owner describes its
//   own).
void *mtpc_copies_debug_info(LLVMModuleRef MRef, const char *const *Functions, const size_t *FunctionLengths,
                             size_t NF, const char *const *Variables, const size_t *VariableLengths, size_t NV) {
  Module &M = *unwrap(MRef);
  auto Copies = std::make_unique<CopiesDebugInfo>();
  for (size_t K = 0; K < NF; ++K) {
    Function *F = M.getFunction(StringRef(Functions[K], FunctionLengths[K]));
    if (F && F->hasAvailableExternallyLinkage() && !F->isDeclaration() && declarationDescribed(F->getSubprogram()))
      Copies->Declarations.push_back({F->getName().str(), mtpc::declarationOf(*F->getSubprogram())});
  }
  SmallVector<DIGlobalVariableExpression *, 2> Entries;
  for (size_t K = 0; K < NV; ++K)
    if (GlobalVariable *GV = M.getNamedGlobal(StringRef(Variables[K], VariableLengths[K]))) {
      Entries.clear();
      GV->getDebugInfo(Entries);
      for (DIGlobalVariableExpression *E : Entries)
        Copies->CopiedVariables.insert(E->getVariable());
    }
  if (Copies->Declarations.empty() && Copies->CopiedVariables.empty())
    return nullptr;
  return Copies.release();
}

// Once M is optimized: gives each copy in Copies (null: none) that M now
// declares without a subprogram its declaration's, and takes the variables
// of the constants' copies the optimizer deleted (folded into their loads)
// out of M's compile units: a variable no global is attached to any longer
// would be described without a location. (The owner's partition keeps its
// entry whatever its optimizer did, as stock's unit keeps the entry of a
// constant it folded, without a location: so where the owner folded its
// copy and another partition's survived, the object describes the literal
// twice, once without a location.) A variable is what the code generator
// describes, from all the expressions attached to globals (GlobalOpt may
// attach new ones), so it is what is looked for.
void mtpc_copies_debug_info_apply(LLVMModuleRef MRef, const void *CopiesP) {
  if (!CopiesP)
    return;
  Module &M = *unwrap(MRef);
  const auto &Copies = *static_cast<const CopiesDebugInfo *>(CopiesP);
  for (const auto &[Name, Declaration] : Copies.Declarations)
    if (Function *F = M.getFunction(Name); F && F->isDeclaration() && !F->getSubprogram())
      F->setSubprogram(Declaration);
  if (Copies.CopiedVariables.empty())
    return;
  SmallPtrSet<DIGlobalVariable *, 32> Attached;
  for (DIGlobalVariableExpression *E : attachedVariableEntries(M))
    Attached.insert(E->getVariable());
  for (DICompileUnit *CU : M.debug_compile_units()) {
    SmallVector<Metadata *, 64> Globals;
    for (DIGlobalVariableExpression *E : CU->getGlobalVariables())
      if (!Copies.CopiedVariables.count(E->getVariable()) || Attached.count(E->getVariable()))
        Globals.push_back(E);
    if (Globals.size() != CU->getGlobalVariables().size())
      CU->replaceGlobalVariables(MDTuple::get(M.getContext(), Globals));
  }
}

void mtpc_copies_debug_info_free(void *Copies) { delete static_cast<CopiesDebugInfo *>(Copies); }

// Trims the compile units of partition M: their global variable entries to
// those of the variables in Defined (N of them), and of no variable of M if
// Primary; their other lists to nothing unless Primary. Call before any
// variable of M is dropped or declared.
void mtpc_trim_compile_units(LLVMModuleRef MRef, const LLVMValueRef *Defined, size_t N, bool Primary) {
  Module &M = *unwrap(MRef);
  SmallPtrSet<DIGlobalVariableExpression *, 32> Kept, Attached = attachedVariableEntries(M);
  SmallVector<DIGlobalVariableExpression *, 2> Entries;
  for (size_t I = 0; I < N; ++I) {
    Entries.clear();
    unwrap<GlobalVariable>(Defined[I])->getDebugInfo(Entries);
    Kept.insert(Entries.begin(), Entries.end());
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
