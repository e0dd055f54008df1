// object_frame.cpp - what the host's assembly printer writes around a
// module's module-level asm, for the object mtpc writes itself
// (host_object.cpp): the GNU property note and the file symbol before it,
// the non-executable stack note and the address-significance table after
// it. The printer is run on a stub module with the host module's name, file
// name, triple, data layout and module flags (what it prints from once mtpc
// has emptied the module) and module asm that switches to a marker section;
// the text is cut at the marker's line. The stub lives in the host's context
// (it shares the flags' metadata) and is printed on the host's thread.
#include "shim.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Support/raw_ostream.h"

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

} // namespace

std::optional<mtpc::ObjectFrame> mtpc::printObjectFrame(Module &M, const HostSettings &H, std::string &Why) {
  auto Stub = std::make_unique<Module>(M.getModuleIdentifier(), M.getContext());
  Stub->setSourceFileName(M.getSourceFileName());
  Stub->setTargetTriple(M.getTargetTriple());
  Stub->setDataLayout(M.getDataLayout());
  if (NamedMDNode *Flags = M.getModuleFlagsMetadata()) {
    NamedMDNode *Copy = Stub->getOrInsertModuleFlagsMetadata();
    for (MDNode *F : Flags->operands()) {
      SmallPtrSet<const Metadata *, 8> Seen;
      if (refersToValues(F, Seen)) {
        Why = "a module flag refers to a function or a global";
        return std::nullopt;
      }
      Copy->addOperand(F);
    }
  }
  // An empty list of linker directives, which the host's module keeps: its
  // (empty) section is the host's, after the merged text.
  for (const NamedMDNode &N : M.named_metadata())
    if (N.getName() != "llvm.module.flags" && mtpc::keptByHost(N))
      Stub->getOrInsertNamedMetadata(N.getName());
  Stub->setModuleInlineAsm((".section " + MarkerSection + ",\"\",@progbits").str());
  std::unique_ptr<TargetMachine> TM = H.createTargetMachine();
  if (!TM) {
    Why = "no target machine for " + H.Triple;
    return std::nullopt;
  }
  TM->Options.MCOptions.AsmVerbose = false;
  SmallString<0> Text;
  {
    raw_svector_ostream OS(Text);
    legacy::PassManager Printer;
    if (TM->addPassesToEmitFile(Printer, OS, nullptr, mtpc::AssemblyFileType, /*DisableVerify=*/true)) {
      Why = "the target cannot print assembly";
      return std::nullopt;
    }
    Printer.run(*Stub);
  }
  StringRef All = Text.str();
  size_t Marker = All.find(MarkerSection);
  if (Marker == StringRef::npos || All.find(MarkerSection, Marker + 1) != StringRef::npos) {
    Why = "the assembly printer did not print module asm once";
    return std::nullopt;
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
      Why = "the assembly printer writes '" + Line.trim().str() + "' after module asm, in the section that module asm ends in";
      return std::nullopt;
    }
    break;
  }
  return ObjectFrame{(Head + Tail).str(), Head.size()};
}

extern "C" {

// The frame of the run's module (mtpc::printObjectFrame) as the settings
// SettingsP print it: its bytes in *Data, *Len (free with free()), the
// merged text going at *HeadLen. Null, with *Message (free with free()), if
// there is none.
char *mtpc_run_object_frame(void *RunP, void *SettingsP, size_t *Len, size_t *HeadLen, char **Message) {
  std::string Why;
  std::optional<mtpc::ObjectFrame> Frame =
      mtpc::printObjectFrame(mtpc::runModule(RunP), *static_cast<mtpc::HostSettings *>(SettingsP), Why);
  if (!Frame) {
    *Message = mtpc::copyString(Why);
    return nullptr;
  }
  *Len = Frame->Text.size();
  *HeadLen = Frame->HeadLength;
  char *Bytes = static_cast<char *>(malloc(Frame->Text.size() + 1));
  memcpy(Bytes, Frame->Text.data(), Frame->Text.size() + 1);
  return Bytes;
}

} // extern "C"
