// asm_check.cpp - assembles a text with LLVM's MC layer, as the host's code
// generation will assemble the merged text, into nothing: mtpc checks a text
// this way before it hands it to the host, since a text the host cannot
// assemble fails the compile with no way back. See shim.h for the rules.
#include "shim.h"

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

extern "C" {

// Assembles Text (Len bytes) for the host's target, with its code-generation
// settings, into an object that is thrown away. Returns true if that gives
// neither an error nor a warning (the host would print a warning, and fail a
// -Werror build); else false with what the assembler said in *Message (free
// with free()).
bool mtpc_check_asm(void *SettingsP, const char *Text, size_t Len, char **Message) {
  auto *H = static_cast<mtpc::HostSettings *>(SettingsP);
  const Target &T = *H->TheTarget;
  Triple TT(H->Triple);
  mtpc::HostSettings::MCDescriptions MC = H->describeMC();
  MCTargetOptions &MCOptions = MC.Options;
  std::unique_ptr<MCInstrInfo> MII(T.createMCInstrInfo());
  if (!MC || !MII || !T.hasMCAsmParser()) {
    *Message = mtpc::copyString("the target " + H->Triple + " has no assembler in this host");
    return false;
  }
  SourceMgr Sources;
  // A copy: the assembler's lexer reads up to a NUL after the text (the
  // host's module asm is a std::string, which has one; Text need not).
  Sources.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(StringRef(Text, Len), "<inline asm>"), SMLoc());
  // What the assembler says, one line: "line L:C: error: ...; ...".
  std::string Said;
  raw_string_ostream OS(Said);
  unsigned Problems = 0;
  auto Report = [&](const SMDiagnostic &D) {
    bool Error = D.getKind() == SourceMgr::DK_Error;
    if (!Error && D.getKind() != SourceMgr::DK_Warning)
      return;
    if (++Problems > 3)
      return;
    if (Problems > 1)
      OS << "; ";
    if (D.getLineNo() > 0)
      OS << "line " << D.getLineNo() << ":" << D.getColumnNo() + 1 << ": ";
    OS << (Error ? "error: " : "warning: ") << D.getMessage();
  };
  Sources.setDiagHandler([](const SMDiagnostic &D, void *Ctx) { (*static_cast<decltype(Report) *>(Ctx))(D); },
                         &Report);

  MCContext Ctx(TT, MC.MAI.get(), MC.MRI.get(), MC.STI.get(), &Sources, &MCOptions);
  Ctx.setDiagnosticHandler([&](const SMDiagnostic &D, bool, const SourceMgr &, std::vector<const MDNode *> &) {
    Report(D);
  });
  std::unique_ptr<MCObjectFileInfo> MOFI(
      T.createMCObjectFileInfo(Ctx, H->RM.value_or(Reloc::Static) == Reloc::PIC_, /*LargeCodeModel=*/false));
  Ctx.setObjectFileInfo(MOFI.get());

  raw_null_ostream Discard;
  std::unique_ptr<MCCodeEmitter> Emitter(T.createMCCodeEmitter(*MII, Ctx));
  std::unique_ptr<MCAsmBackend> Backend(T.createMCAsmBackend(*MC.STI, *MC.MRI, MCOptions));
  if (!Emitter || !Backend) {
    *Message = mtpc::copyString("the target " + H->Triple + " cannot write objects in this host");
    return false;
  }
  std::unique_ptr<MCObjectWriter> Writer = Backend->createObjectWriter(Discard);
  std::unique_ptr<MCStreamer> Streamer(
      mtpc::createObjectStreamer(T, TT, Ctx, std::move(Backend), std::move(Writer), std::move(Emitter), *MC.STI, MCOptions));
  std::unique_ptr<MCAsmParser> Parser(createMCAsmParser(Sources, Ctx, *Streamer, *MC.MAI));
  std::unique_ptr<MCTargetAsmParser> TargetParser(T.createMCAsmParser(*MC.STI, *Parser, *MII, MCOptions));
  Parser->setTargetParser(*TargetParser);
  // Finished (laid out and written) only if it parsed cleanly: the layout of
  // a text with errors (a label defined twice) can end in a fatal error,
  // which would end the host.
  bool Parsed = !Parser->Run(/*NoInitialTextSection=*/false, /*NoFinalize=*/true) && !Problems && !Ctx.hadError();
  if (Parsed) {
    if (MCTargetStreamer *TS = Streamer->getTargetStreamer())
      TS->emitConstantPools();
    Streamer->finish();
  }
  if (!Parsed || Problems || Ctx.hadError()) {
    if (Problems > 3)
      OS << "; and " << (Problems - 3) << " more";
    *Message = mtpc::copyString(OS.str().empty() ? std::string("the assembler failed") : OS.str());
    return false;
  }
  return true;
}

} // extern "C"
