// host_object.cpp - the object mtpc writes itself where the host lets a
// plugin write its output (clang 22's pre-codegen callback).
//
// After a split, the host's module holds nothing but the merged text, as
// module-level asm, which the host's code generation parses and assembles
// on its own thread once everything else is done. clang 22 calls a plugin's
// pre-codegen callback just before that code generation, with its target
// machine and output stream; a plugin that writes the output and returns
// true replaces it. So mtpc assembles the text itself, on a worker, as the
// check of the text (one assembly instead of a check and the host's), inside
// the frame the host's assembly printer puts around module asm (the GNU
// property note and the file symbol before it; the non-executable stack
// note and the address-significance table after it), and offers the bytes;
// the callback writes them if the module, the target machine and the output
// are those they were made for, and otherwise declines, and the host
// assembles the text as before.
//
// The callback has no argument that could lead to mtpc's state: the objects
// offered are kept in one list for the process, by module.
#include "shim.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <mutex>

using namespace llvm;

namespace {

// The section the stub's module asm switches to: where the merged text goes
// in the frame.
constexpr StringLiteral MarkerSection = ".mtpc.merged.text";

// Whether MD refers to a value other than a constant number (a function or
// a global): the host's module flags lose such references when mtpc empties
// the module, and a stub cannot hold them.
bool refersToValues(const Metadata *MD, SmallPtrSetImpl<const Metadata *> &Seen) {
  if (!MD || !Seen.insert(MD).second)
    return false;
  if (const auto *V = dyn_cast<ValueAsMetadata>(MD))
    return !isa<ConstantData>(V->getValue());
  if (const auto *N = dyn_cast<MDNode>(MD))
    return llvm::any_of(N->operands(), [&](const MDOperand &Op) { return refersToValues(Op.get(), Seen); });
  return false;
}

// Whether Line switches sections (the frame's text after the merged text
// must begin so: it was printed with the marker section current, and
// content before a switch would belong to the section the merged text
// ends in).
bool switchesSection(StringRef Line) {
  Line = Line.ltrim();
  return Line.starts_with(".section") || Line.starts_with(".text") || Line.starts_with(".data") ||
         Line.starts_with(".bss");
}

// An object mtpc assembled for a module, and what it was assembled for.
struct OfferedObject {
  const Module *M;
  const TargetMachine *TM;
  size_t AsmLength;
  uint64_t AsmHash;
  std::vector<const MDNode *> Flags;
  std::string SourceFileName, Triple, DataLayout;
  std::unique_ptr<SmallVector<char, 0>> Bytes;
};

std::vector<const MDNode *> moduleFlags(const Module &M) {
  std::vector<const MDNode *> Flags;
  if (const NamedMDNode *N = M.getModuleFlagsMetadata())
    for (const MDNode *F : N->operands())
      Flags.push_back(F);
  return Flags;
}

// Whether M holds exactly what O was assembled from: no code or data of its
// own, the same module asm, flags, file name, triple and data layout.
bool holdsOnlyOffered(const Module &M, const OfferedObject &O) {
  StringRef Asm = M.getModuleInlineAsm();
  bool Empty = llvm::all_of(M, [](const Function &F) { return F.isDeclaration(); }) &&
               llvm::all_of(M.globals(), [](const GlobalVariable &G) { return G.isDeclaration(); }) &&
               M.alias_empty() && M.ifunc_empty();
  return Empty && Asm.size() == O.AsmLength && xxHash64(Asm) == O.AsmHash && moduleFlags(M) == O.Flags &&
         M.getSourceFileName() == O.SourceFileName && mtpc::tripleString(M) == O.Triple &&
         M.getDataLayoutStr() == O.DataLayout;
}

// The objects offered and not yet written (one per module being compiled).
std::mutex OfferedLock;
std::vector<OfferedObject> Offered;

} // namespace

extern "C" {

// The text the host's assembly printer writes around the run's module's
// module asm once mtpc has emptied the module (printed from a stub module
// with the same name, file name, triple, data layout and module flags, on
// this thread): malloc'ed, the merged text going at *HeadLen. Null, with
// *Message (free with free()), if it cannot be made: a module flag refers to
// a function or global, or the printer's text is not as expected.
char *mtpc_run_object_frame(void *RunP, void *SettingsP, size_t *HeadLen, char **Message) {
  Module &M = mtpc::runModule(RunP);
  auto *H = static_cast<mtpc::HostSettings *>(SettingsP);
  auto Stub = std::make_unique<Module>(M.getModuleIdentifier(), M.getContext());
  Stub->setSourceFileName(M.getSourceFileName());
  Stub->setTargetTriple(M.getTargetTriple());
  Stub->setDataLayout(M.getDataLayout());
  if (NamedMDNode *Flags = M.getModuleFlagsMetadata()) {
    NamedMDNode *Copy = Stub->getOrInsertModuleFlagsMetadata();
    for (MDNode *F : Flags->operands()) {
      SmallPtrSet<const Metadata *, 8> Seen;
      if (refersToValues(F, Seen)) {
        *Message = mtpc::copyString("a module flag refers to a function or a global");
        return nullptr;
      }
      Copy->addOperand(F);
    }
  }
  Stub->setModuleInlineAsm((".section " + MarkerSection + ",\"\",@progbits").str());
  std::unique_ptr<TargetMachine> TM = H->createTargetMachine();
  if (!TM) {
    *Message = mtpc::copyString("no target machine for " + H->Triple);
    return nullptr;
  }
  TM->Options.MCOptions.AsmVerbose = false;
  SmallString<0> Text;
  {
    raw_svector_ostream OS(Text);
    legacy::PassManager Printer;
    if (TM->addPassesToEmitFile(Printer, OS, nullptr, mtpc::AssemblyFileType, /*DisableVerify=*/true)) {
      *Message = mtpc::copyString("the target cannot print assembly");
      return nullptr;
    }
    Printer.run(*Stub);
  }
  StringRef All = Text.str();
  size_t Marker = All.find(MarkerSection);
  if (Marker == StringRef::npos || All.find(MarkerSection, Marker + 1) != StringRef::npos) {
    *Message = mtpc::copyString("the assembly printer did not print module asm once");
    return nullptr;
  }
  size_t LineStart = All.rfind('\n', Marker) + 1; // npos + 1: the first line
  size_t LineEnd = All.find('\n', Marker);
  StringRef Head = All.take_front(LineStart);
  StringRef Tail = LineEnd == StringRef::npos ? StringRef() : All.drop_front(LineEnd + 1);
  SmallVector<StringRef, 16> Lines;
  Tail.split(Lines, '\n');
  for (StringRef Line : Lines) {
    if (Line.trim().empty() || Line.ltrim().starts_with("#"))
      continue;
    if (!switchesSection(Line)) {
      *Message = mtpc::copyString("the assembly printer writes '" + Line.trim().str() +
                                  "' after module asm, in the section that module asm ends in");
      return nullptr;
    }
    break;
  }
  *HeadLen = Head.size();
  return mtpc::copyString((Head + Tail).str());
}

// Offers Object (from mtpc_assemble_object; taken over) for the run's
// module, as mtpc's pass leaves it, compiled with the target machine the
// settings SettingsP were read from (mtpc_write_offered_object).
void mtpc_run_offer_object(void *RunP, void *SettingsP, void *Object) {
  const Module &M = mtpc::runModule(RunP);
  StringRef Asm = M.getModuleInlineAsm();
  OfferedObject O{&M,
                  static_cast<mtpc::HostSettings *>(SettingsP)->Source,
                  Asm.size(),
                  xxHash64(Asm),
                  moduleFlags(M),
                  M.getSourceFileName(),
                  mtpc::tripleString(M),
                  M.getDataLayoutStr(),
                  std::unique_ptr<SmallVector<char, 0>>(static_cast<SmallVector<char, 0> *>(Object))};
  std::lock_guard<std::mutex> Lock(OfferedLock);
  llvm::erase_if(Offered, [&](const OfferedObject &Other) { return Other.M == &M; });
  Offered.push_back(std::move(O));
}

// What mtpc_write_offered_object did (mirrored in Rust, host_pipeline.rs).
enum MtpcOfferedObject : int {
  NoneOffered = 0,
  Written = 1,
  NotAnObject = 2,     // the host writes assembly (or nothing)
  OtherTarget = 3,     // not the target machine the partitions were compiled with
  ModuleChanged = 4,   // the module is not as mtpc's pass left it
};

// The pre-codegen callback's work: if an object was offered for M (an
// llvm::Module*), and M, the target machine TM (an llvm::TargetMachine*) and
// the output kind FileType (an llvm::CodeGenFileType) are those it was made
// for, writes it to OS (an llvm::raw_pwrite_stream*). The offer is used up
// either way.
int mtpc_write_offered_object(void *MP, void *TMP, int FileType, void *OSP) {
  const Module &M = *static_cast<const Module *>(MP);
  std::optional<OfferedObject> O;
  {
    std::lock_guard<std::mutex> Lock(OfferedLock);
    auto It = llvm::find_if(Offered, [&](const OfferedObject &Other) { return Other.M == &M; });
    if (It == Offered.end())
      return NoneOffered;
    O = std::move(*It);
    Offered.erase(It);
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
