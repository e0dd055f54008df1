// debug_files.cpp - one numbering of the module's source files for every
// partition. See shim.h for the rules.
//
// The merged text has one DWARF line table, and a partition's debug
// information names files by their number in it (DW_AT_decl_file,
// DW_AT_call_file, .loc), in forms sized for its own numbers: the merge
// cannot renumber them. So every partition numbers the module's files alike:
// the files are collected once, from the whole module, and before a
// partition's DWARF writer numbers any file, each is registered in that
// order, exactly as the writer registers files (same DWARF version, same
// root, same directory, checksum and source). The writer then finds every
// file it needs already numbered, and writes no .file directive for it; the
// merge writes the table, from the same list (mtpc_debug_files_table).
// Where each partition writes an object (clang), each has a line table
// of its own, numbered alike all the same: its units say what the merged
// text's would.
#include "debug_files.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Pass.h"
#include "llvm/Support/FormattedStream.h"

using namespace llvm;

namespace {

std::optional<MD5::MD5Result> md5Of(const DIFile *F, uint16_t Version) {
  // As DwarfUnit::getMD5AsBytes: DWARF 5 only, MD5 checksums only.
  std::optional<DIFile::ChecksumInfo<StringRef>> Checksum = F->getChecksum();
  if (Version < 5 || !Checksum || Checksum->Kind != DIFile::CSK_MD5)
    return std::nullopt;
  std::string Bytes = fromHex(Checksum->Value);
  MD5::MD5Result Result;
  if (Bytes.size() != Result.size())
    return std::nullopt;
  std::copy(Bytes.begin(), Bytes.end(), Result.data());
  return Result;
}

mtpc::DebugFile fileOf(const DIFile *F, uint16_t Version) {
  mtpc::DebugFile D{F->getDirectory().str(), F->getFilename().str(), md5Of(F, Version), std::nullopt};
  if (std::optional<StringRef> Source = F->getSource())
    D.Source = Source->str();
  return D;
}

// True for an entity the DWARF writer gives a declaration line to (a line
// that is not 0) while it names no file: the writer numbers "<stdin>" then.
bool hasLineWithoutFile(const MDNode *N) {
  if (auto *T = dyn_cast<DIType>(N))
    return !T->getFile() && T->getLine();
  if (auto *SP = dyn_cast<DISubprogram>(N))
    return !SP->getFile() && SP->getLine();
  if (auto *V = dyn_cast<DIVariable>(N))
    return !V->getFile() && V->getLine();
  if (auto *L = dyn_cast<DILabel>(N))
    return !L->getFile() && L->getLine();
  if (auto *E = dyn_cast<DIImportedEntity>(N))
    return !E->getFile() && E->getLine();
  return false;
}

std::optional<StringRef> sourceOf(const mtpc::DebugFile &F) {
  return F.Source ? std::optional<StringRef>(*F.Source) : std::nullopt;
}

// Registers Files in Ctx's line table as the DWARF writer would (and the
// root first, as the writer does for DWARF 5); through Streamer if given,
// which then prints the .file directives.
void registerFiles(const mtpc::DebugFiles &Files, MCContext &Ctx, MCStreamer *Streamer) {
  Ctx.setDwarfVersion(Files.DwarfVersion);
  if (Files.Root && Files.DwarfVersion >= 5) {
    const mtpc::DebugFile &R = *Files.Root;
    if (Streamer)
      Streamer->emitDwarfFile0Directive(R.Directory, R.Name, R.Checksum, sourceOf(R), 0);
    else
      Ctx.setMCLineTableRootFile(0, R.Directory, R.Name, R.Checksum, sourceOf(R));
  }
  for (const mtpc::DebugFile &F : Files.Files) {
    Expected<unsigned> Number = Streamer ? Streamer->tryEmitDwarfFileDirective(0, F.Directory, F.Name, F.Checksum, sourceOf(F), 0)
                                         : Ctx.getDwarfFile(F.Directory, F.Name, 0, F.Checksum, sourceOf(F), 0);
    if (!Number)
      consumeError(Number.takeError());
  }
}

// Runs its registration when the pass manager initializes it: after the
// machine module info (an immutable pass), before the asm printer, whose
// initialization starts the DWARF writer.
class ReserveFileNumbers : public ModulePass {
public:
  static char ID;
  ReserveFileNumbers(std::shared_ptr<const mtpc::DebugFiles> Files, MachineModuleInfoWrapperPass *MMIWP, bool ForObject)
      : ModulePass(ID), Files(std::move(Files)), MMIWP(MMIWP), ForObject(ForObject) {}
  bool doInitialization(Module &) override {
    MCContext &Ctx = MMIWP->getMMI().getContext();
    // Writing an object, the DWARF writer gives the line table its root
    // whatever the DWARF version (DwarfDebug::getOrCreateDwarfCompileUnit),
    // and with it the unit's directory, which then names a file in it
    // without the directory: registered alike, or it would number such a
    // file a second time.
    if (ForObject && Files->Root) {
      const mtpc::DebugFile &R = *Files->Root;
      Ctx.setMCLineTableRootFile(0, R.Directory, R.Name, R.Checksum, sourceOf(R));
    }
    registerFiles(*Files, Ctx, nullptr);
    return false;
  }
  bool runOnModule(Module &) override { return false; }
  StringRef getPassName() const override { return "mtpc: reserve the module's file numbers"; }

private:
  std::shared_ptr<const mtpc::DebugFiles> Files;
  MachineModuleInfoWrapperPass *MMIWP;
  bool ForObject;
};
char ReserveFileNumbers::ID = 0;

} // namespace

std::shared_ptr<const mtpc::DebugFiles> mtpc::collectDebugFiles(const Module &M) {
  auto Files = std::make_shared<DebugFiles>();
  auto Units = M.debug_compile_units();
  if (Units.empty())
    return Files;
  if (auto *Version = mdconst::extract_or_null<ConstantInt>(M.getModuleFlag("Dwarf Version")))
    Files->DwarfVersion = Version->getZExtValue();
  // Assembly output has one line table, whose root is the first unit's file.
  const DICompileUnit *First = *Units.begin();
  Files->Root = fileOf(First->getFile(), Files->DwarfVersion);

  // Every file the DWARF writer can number: every file the module's debug
  // metadata reaches, from its units, its variables' and functions'
  // attachments and its instructions' locations and metadata, in the order
  // they are reached (the same for every partition). A walk of the whole
  // graph, not of what DebugInfoFinder visits: the writer also numbers the
  // files of types that only template parameters, pointers to members or
  // heap allocation sites name. An entity with a line and no file is
  // numbered as the file "<stdin>".
  SetVector<const DIFile *> Found;
  Found.insert(First->getFile());
  bool NamelessFile = false;
  mtpc::walkDebugMetadata(M, [&](const MDNode *N) {
    if (auto *F = dyn_cast<DIFile>(N)) {
      Found.insert(F);
      return false;
    }
    NamelessFile |= hasLineWithoutFile(N);
    return true;
  });
  for (const DIFile *F : Found)
    Files->Files.push_back(fileOf(F, Files->DwarfVersion));
  if (NamelessFile)
    Files->Files.push_back(DebugFile{"", "", std::nullopt, std::nullopt});
  return Files;
}

ModulePass *mtpc::createReserveFileNumbersPass(std::shared_ptr<const DebugFiles> Files,
                                               MachineModuleInfoWrapperPass *MMIWP, bool ForObject) {
  return new ReserveFileNumbers(std::move(Files), MMIWP, ForObject);
}

extern "C" {

// The module's source files (free with mtpc_debug_files_free).
void *mtpc_debug_files_collect(LLVMModuleRef M) {
  return new std::shared_ptr<const mtpc::DebugFiles>(mtpc::collectDebugFiles(*unwrap(M)));
}

void mtpc_debug_files_free(void *Files) { delete static_cast<std::shared_ptr<const mtpc::DebugFiles> *>(Files); }

// The .file directives of the line table every partition numbers its files
// by, as the host's assembly printer writes them (free with free()); null
// if the target has no assembly printer here.
char *mtpc_debug_files_table(void *FilesP, void *SettingsP) {
  const mtpc::DebugFiles &Files = **static_cast<std::shared_ptr<const mtpc::DebugFiles> *>(FilesP);
  auto *H = static_cast<mtpc::HostSettings *>(SettingsP);
  mtpc::HostSettings::MCDescriptions MC = H->describeMC();
  if (!MC)
    return nullptr;
  MCTargetOptions MCOptions = MC.Options;
  MCOptions.AsmVerbose = false; // (from LLVM 19 the streamer reads it here)
  MCOptions.ShowMCInst = false;
  MCContext Ctx(Triple(H->Triple), MC.MAI.get(), MC.MRI.get(), MC.STI.get(), nullptr, &MCOptions);
  std::unique_ptr<MCObjectFileInfo> MOFI(H->TheTarget->createMCObjectFileInfo(Ctx, false));
  Ctx.setObjectFileInfo(MOFI.get());
  // As LLVMTargetMachine::createMCStreamer chooses it.
  bool UseDwarfDirectory = MCOptions.MCUseDwarfDirectory == MCTargetOptions::EnableDwarfDirectory ||
                           (MCOptions.MCUseDwarfDirectory == MCTargetOptions::DefaultDwarfDirectory &&
                            MC.MAI->enableDwarfFileDirectoryDefault());
  std::string Text;
  {
    raw_string_ostream OS(Text);
    std::unique_ptr<MCStreamer> Streamer =
        mtpc::createAsmTextStreamer(Ctx, std::make_unique<formatted_raw_ostream>(OS), UseDwarfDirectory);
    registerFiles(Files, Ctx, Streamer.get());
  }
  return mtpc::copyString(Text);
}

} // extern "C"
