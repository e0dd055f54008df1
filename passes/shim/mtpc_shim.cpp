// mtpc_shim.cpp - the few LLVM operations that the LLVM-C API of LLVM 16 lacks.
//
// Rules (after rustc's llvm-wrapper): every entry point takes and returns
// opaque LLVM-C handles, never throws (LLVM is built without exceptions),
// reports failure through its return value, and does one small thing. The
// logic that decides what to do lives in Rust; this file only does it.
#include "llvm-c/Core.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;

static_assert(LLVM_VERSION_MAJOR == 16, "mtpc's shim is written for LLVM 16");

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

// Finishes lazy loading: whatever is still materializable, and the metadata.
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

// Writes M as bitcode into a malloc'ed buffer (*Data, *Size; free with
// free()). Unlike LLVMWriteBitcodeToMemoryBuffer it writes no LTO symbol
// table: partitions are read back by LLVM, never by a linker.
void mtpc_write_bitcode(LLVMModuleRef M, char **Data, size_t *Size) {
  SmallVector<char, 0> Buffer;
  Buffer.reserve(1 << 20);
  BitcodeWriter Writer(Buffer);
  Writer.writeModule(*unwrap(M));
  Writer.writeStrtab();
  *Data = static_cast<char *>(malloc(Buffer.size()));
  memcpy(*Data, Buffer.data(), Buffer.size());
  *Size = Buffer.size();
}

// Writes M as bitcode (no LTO symbol table) to the file Path. Returns
// false and sets *Message (free with free()) on failure.
bool mtpc_write_bitcode_file(LLVMModuleRef M, const char *Path, char **Message) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (!EC) {
    SmallVector<char, 0> Buffer;
    Buffer.reserve(1 << 20);
    BitcodeWriter Writer(Buffer);
    Writer.writeModule(*unwrap(M));
    Writer.writeStrtab();
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
