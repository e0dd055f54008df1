// ir_ops.cpp - operations on modules and globals that LLVM-C 16 lacks, and
// the time-trace hooks of the worker threads. See shim.h for the rules.
#include "shim.h"
#include "llvm_compat.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Bitcode/LLVMBitCodes.h"
#include "llvm/Bitstream/BitstreamReader.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

// M as bitcode, without the LTO symbol table (LLVMWriteBitcodeTo* add one):
// partitions are read back by LLVM, never by a linker. With KeepUseListOrder,
// a module read back lists each value's uses in M's order.
static SmallVector<char, 0> writeBitcode(Module &M, bool KeepUseListOrder = false) {
  SmallVector<char, 0> Buffer;
  Buffer.reserve(1 << 20);
  BitcodeWriter Writer(Buffer);
  Writer.writeModule(M, KeepUseListOrder);
  Writer.writeStrtab();
  return Buffer;
}

extern "C" {

unsigned mtpc_llvm_version_major(void) { return LLVM_VERSION_MAJOR; }

bool mtpc_is_dso_local(LLVMValueRef V) { return unwrap<GlobalValue>(V)->isDSOLocal(); }

void mtpc_set_dso_local(LLVMValueRef V, bool Local) { unwrap<GlobalValue>(V)->setDSOLocal(Local); }

// Adds to the module of V (a function or variable) an alias named Name,
// external and hidden (so dso_local): a name by which other objects of the
// same library refer to V as the module's own code would, bound locally.
void mtpc_add_hidden_alias(LLVMValueRef V, const char *Name, size_t Len) {
  auto *GV = unwrap<GlobalObject>(V);
  auto *A = GlobalAlias::create(GV->getValueType(), GV->getAddressSpace(), GlobalValue::ExternalLinkage,
                                StringRef(Name, Len), GV, GV->getParent());
  A->setVisibility(GlobalValue::HiddenVisibility);
  A->setDSOLocal(true);
}

// Fs (N of them) are declarations that stand for what the whole module M
// defines: functions (StandsForAlias false) or aliases and ifuncs
// (StandsForAlias true). Those whose name is a library function's (LLVM's
// TargetLibraryInfo knows it) would be taken for that function, which none
// of them is in the whole module:
//  - a function's declaration would get the function's assumed attributes
//    from InferFunctionAttrs (malloc: noalias, touches inaccessible memory
//    only), which it never gives a definition: a body that counts its calls
//    would be assumed not to. optnone (with the noinline it needs, and
//    without the size and debugging levels it excludes) makes
//    InferFunctionAttrs leave it as it is; calls to it stay library calls
//    to the optimizer, as calls to the definition are.
//  - a call to an alias is no library call at all (the callee is not a
//    function): nobuiltin keeps the declaration's calls so, and its
//    attributes as they are.
void mtpc_keep_library_declarations_unassumed(LLVMModuleRef M, const LLVMValueRef *Fs, size_t N, bool StandsForAlias) {
  const TargetLibraryInfoImpl Names(Triple(unwrap(M)->getTargetTriple()));
  for (size_t I = 0; I < N; ++I) {
    auto *F = dyn_cast<Function>(unwrap(Fs[I]));
    LibFunc Func;
    if (!F || !F->isDeclaration() || !Names.getLibFunc(F->getName(), Func))
      continue;
    if (StandsForAlias) {
      F->addFnAttr(Attribute::NoBuiltin);
    } else {
      for (StringRef Excluded : {"alwaysinline", "optsize", "minsize", "optdebug"})
        if (Attribute::AttrKind Kind = Attribute::getAttrKindFromName(Excluded); Kind != Attribute::None)
          F->removeFnAttr(Kind);
      F->addFnAttr(Attribute::NoInline);
      F->addFnAttr(Attribute::OptimizeNone);
    }
  }
}

// Of Gs (N global values of M), which have a library function's name for
// M's target (LLVM's TargetLibraryInfo knows the name, whatever the
// prototype or whether the target has the function): Named[I] says so for
// Gs[I]. The code generator and the optimizer call such a function by that
// name (memcpy for a structure's copy, puts for a printf), and in the
// object a module's own definition of the name takes those calls.
void mtpc_library_function_names(LLVMModuleRef M, const LLVMValueRef *Gs, size_t N, bool *Named) {
  const TargetLibraryInfoImpl Names(Triple(unwrap(M)->getTargetTriple()));
  for (size_t I = 0; I < N; ++I) {
    LibFunc Func;
    Named[I] = Names.getLibFunc(unwrap<GlobalValue>(Gs[I])->getName(), Func);
  }
}

// Shared-library code: V (a function or variable: a declaration, or an
// available_externally copy) stands for a definition of the whole module
// that another partition owns and exports under the hidden alias Name as
// well. Its uses by instructions take that name, hidden and dso_local, so
// that the code binds to the library's own definition, as the whole
// module's code would through its local alias (.Lfoo$local). Other uses (a
// variable's initializer, a constant expression) keep the original name, in
// a declaration made for them, dso_local unless Preemptible: the code
// generator writes those with the global symbol in the whole module too.
void mtpc_bind_code_references_locally(LLVMValueRef V, const char *Name, size_t Len, bool Preemptible) {
  auto *G = unwrap<GlobalObject>(V);
  std::string Original = G->getName().str();
  G->setName(StringRef(Name, Len));
  G->setVisibility(GlobalValue::HiddenVisibility);
  G->setDSOLocal(true);
  auto FromData = [](Use &U) { return !isa<Instruction>(U.getUser()); };
  if (llvm::none_of(G->uses(), FromData))
    return;
  Module &M = *G->getParent();
  GlobalObject *Global;
  if (auto *F = dyn_cast<Function>(G)) {
    Function *D = Function::Create(F->getFunctionType(), GlobalValue::ExternalLinkage, F->getAddressSpace(), Original, &M);
    D->setAttributes(F->getAttributes());
    D->setCallingConv(F->getCallingConv());
    Global = D;
  } else {
    auto *Var = cast<GlobalVariable>(G);
    Global = new GlobalVariable(M, Var->getValueType(), Var->isConstant(), GlobalValue::ExternalLinkage, nullptr, Original,
                                nullptr, Var->getThreadLocalMode(), Var->getAddressSpace());
  }
  Global->setDSOLocal(!Preemptible);
  G->replaceUsesWithIf(Global, FromData);
}

// Whether a global value (a variable or an alias: LLVMIsThreadLocal takes
// variables only) has a thread-local mode.
bool mtpc_is_thread_local(LLVMValueRef V) { return unwrap<GlobalValue>(V)->isThreadLocal(); }

// Whether clang asks AddressSanitizer to treat a global as dynamically
// initialized (sanitize_address_dyninit: a C++ global with a constructor).
bool mtpc_is_asan_dynamic_init(LLVMValueRef V) {
  const GlobalValue *GV = unwrap<GlobalValue>(V);
  return GV->hasSanitizerMetadata() && GV->getSanitizerMetadata().IsDynInit;
}

// The text of an inline asm callee, or null if V is not inline asm.
const char *mtpc_inline_asm_string(LLVMValueRef V, size_t *Len) {
  auto *IA = dyn_cast<InlineAsm>(unwrap(V));
  if (!IA)
    return nullptr;
  *Len = IA->getAsmString().size();
  return IA->getAsmString().data();
}

// The function whose block a blockaddress takes (its operand until LLVM 19;
// from 20 its only operand is the block).
LLVMValueRef mtpc_block_address_function(LLVMValueRef V) { return wrap(unwrap<BlockAddress>(V)->getFunction()); }

// The global that a dso_local_equivalent or no_cfi constant names (the
// constants LLVM-C reports as instructions), or null for any other value;
// *NoCFI says which of the two it is.
LLVMValueRef mtpc_wrapped_global(LLVMValueRef V, bool *NoCFI) {
  Value *Val = unwrap(V);
  *NoCFI = false;
  if (auto *E = dyn_cast<DSOLocalEquivalent>(Val))
    return wrap(E->getGlobalValue());
  if (auto *N = dyn_cast<NoCFIValue>(Val)) {
    *NoCFI = true;
    return wrap(N->getGlobalValue());
  }
  return nullptr;
}

// The constants that F's debug variable locations name
// (`llvm.dbg.value(metadata ptr @g, ...)`, or its debug record), each once,
// in order of first mention: the first Capacity of them in Out. Returns how
// many there are. Only reads.
size_t mtpc_debug_location_constants(LLVMValueRef FRef, LLVMValueRef *Out, size_t Capacity) {
  SmallSetVector<const Value *, 8> Named;
  auto Note = [&](const Value *V) {
    if (isa_and_nonnull<Constant>(V))
      Named.insert(V);
  };
  for (const BasicBlock &B : *unwrap<Function>(FRef))
    for (const Instruction &I : B)
      mtpc::forEachDebugLocationValue(I, Note);
  for (size_t K = 0; K < Named.size() && K < Capacity; ++K)
    Out[K] = wrap(Named[K]);
  return Named.size();
}

// Whether any metadata names global value V (a C++ template parameter's
// value, a debug variable's location, a callee list): whether its context
// holds V as metadata. Only looks; a node no longer reached counts too.
bool mtpc_named_by_metadata(LLVMValueRef V) { return ValueAsMetadata::getIfExists(unwrap(V)) != nullptr; }

// Adds the N declarations in Decls to M's llvm.compiler.used (made if M
// has none): no pass deletes them then, unused. The code generator writes
// nothing for them but what refers to them and a hidden one's visibility.
void mtpc_keep_declarations(LLVMModuleRef M, const LLVMValueRef *Decls, size_t N) {
  SmallVector<GlobalValue *, 8> Kept;
  for (size_t K = 0; K < N; ++K)
    Kept.push_back(unwrap<GlobalValue>(Decls[K]));
  if (!Kept.empty())
    appendToCompilerUsed(*unwrap(M), Kept);
}

// What mtpc_body_uses reports (mirrored in Rust, ffi.rs).
enum MtpcUseRole : uint32_t { MTPC_USE_OPERAND = 0, MTPC_USE_CALLEE = 1, MTPC_USE_INDIRECT_CALL = 2 };
struct MtpcBodyUse {
  LLVMValueRef Value;
  uint32_t Role;
};
struct MtpcBodyCounts {
  uint32_t Code;
  uint32_t InlineSize;
  uint32_t BackEdges;
};

// One walk of F's body for the split's facts (module_facts.rs), in place
// of an LLVM-C call per instruction and operand: Counts->Code gets its
// instructions but debug intrinsics, Counts->InlineSize those of them that
// are not accesses of a local variable (an alloca, a load from or store to
// one, a lifetime marker), Counts->BackEdges the branches from a block to
// itself or to one before it in the body's order (a loop's latch, as front
// ends lay loops out, and a `continue`: its loops' back edges, without the
// dominator tree that finding loops would take; in optimized IR, as full
// LTO's, a rougher count). An indirectbr's targets count too: a
// computed-goto dispatch, which clang puts after every label it jumps to,
// weighs that much more besides its own weight (partition_plan.rs,
// function_work); left out, QuickJS's slower of 2 partitions executed
// 3.5 % more instructions (bench/balance.py). Each operand that may name a
// global (a constant other than plain data, or inline asm) is listed once
// per role: as the callee where it is a call's called operand
// (MTPC_USE_CALLEE), as an operand anywhere else (MTPC_USE_OPERAND;
// `call @f(ptr @f)` is both: it calls @f and passes its address on). Each
// call with attachments whose callee is not named (not a global,
// dso_local_equivalent, no_cfi or inline asm) is listed once as
// MTPC_USE_INDIRECT_CALL. The first
// Capacity uses go to Out; returns how many there are. Only reads.
size_t mtpc_body_uses(LLVMValueRef FRef, MtpcBodyUse *Out, size_t Capacity, MtpcBodyCounts *Counts) {
  SmallSetVector<std::pair<const Value *, unsigned>, 32> Uses;
  uint32_t Code = 0, InlineSize = 0, BackEdges = 0;
  SmallPtrSet<const BasicBlock *, 32> Seen;
  for (const BasicBlock &B : *unwrap<Function>(FRef)) {
    Seen.insert(&B);
    if (const Instruction *Term = B.getTerminator())
      for (const BasicBlock *Successor : successors(Term))
        BackEdges += Seen.contains(Successor);
    for (const Instruction &I : B) {
      const auto *Call = dyn_cast<CallBase>(&I);
      const Value *Callee = Call ? Call->getCalledOperand() : nullptr;
      if (!isa<DbgInfoIntrinsic>(I)) {
        ++Code;
        const auto *Load = dyn_cast<LoadInst>(&I);
        const auto *Store = dyn_cast<StoreInst>(&I);
        const auto *CalledFunction = dyn_cast_or_null<Function>(Callee);
        bool LocalAccess = isa<AllocaInst>(I) || (Load && isa<AllocaInst>(Load->getPointerOperand())) ||
                           (Store && isa<AllocaInst>(Store->getPointerOperand())) ||
                           (CalledFunction && CalledFunction->getName().starts_with("llvm.lifetime."));
        InlineSize += !LocalAccess;
      }
      for (const Use &U : I.operands()) {
        const Value *Op = U.get();
        if ((isa<Constant>(Op) && !isa<ConstantData>(Op)) || isa<InlineAsm>(Op))
          Uses.insert({Op, Call && Call->isCallee(&U) ? MTPC_USE_CALLEE : MTPC_USE_OPERAND});
      }
      bool NamesItsCallee = isa_and_nonnull<GlobalValue, DSOLocalEquivalent, NoCFIValue, InlineAsm>(Callee);
      if (Call && !NamesItsCallee && I.hasMetadataOtherThanDebugLoc())
        Uses.insert({&I, MTPC_USE_INDIRECT_CALL});
    }
  }
  Counts->Code = Code;
  Counts->InlineSize = InlineSize;
  Counts->BackEdges = BackEdges;
  for (size_t K = 0; K < Uses.size() && K < Capacity; ++K)
    Out[K] = MtpcBodyUse{wrap(Uses[K].first), Uses[K].second};
  return Uses.size();
}

// Reading metadata without changing the context. LLVM-C hands metadata out
// wrapped as values (LLVMGetMetadata, LLVMGetMDNodeOperands), which creates
// a MetadataAsValue in the context; these only read, so that the module can
// be planned while other threads serialize and verify it.

// The nodes attached to global GV under Kind (an alias has none), in order:
// the first Capacity of them in Out. Returns how many there are.
size_t mtpc_global_metadata(LLVMValueRef GV, unsigned Kind, LLVMMetadataRef *Out, size_t Capacity) {
  SmallVector<MDNode *, 1> Nodes;
  if (auto *GO = dyn_cast<GlobalObject>(unwrap(GV)))
    GO->getMetadata(Kind, Nodes);
  for (size_t K = 0; K < Nodes.size() && K < Capacity; ++K)
    Out[K] = wrap(Nodes[K]);
  return Nodes.size();
}

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

// Reads the bitcode in Data (Len bytes, which must outlive the module) into
// C lazily: bodies are read when materialized. Errors come back in
// *Message (free with free()), never as a diagnostic of C, whose default
// handler would exit the process.
bool mtpc_load_lazy(LLVMContextRef C, const char *Data, size_t Len, const char *Name, LLVMModuleRef *Out,
                    char **Message) {
  Expected<std::unique_ptr<Module>> M =
      getLazyBitcodeModule(MemoryBufferRef(StringRef(Data, Len), Name), *unwrap(C));
  if (!M) {
    *Message = mtpc::copyString(toString(M.takeError()));
    return false;
  }
  *Out = wrap(M->release());
  return true;
}

// Materializes one lazily loaded function body. Returns false and sets
// *Message (to be freed with LLVMDisposeMessage) on failure.
bool mtpc_materialize(LLVMValueRef GV, char **Message) {
  if (Error E = unwrap<GlobalValue>(GV)->materialize()) {
    *Message = mtpc::copyString(toString(std::move(E)));
    return false;
  }
  return true;
}

// True if no function of M still waits for its body to be read.
bool mtpc_all_bodies_read(LLVMModuleRef M) {
  return llvm::none_of(*unwrap(M), [](const Function &F) { return F.isMaterializable(); });
}


// Erases a global value (function, variable, alias or ifunc) from its
// module if nothing but dead constants uses it; returns whether it did.
bool mtpc_erase_global_if_unused(LLVMValueRef V) {
  auto *GV = unwrap<GlobalValue>(V);
  GV->removeDeadConstantUsers();
  if (!GV->use_empty())
    return false;
  GV->eraseFromParent();
  return true;
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

// Turns a function or variable definition into a declaration, out of its
// COMDAT; a function keeps a declaration's subprogram (for the calls to
// it), a variable's debug information entries leave the compile units'
// lists (another partition's copy is the one described).
void mtpc_make_declaration(LLVMValueRef V) {
  auto *GO = unwrap<GlobalObject>(V);
  if (auto *F = dyn_cast<Function>(GO)) {
    mtpc::turnIntoDeclaration(*F);
  } else if (auto *GV = dyn_cast<GlobalVariable>(GO)) {
    SmallVector<DIGlobalVariableExpression *, 1> Described;
    GV->getDebugInfo(Described);
    if (!Described.empty()) {
      SmallPtrSet<Metadata *, 4> Gone(Described.begin(), Described.end());
      for (DICompileUnit *CU : GV->getParent()->debug_compile_units()) {
        SmallVector<Metadata *, 16> Kept;
        for (DIGlobalVariableExpression *E : CU->getGlobalVariables())
          if (!Gone.count(E))
            Kept.push_back(E);
        if (Kept.size() != CU->getGlobalVariables().size())
          CU->replaceGlobalVariables(MDTuple::get(GV->getContext(), Kept));
      }
    }
    GV->eraseMetadata(LLVMContext::MD_dbg);
    GV->setInitializer(nullptr);
  }
  GO->setComdat(nullptr);
  GO->setLinkage(GlobalValue::ExternalLinkage);
}

// Replaces every use of an alias by its aliasee and erases the alias.
void mtpc_resolve_alias(LLVMValueRef V) {
  auto *GA = unwrap<GlobalAlias>(V);
  GA->replaceAllUsesWith(GA->getAliasee());
  GA->eraseFromParent();
}

// Writes M as bitcode, as partitions are built from it: with every shared
// C++ class listing the member declarations M's code names (see
// ClassMemberListing), with each function's declaration subprogram listed
// (FunctionDeclarationListing), and with KeepUseListOrder the order of each
// value's uses; M is left as it was. Returns the buffer the writer
// filled, as an opaque handle (free with mtpc_buffer_dispose), and its bytes
// in *Data, *Size: the caller reads them in place, without a copy.
void *mtpc_split_bitcode_write(LLVMModuleRef M, bool KeepUseListOrder, const char **Data, size_t *Size) {
  mtpc::ClassMemberListing Listing(*unwrap(M));
  mtpc::FunctionDeclarationListing Declarations(*unwrap(M));
  auto *Buffer = new SmallVector<char, 0>(writeBitcode(*unwrap(M), KeepUseListOrder));
  *Data = Buffer->data();
  *Size = Buffer->size();
  return Buffer;
}

// LLVM's xxHash64 of Len bytes at Data.
uint64_t mtpc_xxhash64(const char *Data, size_t Len) { return xxHash64(StringRef(Data, Len)); }

namespace {
// A digest of the records of a bitcode stream, block by block, leaving out
// its use-list blocks: the order of each value's uses, which a compile's
// passes may leave otherwise from one run to the next (a DenseMap walked in
// pointer order), changes none of the module's content. Nor do the offsets
// that locate blocks in the stream, which a use-list block's size moves:
// the module's value symbol table's (VSTOFFSET) and each function block's
// (the second operand of its FNENTRY record).
class RecordDigest {
  BitstreamCursor Stream;
  std::optional<BitstreamBlockInfo> BlockInfo;
  SmallVector<uint64_t, 0> Pending;
  uint64_t Hash = 0;

  void mix(uint64_t Value) {
    Pending.push_back(Value);
    if (Pending.size() >= 8192)
      flush();
  }
  void flush() {
    Pending.push_back(Hash);
    Hash = xxHash64(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Pending.data()), Pending.size() * sizeof(uint64_t)));
    Pending.clear();
  }

  Error block(unsigned ID) {
    if (ID == bitc::BLOCKINFO_BLOCK_ID) {
      auto Info = Stream.ReadBlockInfoBlock();
      if (!Info)
        return Info.takeError();
      if (!*Info)
        return createStringError(inconvertibleErrorCode(), "malformed block info");
      BlockInfo = std::move(**Info);
      Stream.setBlockInfo(&*BlockInfo);
      return Error::success();
    }
    if (ID == bitc::USELIST_BLOCK_ID)
      return Stream.SkipBlock();
    if (Error E = Stream.EnterSubBlock(ID))
      return E;
    mix(ID);
    SmallVector<uint64_t, 64> Record;
    for (;;) {
      Expected<BitstreamEntry> Entry = Stream.advance();
      if (!Entry)
        return Entry.takeError();
      switch (Entry->Kind) {
      case BitstreamEntry::Error:
        return createStringError(inconvertibleErrorCode(), "malformed bitcode");
      case BitstreamEntry::EndBlock:
        mix(~uint64_t(0));
        return Error::success();
      case BitstreamEntry::SubBlock:
        if (Error E = block(Entry->ID))
          return E;
        break;
      case BitstreamEntry::Record: {
        Record.clear();
        StringRef Blob;
        Expected<unsigned> Code = Stream.readRecord(Entry->ID, Record, &Blob);
        if (!Code)
          return Code.takeError();
        if (ID == bitc::MODULE_BLOCK_ID && *Code == bitc::MODULE_CODE_VSTOFFSET)
          break;
        if (ID == bitc::VALUE_SYMTAB_BLOCK_ID && *Code == bitc::VST_CODE_FNENTRY && Record.size() > 1)
          Record.resize(1);
        mix(*Code);
        mix(Record.size());
        for (uint64_t Value : Record)
          mix(Value);
        mix(Blob.empty() ? 0 : xxHash64(Blob));
        break;
      }
      }
    }
  }

public:
  explicit RecordDigest(StringRef Bitcode) : Stream(ArrayRef<uint8_t>(Bitcode.bytes_begin(), Bitcode.bytes_end())) {}

  Expected<uint64_t> digest() {
    Expected<SimpleBitstreamCursor::word_t> Magic = Stream.Read(32);
    if (!Magic)
      return Magic.takeError();
    mix(*Magic);
    while (!Stream.AtEndOfStream()) {
      Expected<unsigned> Code = Stream.ReadCode();
      if (!Code)
        return Code.takeError();
      if (*Code != bitc::ENTER_SUBBLOCK)
        return createStringError(inconvertibleErrorCode(), "expected a block at the top level");
      Expected<unsigned> ID = Stream.ReadSubBlockID();
      if (!ID)
        return ID.takeError();
      if (Error E = block(*ID))
        return std::move(E);
    }
    flush();
    return Hash;
  }
};
} // namespace

// A digest of the bitcode at Data (Len bytes) that leaves out the order of
// each value's uses (see RecordDigest); xxHash64 of the bytes if it cannot
// be read so.
uint64_t mtpc_bitcode_digest_without_use_lists(const char *Data, size_t Len) {
  Expected<uint64_t> Digest = RecordDigest(StringRef(Data, Len)).digest();
  if (Digest)
    return *Digest;
  consumeError(Digest.takeError());
  return xxHash64(StringRef(Data, Len));
}

// Frees a buffer the shim handed out (bitcode, a partition's assembly).
void mtpc_buffer_dispose(void *Buffer) { delete static_cast<SmallVector<char, 0> *>(Buffer); }

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
    *Message = mtpc::copyString(EC.message());
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

// A function the module emits needs an entry in the unwind tables
// (Function::needsUnwindTableEntry: it may throw, has a personality
// function or asks for tables). The code generator then puts the call frame
// information of all the module's functions in .eh_frame, else (with -g or
// -fforce-dwarf-frame) in .debug_frame (AsmPrinter::doInitialization).
bool mtpc_module_needs_unwind_tables(LLVMModuleRef M) {
  for (const Function &F : *unwrap(M))
    if (!F.isDeclarationForLinker() && F.needsUnwindTableEntry())
      return true;
  return false;
}

// The call graph profile: an Append flag the host's last passes add once
// per run, a tuple of {caller, callee, count} edges, read by each code
// generator, which writes every edge whose functions are still there.
static constexpr StringLiteral CallGraphProfileFlag("CG Profile");

static StringRef moduleFlagKey(const MDNode &Flag) {
  auto *Key = Flag.getNumOperands() >= 2 ? dyn_cast_or_null<MDString>(Flag.getOperand(1)) : nullptr;
  return Key ? Key->getString() : StringRef();
}

static size_t moduleFlagCount(const Module &M, StringRef Key) {
  NamedMDNode *Flags = M.getModuleFlagsMetadata();
  return Flags ? llvm::count_if(Flags->operands(), [&](const MDNode *F) { return moduleFlagKey(*F) == Key; }) : 0;
}

// Erases every module flag whose key is Name (Len bytes); true if there was
// one.
bool mtpc_module_erase_flag(LLVMModuleRef M, const char *Name, size_t Len) {
  NamedMDNode *Flags = unwrap(M)->getModuleFlagsMetadata();
  if (!Flags)
    return false;
  SmallVector<MDNode *, 16> Kept;
  for (MDNode *Flag : Flags->operands())
    if (moduleFlagKey(*Flag) != StringRef(Name, Len))
      Kept.push_back(Flag);
  if (Kept.size() == Flags->getNumOperands())
    return false;
  Flags->clearOperands();
  for (MDNode *Flag : Kept)
    Flags->addOperand(Flag);
  return true;
}

// Keeps, of the call graph profile's edges, those whose caller is in
// Callers. Returns how many it kept; -1 if the flag is not the tuple of
// edges LLVM writes.
static int64_t keepCallGraphProfileFrom(LLVMModuleRef M, const SmallPtrSetImpl<const Value *> &Callers) {
  Module &Mod = *unwrap(M);
  Metadata *Flag = Mod.getModuleFlag(CallGraphProfileFlag);
  if (!Flag)
    return 0;
  auto *Edges = dyn_cast<MDTuple>(Flag);
  if (!Edges || moduleFlagCount(Mod, CallGraphProfileFlag) != 1)
    return -1;
  SmallVector<Metadata *, 64> Kept;
  for (const MDOperand &Edge : Edges->operands()) {
    auto *E = dyn_cast_or_null<MDNode>(Edge.get());
    if (!E || E->getNumOperands() != 3)
      return -1;
    // A caller the module no longer has (erased) is a null operand.
    auto *From = dyn_cast_or_null<ValueAsMetadata>(E->getOperand(0).get());
    if (From && Callers.count(From->getValue()->stripPointerCasts()))
      Kept.push_back(E);
  }
  if (Kept.empty())
    mtpc_module_erase_flag(M, CallGraphProfileFlag.data(), CallGraphProfileFlag.size());
  else if (Kept.size() != Edges->getNumOperands())
    Mod.setModuleFlag(Module::Append, CallGraphProfileFlag, MDTuple::getDistinct(Mod.getContext(), Kept));
  return static_cast<int64_t>(Kept.size());
}

// Keeps, of the call graph profile's edges, those whose caller is one of
// Callers (N functions of M): in a partition as it is built, those it is
// to emit. Every partition declares what its code calls, and its code
// generator would write every edge between functions it has, declared or
// defined; so the parts together write each edge once.
int64_t mtpc_keep_call_graph_profile_from(LLVMModuleRef M, const LLVMValueRef *Callers, size_t N) {
  SmallPtrSet<const Value *, 32> Emitted;
  for (size_t I = 0; I < N; ++I)
    Emitted.insert(unwrap(Callers[I]));
  return keepCallGraphProfileFrom(M, Emitted);
}

// The same for the callers M defines (not available_externally): in a
// partition about to generate code, whose pipeline recorded edges from its
// copies of functions another partition emits, now declarations.
int64_t mtpc_keep_call_graph_profile_of_definitions(LLVMModuleRef M) {
  SmallPtrSet<const Value *, 32> Defined;
  for (const Function &F : *unwrap(M))
    if (!F.isDeclaration() && !F.hasAvailableExternallyLinkage())
      Defined.insert(&F);
  return keepCallGraphProfileFrom(M, Defined);
}

// Erases the named metadata Name (Len bytes), if the module has it.
void mtpc_erase_named_metadata(LLVMModuleRef M, const char *Name, size_t Len) {
  if (NamedMDNode *N = unwrap(M)->getNamedMetadata(StringRef(Name, Len)))
    unwrap(M)->eraseNamedMetadata(N);
}

// AddressSanitizer describes each global it instruments to its run time by
// the name the global has then (a private "___asan_gen_" string, demangled),
// and gives one that is not local an ODR indicator ("__odr_asan_gen_NAME",
// a byte the run time marks when it registers the global; local ones get
// -1). A local that the split promoted (Promoted[I], external and hidden)
// would be reported by its promoted name and get an indicator; this gives
// it what the whole module's AddressSanitizer gives the local Original[I]:
// its own name, and -1. Returns how many names it restored; a module
// without AddressSanitizer's strings is left as it is.
size_t mtpc_module_restore_sanitized_local_names(LLVMModuleRef MRef, const char *const *Promoted,
                                                 const size_t *PromotedLen, const char *const *Original,
                                                 const size_t *OriginalLen, size_t Count) {
  Module &M = *unwrap(MRef);
  std::vector<GlobalVariable *> Strings;
  for (GlobalVariable &GV : M.globals())
    if (GV.hasPrivateLinkage() && GV.isConstant() && GV.hasInitializer() && GV.getName().starts_with("___asan_gen_"))
      Strings.push_back(&GV);
  if (Strings.empty())
    return 0;
  StringMap<std::string> Names; // the promoted name as reported -> the local's
  for (size_t I = 0; I < Count; ++I) {
    std::string P(Promoted[I], PromotedLen[I]), O(Original[I], OriginalLen[I]);
    Names[llvm::demangle(P)] = llvm::demangle(O);
    // The indicator: its one use is the descriptor's field, a ptrtoint.
    GlobalVariable *Indicator = M.getNamedGlobal("__odr_asan_gen_" + P);
    if (!Indicator || !Indicator->hasOneUse() || !isa<ConstantExpr>(*Indicator->user_begin()))
      continue;
    auto *Local = ConstantExpr::getIntToPtr(ConstantInt::get(Type::getInt64Ty(M.getContext()), -1), Indicator->getType());
    Indicator->replaceAllUsesWith(Local);
    Indicator->eraseFromParent();
  }
  size_t Restored = 0;
  for (GlobalVariable *GV : Strings) {
    auto *Text = dyn_cast<ConstantDataArray>(GV->getInitializer());
    if (!Text || !Text->isCString())
      continue;
    auto Found = Names.find(Text->getAsCString());
    if (Found == Names.end())
      continue;
    auto *Init = ConstantDataArray::getString(M.getContext(), Found->second);
    auto *Renamed = new GlobalVariable(M, Init->getType(), true, GV->getLinkage(), Init, "", GV);
    Renamed->copyAttributesFrom(GV);
    Renamed->takeName(GV);
    GV->replaceAllUsesWith(Renamed);
    GV->eraseFromParent();
    ++Restored;
  }
  return Restored;
}

// The module defines a global that clang asks AddressSanitizer to treat as
// dynamically initialized (sanitize_address_dyninit: a C++ global with a
// constructor). Whether ASan instruments it, and whether the optimizer
// keeps it at all, is known after the pipeline
// (mtpc_module_asan_describes_dynamic_init).
bool mtpc_module_has_asan_dynamic_init(LLVMModuleRef MRef) {
  for (const GlobalVariable &GV : unwrap(MRef)->globals())
    if (!GV.isDeclaration() && GV.hasSanitizerMetadata() && GV.getSanitizerMetadata().IsDynInit)
      return true;
  return false;
}

static bool describesDynamicInit(const Constant *Descriptor) {
  auto *Fields = dyn_cast<ConstantStruct>(Descriptor);
  auto *DynInit = Fields && Fields->getNumOperands() > 5 ? dyn_cast<ConstantInt>(Fields->getOperand(5)) : nullptr;
  return DynInit && !DynInit->isZero();
}

// After AddressSanitizer: it described a global to its run time as
// dynamically initialized (the has_dynamic_init field, the sixth, of a
// descriptor: on ELF one global per described global in section
// asan_globals, as LLVM 19's and 22's ASan writes them by default, or an
// array its module constructor registers with __asan_register_globals, as
// LLVM 16's does). From such a module, LLVM 16's and 19's ASan brackets the
// global constructors (below).
bool mtpc_module_asan_describes_dynamic_init(LLVMModuleRef MRef) {
  Module &M = *unwrap(MRef);
  for (const GlobalVariable &GV : M.globals())
    if (GV.hasInitializer() && GV.getSection() == "asan_globals" && describesDynamicInit(GV.getInitializer()))
      return true;
  Function *Register = M.getFunction("__asan_register_globals");
  if (!Register)
    return false;
  for (const User *U : Register->users()) {
    auto *Call = dyn_cast<CallBase>(U);
    if (!Call || Call->getCalledOperand() != Register || Call->arg_size() < 1)
      continue;
    Value *Array = Call->getArgOperand(0);
    if (auto *Cast = dyn_cast<ConstantExpr>(Array); Cast && Cast->getOpcode() == Instruction::PtrToInt)
      Array = Cast->getOperand(0);
    auto *GV = dyn_cast<GlobalVariable>(Array->stripPointerCasts());
    auto *Descriptors = GV && GV->hasInitializer() ? dyn_cast<ConstantArray>(GV->getInitializer()) : nullptr;
    if (!Descriptors)
      continue;
    for (const Use &D : Descriptors->operands())
      if (describesDynamicInit(cast<Constant>(D.get())))
        return true;
  }
  return false;
}

static bool callsFunctionNamed(const BasicBlock &BB, StringRef Name) {
  for (const Instruction &I : BB)
    if (auto *Call = dyn_cast<CallBase>(&I))
      if (const Function *Callee = Call->getCalledFunction(); Callee && Callee->getName() == Name)
        return true;
  return false;
}

// After its pipeline, in a partition of a module another partition of which
// AddressSanitizer described a dynamically initialized global in: brackets
// the global constructors its pipeline created (not the module's own,
// Skip[0..Count), each Len[I] bytes) as ASan brackets the whole module's
// (ModuleAddressSanitizer::createInitializerPoisonCalls), unless ASan did
// so here. Those are the constructors SanitizerCoverage and
// SanitizerBinaryMetadata give every partition, in one COMDAT group: the
// copies of a partition that described no such global differed from the
// others' (the merge refused them, and every C++ module built for fuzzing
// with ASan compiled whole). The call names the module by the string ASan
// describes the partition's globals by, or a new one alike; the module's
// own constructors are left as they are, since their bracket, named by
// this partition's string, would hide the globals another partition
// describes by its own while they are initialized. Returns how many
// constructors it bracketed; with Apply false, how many it would, and
// changes nothing.
size_t mtpc_module_bracket_dynamic_initializers(LLVMModuleRef MRef, const char *const *Skip, const size_t *Len,
                                                size_t Count, bool Apply) {
  Module &M = *unwrap(MRef);
  static constexpr StringRef Before = "__asan_before_dynamic_init", After = "__asan_after_dynamic_init";
  GlobalVariable *Ctors = M.getGlobalVariable("llvm.global_ctors");
  auto *List = Ctors && Ctors->hasInitializer() ? dyn_cast<ConstantArray>(Ctors->getInitializer()) : nullptr;
  if (!List)
    return 0;
  StringSet<> Own;
  for (size_t I = 0; I < Count; ++I)
    Own.insert(StringRef(Skip[I], Len[I]));
  // As AddressSanitizer chooses: a defined function, run after its own
  // constructor (priority 1 on ELF), not that constructor.
  std::vector<Function *> Initializers;
  for (const Use &Entry : List->operands()) {
    auto *Fields = dyn_cast<ConstantStruct>(Entry.get());
    if (!Fields || Fields->getNumOperands() < 2)
      continue;
    auto *F = dyn_cast<Function>(Fields->getOperand(1));
    auto *Priority = dyn_cast<ConstantInt>(Fields->getOperand(0));
    if (!F || F->isDeclaration() || !Priority || Priority->getLimitedValue() <= 1 || F->getName() == "asan.module_ctor")
      continue;
    if (callsFunctionNamed(F->getEntryBlock(), Before))
      return 0; // AddressSanitizer bracketed them all.
    if (!Own.contains(F->getName()))
      Initializers.push_back(F);
  }
  if (Initializers.empty() || !Apply)
    return Initializers.size();
  const std::string &Identifier = M.getModuleIdentifier();
  GlobalVariable *Name = nullptr;
  for (GlobalVariable &GV : M.globals()) {
    auto *Text = GV.hasPrivateLinkage() && GV.isConstant() && GV.hasInitializer() && GV.getName().starts_with("___asan_gen_")
                     ? dyn_cast<ConstantDataArray>(GV.getInitializer())
                     : nullptr;
    if (Text && Text->isCString() && Text->getAsCString() == Identifier && !GV.hasGlobalUnnamedAddr()) {
      Name = &GV;
      break;
    }
  }
  LLVMContext &Ctx = M.getContext();
  if (!Name) {
    // As createPrivateGlobalForString without merging: the run time tells
    // modules apart by this string's address.
    Constant *Init = ConstantDataArray::getString(Ctx, Identifier);
    Name = new GlobalVariable(M, Init->getType(), true, GlobalValue::PrivateLinkage, Init, "___asan_gen_");
    Name->setAlignment(Align(1));
  }
  Type *IntPtr = M.getDataLayout().getIntPtrType(Ctx);
  FunctionCallee Poison = M.getOrInsertFunction(Before, Type::getVoidTy(Ctx), IntPtr);
  FunctionCallee Unpoison = M.getOrInsertFunction(After, Type::getVoidTy(Ctx));
  Constant *NameAddress = ConstantExpr::getPointerCast(Name, IntPtr);
  for (Function *F : Initializers) {
    // Where AddressSanitizer puts them (its module pass runs after it
    // instrumented the functions): first in the entry block, with the
    // location of the instruction it goes before, and, without one, before
    // every return.
    BasicBlock &Entry = F->getEntryBlock();
    auto First = Entry.getFirstInsertionPt();
    CallInst *Call = CallInst::Create(Poison, {NameAddress});
    if (First != Entry.end())
      Call->setDebugLoc(First->getDebugLoc());
    Call->insertInto(&Entry, First);
    for (BasicBlock &BB : *F)
      if (auto *Return = dyn_cast<ReturnInst>(BB.getTerminator()))
        CallInst::Create(Unpoison)->insertInto(&BB, Return->getIterator());
  }
  return Initializers.size();
}

// ASan's module constructor, if it is in a COMDAT group (below).
static Function *asanConstructorInGroup(Module &M) {
  Function *Ctor = M.getFunction("asan.module_ctor");
  return Ctor && !Ctor->isDeclaration() && Ctor->hasComdat() ? Ctor : nullptr;
}

// After AddressSanitizer with -fsanitize-address-globals-dead-stripping:
// its module constructor, asan.module_ctor, is in a COMDAT group of that
// name, and LLVM 16's registers the object's globals with the run time
// (__asan_register_elf_globals, over the bounds of section asan_globals)
// only from a module that has globals it instruments; 19's and 22's do
// from every module. 1 if the module has such a constructor and it
// registers them, 0 if it has one that does not, -1 if it has none in a
// COMDAT group (a module whose ASan found no name unique to it registers
// its globals from an array, in a constructor of its own).
int mtpc_module_asan_constructor_registers(LLVMModuleRef MRef) {
  Function *Ctor = asanConstructorInGroup(*unwrap(MRef));
  if (!Ctor)
    return -1;
  for (const BasicBlock &BB : *Ctor)
    if (callsFunctionNamed(BB, "__asan_register_elf_globals"))
      return 1;
  return 0;
}

// Erases the module constructor above, which does not register the
// object's globals, from a partition of a module another partition of
// which has one that does: the merge keeps one copy of a group, and two
// different copies are refused. Removes its entries from llvm.global_ctors,
// llvm.used and llvm.compiler.used first. Returns whether it was erased.
bool mtpc_module_drop_asan_constructor(LLVMModuleRef MRef) {
  Module &M = *unwrap(MRef);
  Function *Ctor = asanConstructorInGroup(M);
  if (!Ctor)
    return false;
  if (GlobalVariable *Ctors = M.getGlobalVariable("llvm.global_ctors");
      Ctors && Ctors->hasInitializer() && isa<ConstantArray>(Ctors->getInitializer())) {
    auto *List = cast<ConstantArray>(Ctors->getInitializer());
    SmallVector<Constant *, 8> Kept;
    for (const Use &Entry : List->operands()) {
      auto *Fields = dyn_cast<ConstantStruct>(Entry.get());
      if (!Fields || Fields->getNumOperands() < 2 || Fields->getOperand(1)->stripPointerCasts() != Ctor)
        Kept.push_back(cast<Constant>(Entry.get()));
    }
    if (Kept.empty()) {
      Ctors->eraseFromParent();
    } else if (Kept.size() != List->getNumOperands()) {
      auto *Type = ArrayType::get(List->getType()->getElementType(), Kept.size());
      auto *Shorter = new GlobalVariable(M, Type, Ctors->isConstant(), Ctors->getLinkage(), ConstantArray::get(Type, Kept),
                                         "", Ctors);
      Shorter->setSection(Ctors->getSection());
      Shorter->takeName(Ctors);
      Ctors->eraseFromParent();
    }
  }
  removeFromUsedLists(M, [Ctor](Constant *C) { return C->stripPointerCasts() == Ctor; });
  // The erased arrays' constants still name it until they are dropped.
  Ctor->removeDeadConstantUsers();
  if (!Ctor->use_empty())
    return false;
  Ctor->eraseFromParent();
  return true;
}

// The directory of the module's compile units, if it has any and they all
// have the same (*Len = 0 and null otherwise).
const char *mtpc_module_compile_unit_directory(LLVMModuleRef MRef, size_t *Len) {
  *Len = 0;
  std::optional<StringRef> Dir;
  for (const DICompileUnit *CU : unwrap(MRef)->debug_compile_units()) {
    StringRef D = CU->getDirectory();
    if (Dir && *Dir != D)
      return nullptr;
    Dir = D;
  }
  if (!Dir)
    return nullptr;
  *Len = Dir->size();
  return Dir->data();
}

// Ends the process with LLVM's usual "LLVM ERROR: <message>" and exit code
// 1, without a crash report: for errors in the user's input or request.
void mtpc_report_fatal_error(const char *Message) {
  report_fatal_error(Twine(Message), /*gen_crash_diag=*/false);
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

void mtpc_replace_module_with_asm(LLVMModuleRef M, const char *Asm, size_t Len) {
  mtpc::replaceModuleWithAsm(*unwrap(M), StringRef(Asm, Len));
}

} // extern "C"

// Whether a module flag refers to a global (as "CG Profile" does), which
// the host's code generation would then read.
static bool flagsReferToValues(const Module &M) {
  NamedMDNode *Flags = M.getModuleFlagsMetadata();
  if (!Flags)
    return false;
  SmallVector<const MDNode *, 16> Work(Flags->operands().begin(), Flags->operands().end());
  SmallPtrSet<const MDNode *, 16> Seen;
  while (!Work.empty()) {
    const MDNode *N = Work.pop_back_val();
    if (!Seen.insert(N).second)
      continue;
    for (const MDOperand &Op : N->operands()) {
      // A value but a plain number (a global, or a constant expression of one).
      if (auto *V = dyn_cast_or_null<ValueAsMetadata>(Op.get()); V && !isa<ConstantData>(V->getValue()))
        return true;
      if (auto *Inner = dyn_cast_or_null<MDNode>(Op.get()))
        Work.push_back(Inner);
    }
  }
  return false;
}

bool mtpc::keptByHost(const NamedMDNode &N) {
  StringRef Name = N.getName();
  return Name == "llvm.module.flags" ||
         (N.getNumOperands() == 0 && (Name == "llvm.linker.options" || Name == "llvm.dependent-libraries"));
}

void mtpc::replaceModuleWithAsm(Module &M, StringRef Asm) {
  if (flagsReferToValues(M)) {
    // Erased, so that the flags' references become null, as when the
    // globals are deleted by any pass.
    M.dropAllReferences();
    while (!M.ifunc_empty())
      M.ifunc_begin()->eraseFromParent();
    while (!M.alias_empty())
      M.alias_begin()->eraseFromParent();
    while (!M.empty())
      M.begin()->eraseFromParent();
    while (!M.global_empty())
      M.global_begin()->eraseFromParent();
  } else {
    // Moved, whole, into a module of the context that nothing compiles
    // (out of their comdats, which M owns and may free first: lld's ThinLTO
    // backends, opt): the context deletes it with the modules it still owns
    // when it is destroyed, which clang never does (-disable-free).
    // Erasing every instruction here took the host's thread 50 ms after a
    // large C++ module's partitions (duckdb's execution file), serially.
    mtpc::moveGlobalValues(M, *new Module(M.getModuleIdentifier() + ".mtpc-compiled", M.getContext()));
  }
  // Debug info, .ident, command line, linker options, dependent libraries:
  // the partitions' text carries them (each its own debug info, partition 0
  // the rest), but what keptByHost keeps.
  SmallVector<NamedMDNode *, 8> Named;
  for (NamedMDNode &N : M.named_metadata())
    if (!mtpc::keptByHost(N))
      Named.push_back(&N);
  for (NamedMDNode *N : Named)
    M.eraseNamedMetadata(N);
  M.setModuleInlineAsm(Asm.str());
}
