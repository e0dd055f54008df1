// host_object.cpp - the object mtpc writes itself where the host lets a
// plugin write its output (clang 22's pre-codegen callback), where the
// partitions print assembly (their objects could not be transcribed).
//
// After a split, the host's module holds nothing but the merged text, as
// module-level asm, which the host's code generation parses and assembles
// on its own thread once everything else is done. clang 22 calls a plugin's
// pre-codegen callback just before that code generation, with its target
// machine and output stream; a plugin that writes the output and returns
// true replaces it (and the callbacks of plugins loaded after it). So mtpc
// assembles the text itself, as the check of the text (one assembly instead
// of a check and the host's), inside the frame the host's assembly printer
// puts around module asm (object_frame.cpp), and offers the bytes here; the
// callback writes them if the output is an object and the target machine
// and the module are those they were made for (the same module asm, and
// the same frame printed from the module as it is then: passes after mtpc's
// may have added module flags), and otherwise declines, and the host
// assembles the text as before.
//
// The callback has no argument that could lead to mtpc's state: the object
// offered is kept in one list for the process, by module.
#include "shim.h"

#include "llvm/IR/Metadata.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <mutex>
#include <optional>

using namespace llvm;

namespace {

// An object mtpc assembled for a module, and what it was assembled for.
struct OfferedObject {
  const Module *M;
  const TargetMachine *TM;
  size_t AsmLength;
  uint64_t AsmHash;
  mtpc::HostSettings Settings;
  mtpc::ObjectFrame Frame;
  std::unique_ptr<SmallVector<char, 0>> Bytes;
};

// Whether M holds exactly what O was assembled from: nothing but module asm
// and the named metadata mtpc::keptByHost keeps (as replaceModuleWithAsm
// leaves a module: no function, global, alias or ifunc, even declared), the
// same module asm, and a frame printed alike.
bool holdsOnlyOffered(Module &M, const OfferedObject &O) {
  bool OnlyKept = llvm::all_of(M.named_metadata(), mtpc::keptByHost);
  if (!M.empty() || !M.global_empty() || !M.alias_empty() || !M.ifunc_empty() || !OnlyKept)
    return false;
  StringRef Asm = M.getModuleInlineAsm();
  if (Asm.size() != O.AsmLength || xxHash64(Asm) != O.AsmHash)
    return false;
  std::string Why;
  std::optional<mtpc::ObjectFrame> Frame = mtpc::printObjectFrame(M, O.Settings, Why);
  return Frame && *Frame == O.Frame;
}

// The object offered and not yet written (clang compiles one module at a
// time; an offer it never took, for a module that went to another plugin's
// callback, is replaced by the next).
std::mutex OfferedLock;
std::optional<OfferedObject> Offered;

} // namespace

extern "C" {

// Offers Object (from mtpc_assemble_object; taken over), assembled inside
// the frame Frame (Len bytes, the text going at HeadLen), for the run's
// module, as mtpc's pass leaves it, compiled with the target machine the
// settings SettingsP were read from (mtpc_write_offered_object).
void mtpc_run_offer_object(void *RunP, void *SettingsP, void *Object, const char *Frame, size_t Len, size_t HeadLen) {
  const Module &M = mtpc::runModule(RunP);
  StringRef Asm = M.getModuleInlineAsm();
  auto *H = static_cast<mtpc::HostSettings *>(SettingsP);
  OfferedObject O{&M,
                  H->Source,
                  Asm.size(),
                  xxHash64(Asm),
                  *H,
                  mtpc::ObjectFrame{std::string(Frame, Len), HeadLen},
                  std::unique_ptr<SmallVector<char, 0>>(static_cast<SmallVector<char, 0> *>(Object))};
  std::lock_guard<std::mutex> Lock(OfferedLock);
  Offered = std::move(O);
}

// What mtpc_write_offered_object did (mirrored in Rust, host_pipeline.rs).
enum MtpcOfferedObject : int {
  NoneOffered = 0,
  Written = 1,
  NotAnObject = 2,     // the host writes assembly (or nothing)
  OtherTarget = 3,     // not the target machine the partitions were compiled with
  ModuleChanged = 4,   // the module is not as mtpc's pass left it (replaceModuleWithAsm)
};

// The pre-codegen callback's work: if an object was offered for M (an
// llvm::Module*), and M, the target machine TM (an llvm::TargetMachine*) and
// the output kind FileType (an llvm::CodeGenFileType) are those it was made
// for, writes it to OS (an llvm::raw_pwrite_stream*). The offer is used up
// either way.
int mtpc_write_offered_object(void *MP, void *TMP, int FileType, void *OSP) {
  Module &M = *static_cast<Module *>(MP);
  std::optional<OfferedObject> O;
  {
    std::lock_guard<std::mutex> Lock(OfferedLock);
    if (!Offered || Offered->M != &M)
      return NoneOffered;
    O = std::exchange(Offered, std::nullopt);
  }
  if (FileType != int(mtpc::ObjectFileType))
    return NotAnObject;
  if (O->TM != static_cast<const TargetMachine *>(TMP))
    return OtherTarget;
  if (!holdsOnlyOffered(M, *O))
    return ModuleChanged;
  static_cast<raw_pwrite_stream *>(OSP)->write(O->Bytes->data(), O->Bytes->size());
  return Written;
}

} // extern "C"
