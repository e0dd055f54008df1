// assemble.cpp - assembles a text with LLVM's MC layer for the host's target,
// with the MC settings of a target machine made from the host's settings (as
// the host's code generation assembles module-level asm): into nothing, to
// check a text before mtpc hands it to the host (a text the host cannot
// assemble fails the compile with no way back), or into the object mtpc
// writes itself where the host lets it (clang 22, from the merged text of
// partitions that print assembly: host_object.cpp). See
// shim.h for the rules.
#include "shim.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

// Assembles the concatenation of Pieces into Out. Returns true if that gives
// neither an error nor a warning (the host would print a warning, and fail a
// -Werror build); else false, with what the assembler said in Said. The
// object is finished (laid out and written) only if the text parsed
// cleanly: the layout of a text with errors (a label defined twice) can end
// in a fatal error, which would end the host.
bool assemble(const mtpc::HostSettings &H, ArrayRef<StringRef> Pieces, mtpc::ObjectFormat Format, raw_pwrite_stream &Out,
              std::string &Said) {
  raw_string_ostream Say(Said);
  // The MC layer as the host's target machine sets it up (its options:
  // compressed debug sections unless Format says otherwise, exception
  // model, ...).
  std::unique_ptr<TargetMachine> TM = H.createTargetMachine(Format);
  const Target &T = *H.TheTarget;
  if (!TM || !TM->getMCAsmInfo() || !TM->getMCRegisterInfo() || !TM->getMCSubtargetInfo() ||
      !TM->getMCInstrInfo() || !T.hasMCAsmParser()) {
    Say << "the target " << H.Triple << " has no assembler in this host";
    return false;
  }
  const MCTargetOptions &MCOptions = TM->Options.MCOptions;
  const MCSubtargetInfo &STI = *TM->getMCSubtargetInfo();
  size_t Size = 0;
  for (StringRef P : Pieces)
    Size += P.size();
  // One buffer, NUL-terminated (the assembler's lexer reads up to a NUL).
  std::unique_ptr<WritableMemoryBuffer> Text = WritableMemoryBuffer::getNewUninitMemBuffer(Size, "<inline asm>");
  char *At = Text->getBufferStart();
  for (StringRef P : Pieces)
    At = std::copy(P.begin(), P.end(), At);
  SourceMgr Sources;
  Sources.AddNewSourceBuffer(std::move(Text), SMLoc());
  // What the assembler says, one line: "line L:C: error: ...; ...".
  unsigned Problems = 0;
  auto Report = [&](const SMDiagnostic &D) {
    bool Error = D.getKind() == SourceMgr::DK_Error;
    if (!Error && D.getKind() != SourceMgr::DK_Warning)
      return;
    if (++Problems > 3)
      return;
    if (Problems > 1)
      Say << "; ";
    if (D.getLineNo() > 0)
      Say << "line " << D.getLineNo() << ":" << D.getColumnNo() + 1 << ": ";
    Say << (Error ? "error: " : "warning: ") << D.getMessage();
  };
  Sources.setDiagHandler([](const SMDiagnostic &D, void *Ctx) { (*static_cast<decltype(Report) *>(Ctx))(D); },
                         &Report);

  Triple TT(H.Triple);
  MCContext Ctx(TT, TM->getMCAsmInfo(), TM->getMCRegisterInfo(), &STI, &Sources, &MCOptions);
  Ctx.setDiagnosticHandler([&](const SMDiagnostic &D, bool, const SourceMgr &, std::vector<const MDNode *> &) {
    Report(D);
  });
  // As the target machine's object file lowering initializes it.
  std::unique_ptr<MCObjectFileInfo> MOFI(
      T.createMCObjectFileInfo(Ctx, TM->isPositionIndependent(), TM->getCodeModel() == CodeModel::Large));
  Ctx.setObjectFileInfo(MOFI.get());

  std::unique_ptr<MCCodeEmitter> Emitter(T.createMCCodeEmitter(*TM->getMCInstrInfo(), Ctx));
  std::unique_ptr<MCAsmBackend> Backend(T.createMCAsmBackend(STI, *TM->getMCRegisterInfo(), MCOptions));
  if (!Emitter || !Backend) {
    Say << "the target " << H.Triple << " cannot write objects in this host";
    return false;
  }
  std::unique_ptr<MCObjectWriter> Writer = Backend->createObjectWriter(Out);
  std::unique_ptr<MCStreamer> Streamer(
      mtpc::createObjectStreamer(T, TT, Ctx, std::move(Backend), std::move(Writer), std::move(Emitter), STI, MCOptions));
  std::unique_ptr<MCAsmParser> Parser(createMCAsmParser(Sources, Ctx, *Streamer, *TM->getMCAsmInfo()));
  std::unique_ptr<MCTargetAsmParser> TargetParser(T.createMCAsmParser(STI, *Parser, *TM->getMCInstrInfo(), MCOptions));
  Parser->setTargetParser(*TargetParser);
  bool Parsed = !Parser->Run(/*NoInitialTextSection=*/false, /*NoFinalize=*/true) && !Problems && !Ctx.hadError();
  if (Parsed) {
    if (MCTargetStreamer *TS = Streamer->getTargetStreamer())
      TS->emitConstantPools();
    Streamer->finish();
  }
  if (!Parsed || Problems || Ctx.hadError()) {
    if (Problems > 3)
      Say << "; and " << (Problems - 3) << " more";
    if (Said.empty())
      Say << "the assembler failed";
    return false;
  }
  return true;
}

} // namespace

extern "C" {

// A piece of a text (mirrored in Rust, host_pipeline.rs).
struct MtpcTextPiece {
  const char *Data;
  size_t Len;
};

// Assembles Text (Len bytes) for the host's target, with its code-generation
// settings, into an object that is thrown away. Returns true if that gives
// neither an error nor a warning; else false with what the assembler said in
// *Message (free with free()).
bool mtpc_check_asm(void *SettingsP, const char *Text, size_t Len, char **Message) {
  std::string Said;
  raw_null_ostream Discard;
  // Compressing debug sections (-gz) or encoding relocations as CREL writes
  // what is thrown away, and says nothing: ForTranscript does neither.
  if (assemble(*static_cast<mtpc::HostSettings *>(SettingsP), {StringRef(Text, Len)}, mtpc::ObjectFormat::ForTranscript,
               Discard, Said))
    return true;
  *Message = mtpc::copyString(Said);
  return false;
}

// Assembles the text made of Count pieces as mtpc_check_asm does, into an
// object kept in memory: a buffer handle in *Object (free with
// mtpc_buffer_dispose, or hand it to mtpc_run_offer_object), its bytes in
// *Data, *Len. With ForTranscript, it is encoded for a transcript to read
// (mtpc::ObjectFormat). On failure returns false with *Message
// (free with free()).
bool mtpc_assemble_object(void *SettingsP, const MtpcTextPiece *Pieces, size_t Count, bool ForTranscript,
                          void **Object, const char **Data, size_t *Len, char **Message) {
  SmallVector<StringRef, 4> Text;
  for (size_t I = 0; I < Count; ++I)
    Text.push_back(StringRef(Pieces[I].Data, Pieces[I].Len));
  auto Bytes = std::make_unique<SmallVector<char, 0>>();
  std::string Said;
  {
    raw_svector_ostream Out(*Bytes);
    auto Format = ForTranscript ? mtpc::ObjectFormat::ForTranscript : mtpc::ObjectFormat::AsHost;
    if (!assemble(*static_cast<mtpc::HostSettings *>(SettingsP), Text, Format, Out, Said)) {
      *Message = mtpc::copyString(Said);
      return false;
    }
  }
  *Data = Bytes->data();
  *Len = Bytes->size();
  *Object = Bytes.release();
  return true;
}

} // extern "C"
