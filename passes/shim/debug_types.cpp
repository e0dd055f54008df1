// debug_types.cpp - a C++ class type described in full by one partition
// only. See shim.h for the rules.
//
// With -g, every compile unit describes in full each class type its code
// uses; a module split in N partitions has N units, and a class several of
// them use would be described N times where stock's object describes it
// once. A class with an ODR identifier (C++'s mangled type name: the same
// type in every unit that names it) is described in full by one partition,
// its owner (the rule is in odr_copies.rs), which also keeps it among its
// unit's retained types, so that its code generator writes it whatever its
// code still uses; every other partition describes it as a declaration, as
// a translation unit does whose class is defined in another one (clang's
// default -fno-standalone-debug). Debuggers find the definition by name.
//
// A member function a class does not list among its elements (an instance
// of a member template, an implicit constructor) is declared in the class's
// DWARF description by the unit that emits or calls it. A partition that
// declares the class would put such a member under its declaration, where a
// debugger looking at the definition does not see it (gdb's ptype). So the
// module partitions are built from lists, in each shared class, every
// member declaration the module's code names (ClassMemberListing): the
// partition that describes the class describes them all, whichever
// partition emits them. (Named before optimization: those stock's optimizer
// removes without a trace are described too, which stock's unit does not.)
#include "shim.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Support/CommandLine.h"

#include <functional>

using namespace llvm;

namespace {

// Whether T is a class, structure or union definition that other units can
// find by name: with an ODR identifier, a name (an unnamed class that a
// typedef names has an identifier but no name in DWARF), a name that holds
// its template arguments (under -gsimple-template-names it does not, and a
// declaration would lose them), in a scope of namespaces and classes, not a
// function's body.
bool isSharedClassDefinition(const DICompositeType *T) {
  if (!T || T->getIdentifier().empty() || T->isForwardDecl() || T->getName().empty())
    return false;
  unsigned Tag = T->getTag();
  if (Tag != dwarf::DW_TAG_class_type && Tag != dwarf::DW_TAG_structure_type && Tag != dwarf::DW_TAG_union_type)
    return false;
  if (!T->getTemplateParams().empty() && !T->getName().contains('<'))
    return false;
  for (const DIScope *S = T->getScope(); S; S = S->getScope())
    if (isa<DILocalScope>(S))
      return false;
  return true;
}

// Whether the code generator writes DWARF type units (clang's
// -fdebug-types-section passes -mllvm -generate-type-units): then every
// class with an ODR identifier goes to a unit of its own, which each
// partition writes for the classes it uses, as each translation unit does,
// and the merge keeps one per type (object_merge.rs, asm_merge.rs).
bool generatesTypeUnits() {
  // A StringMap until LLVM 21, a DenseMap of names from 22: both find so.
  auto &Options = cl::getRegisteredOptions();
  auto Found = Options.find("generate-type-units");
  // LLVM's DwarfDebug.cpp declares it a cl::opt<bool>, in every major.
  return Found != Options.end() && static_cast<cl::opt<bool> *>(Found->second)->getValue();
}

// The C++ compile unit of M with full debug information that a partition's
// classes are kept in, or null: without one, or with type units, no class
// is shared.
DICompileUnit *cxxUnit(const Module &M) {
  if (generatesTypeUnits())
    return nullptr;
  for (DICompileUnit *CU : M.debug_compile_units())
    if (CU->getEmissionKind() == DICompileUnit::FullDebug && mtpc::isCxxUnit(*CU))
      return CU;
  return nullptr;
}

// The shared class definitions M's debug information reaches, in the order
// it reaches them.
SmallVector<DICompositeType *, 0> sharedClassDefinitions(const Module &M) {
  SmallVector<DICompositeType *, 0> Classes;
  if (!cxxUnit(M))
    return Classes;
  mtpc::walkDebugMetadata(M, [&](const MDNode *N) {
    if (auto *C = dyn_cast<DICompositeType>(N); isSharedClassDefinition(C))
      Classes.push_back(const_cast<DICompositeType *>(C));
    return true;
  });
  return Classes;
}

// Points every use of a class in Declarations, in the debug metadata M
// reaches, to its declaration instead. Nodes are changed in place, so that
// what refers to them needs no change: a distinct node takes the new
// operand, a uniqued one is uniqued again (or made distinct if it then
// equals another node). An unresolved node (none in a module read from
// bitcode) is left as it is: the class stays described there too.
void declareEverywhere(Module &M, const DenseMap<const MDNode *, DICompositeType *> &Declarations) {
  SmallVector<std::pair<MDNode *, unsigned>, 0> Uses;
  mtpc::walkDebugMetadata(M, [&](const MDNode *N) {
    if (Declarations.count(N))
      return false; // what the definition holds is no longer described
    if (!N->isResolved())
      return true;
    for (unsigned I = 0, E = N->getNumOperands(); I != E; ++I)
      if (auto *Op = dyn_cast_or_null<MDNode>(N->getOperand(I)); Op && Declarations.count(Op))
        Uses.push_back({const_cast<MDNode *>(N), I});
    return true;
  });
  for (auto [N, I] : Uses)
    N->replaceOperandWith(I, Declarations.lookup(cast<MDNode>(N->getOperand(I))));
  // A type an instruction names itself (a heap allocation site's).
  SmallVector<std::pair<unsigned, MDNode *>, 4> Attached;
  for (Function &F : M)
    for (Instruction &I : instructions(F)) {
      Attached.clear(); // (this getter appends)
      I.getAllMetadataOtherThanDebugLoc(Attached);
      for (auto &[Kind, Node] : Attached)
        if (DICompositeType *D = Declarations.lookup(Node))
          I.setMetadata(Kind, D);
    }
}

// The member function declarations of shared class definitions that M's
// functions name (the subprograms of the functions themselves, defined or
// declared, and of what they inlined) and that their class does not list
// among its elements, by class, in the order the functions name them.
MapVector<DICompositeType *, SmallSetVector<DISubprogram *, 4>> unlistedMembers(const Module &M) {
  MapVector<DICompositeType *, SmallSetVector<DISubprogram *, 4>> Found;
  auto Consider = [&](DISubprogram *SP) {
    if (SP && SP->getDeclaration())
      SP = SP->getDeclaration();
    if (!SP || SP->isDefinition())
      return;
    if (auto *C = dyn_cast_or_null<DICompositeType>(SP->getScope()); isSharedClassDefinition(C))
      Found[C].insert(SP);
  };
  // A location not inlined is in its function's own subprogram; each
  // inlined scope and call site is followed once.
  DenseSet<const Metadata *> Seen;
  for (const Function &F : M) {
    Consider(F.getSubprogram());
    for (const Instruction &I : instructions(F)) {
      const DILocation *L = I.getDebugLoc();
      for (; L && L->getInlinedAt(); L = L->getInlinedAt()) {
        if (Seen.insert(L->getScope()).second)
          Consider(L->getScope()->getSubprogram());
        if (!Seen.insert(L->getInlinedAt()).second)
          break;
      }
    }
  }
  for (auto &[C, Members] : Found) {
    DenseSet<const Metadata *> Listed;
    for (const DINode *E : C->getElements())
      Listed.insert(E);
    Members.remove_if([&](DISubprogram *SP) { return Listed.count(SP); });
  }
  return Found;
}

} // namespace

mtpc::ClassMemberListing::ClassMemberListing(Module &M) {
  if (!cxxUnit(M))
    return;
  for (auto &[C, Members] : unlistedMembers(M)) {
    if (Members.empty() || !C->isResolved())
      continue;
    // The elements are replaced where DICompositeType keeps them (which
    // operand that is differs between LLVM majors), and that operand is
    // found by what changed, whatever it held before (a class may have no
    // element tuple at all).
    SmallVector<Metadata *, 16> Before(C->op_begin(), C->op_end());
    SmallVector<Metadata *, 0> Elements(C->getElements().begin(), C->getElements().end());
    Elements.append(Members.begin(), Members.end());
    C->replaceElements(MDTuple::get(M.getContext(), Elements));
    for (unsigned I = 0, E = C->getNumOperands(); I != E; ++I)
      if (C->getOperand(I) != Before[I])
        Restore.push_back({C, I, Before[I]});
  }
}

mtpc::ClassMemberListing::~ClassMemberListing() {
  for (auto &[C, Operand, Before] : Restore)
    C->replaceOperandWith(Operand, Before);
}

namespace mtpc {
// The shared class definitions a module reaches, found once at the end of
// its optimization and used again when it is described, if the caller has
// not changed the module in between (a second walk would then find the
// same nodes in the same order).
struct SharedClassList {
  SmallVector<DICompositeType *, 0> Classes;
};
} // namespace mtpc

extern "C" {

// Calls Each(Context, Identifier, Length) for each shared class definition
// (see above) that M's debug information reaches, in the order it reaches
// them, and returns them as a list for mtpc_describe_shared_class_types
// (freed with mtpc_shared_class_list_free).
void *mtpc_shared_class_types(LLVMModuleRef MRef, void (*Each)(void *, const char *, size_t), void *Context) {
  auto *List = new mtpc::SharedClassList{sharedClassDefinitions(*unwrap(MRef))};
  for (DICompositeType *C : List->Classes) {
    StringRef Id = C->getIdentifier();
    Each(Context, Id.data(), Id.size());
  }
  return List;
}

void mtpc_shared_class_list_free(void *List) { delete static_cast<mtpc::SharedClassList *>(List); }

// Describes in M the shared classes named in Elsewhere (N identifiers, with
// their lengths) as declarations, and keeps every other shared class M
// reaches among its C++ unit's retained types, so that its DWARF writer
// describes them whatever M's code still uses (call before any function of
// M is dropped: what M reaches then is what it was chosen to describe).
// Found is what mtpc_shared_class_types returned for M, whose debug
// metadata has not changed since.
// Counts the classes it declared and those it describes in *DeclaredCount
// and *DescribedCount.
void mtpc_describe_shared_class_types(LLVMModuleRef MRef, const void *Found, const char *const *Elsewhere,
                                      const size_t *Lengths, size_t N, size_t *DeclaredCount,
                                      size_t *DescribedCount) {
  Module &M = *unwrap(MRef);
  *DeclaredCount = *DescribedCount = 0;
  DICompileUnit *Unit = cxxUnit(M);
  if (!Unit)
    return;
  StringSet<> DescribedElsewhere;
  for (size_t I = 0; I < N; ++I)
    DescribedElsewhere.insert(StringRef(Elsewhere[I], Lengths[I]));
  DIBuilder Builder(M, /*AllowUnresolved=*/false);
  DenseMap<const MDNode *, DICompositeType *> Declarations;
  SmallVector<DICompositeType *, 0> ToDeclare;
  SmallVector<Metadata *, 0> Owned;
  for (DICompositeType *C : static_cast<const mtpc::SharedClassList *>(Found)->Classes) {
    if (DescribedElsewhere.count(C->getIdentifier())) {
      Declarations[C] = nullptr; // made below
      ToDeclare.push_back(C);
    } else {
      Owned.push_back(C);
    }
  }
  // A declaration's scope is the declaration of the class it is nested in,
  // if that class is declared too.
  std::function<DICompositeType *(DICompositeType *)> DeclarationOf = [&](DICompositeType *C) {
    if (DICompositeType *Made = Declarations.lookup(C))
      return Made;
    DIScope *Scope = C->getScope();
    if (auto *Outer = dyn_cast_or_null<DICompositeType>(Scope); Outer && Declarations.count(Outer))
      Scope = DeclarationOf(Outer);
    DICompositeType *D =
        Builder.createForwardDecl(C->getTag(), C->getName(), Scope, C->getFile(), C->getLine(), C->getRuntimeLang(),
                                  /*SizeInBits=*/0, /*AlignInBits=*/0, C->getIdentifier());
    Declarations[C] = D;
    return D;
  };
  for (DICompositeType *C : ToDeclare)
    DeclarationOf(C);
  if (!ToDeclare.empty())
    declareEverywhere(M, Declarations);
  *DeclaredCount = ToDeclare.size();
  *DescribedCount = Owned.size();
  // The unit's retained types: the classes M describes, and no declaration
  // of a class another partition describes (the primary partition keeps the
  // module's list, which named some).
  DenseSet<Metadata *> Present, Declared;
  for (auto &[C, D] : Declarations)
    Declared.insert(D);
  SmallVector<Metadata *, 0> Retained;
  for (Metadata *T : Unit->getRetainedTypes())
    if (!Declared.count(T) && Present.insert(T).second)
      Retained.push_back(T);
  for (Metadata *C : Owned)
    if (Present.insert(C).second)
      Retained.push_back(C);
  Unit->replaceRetainedTypes(MDTuple::get(M.getContext(), Retained));
}

} // extern "C"
