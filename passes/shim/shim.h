// shim.h - what the files of mtpc's C++ shim share.
//
// The shim holds the LLVM operations that the LLVM-C API lacks:
//   ir_ops.cpp            operations on modules and globals, time trace
//   host_pipeline.cpp     mtpc-parallel in the host's PassBuilder, and the
//                         pipeline each partition runs, built from it
//   partition_compile.cpp the host's code-generation settings; optimizing
//                         and compiling one partition to assembly
//   diagnostics.cpp       a partition's diagnostics, recorded on its thread
//                         and passed on to the host's context
//   assemble.cpp          assembling a text with the MC layer, to check it
//                         or into an object
//   host_object.cpp       the object mtpc writes itself where the host
//                         lets it (clang 22's pre-codegen callback) and
//                         the partitions print text
//   object_frame.cpp      what the host's assembly printer writes around
//                         module asm
//   debug_files.cpp       one numbering of the module's source files for
//                         every partition
//   debug_info.cpp        what of the module's debug information each
//                         partition describes
//   debug_types.cpp       a C++ class described in full by one partition,
//                         declared by the others
//
// Rules (after rustc's llvm-wrapper): every entry point takes and returns
// opaque handles, never throws (LLVM is built without exceptions), reports
// failure through its return value, and does one small thing. The logic that
// decides what to do lives in Rust; the shim only does it. One exception:
// what a function body holds is counted where it is walked
// (mtpc_body_uses), since an LLVM-C call for each instruction and operand
// took longer than the rest of reading a module. What differs between the
// LLVM majors mtpc is built for is named in llvm_compat.h.
#pragma once

#include "llvm_compat.h"

#include "llvm-c/Core.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/PGOOptions.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>


// llvm::Any (how pass instrumentation is handed the IR unit) identifies a
// type by the address of Any::TypeId<T>::Id. The pass-manager code inlined
// into this library must use libLLVM's copies, the ones the instrumentation
// callbacks compiled into libLLVM compare with; a copy of its own would be
// private to libmtpc.so (a Rust cdylib exports only its entry point), and
// every any_cast in those callbacks would fail.
namespace llvm {
class DICompositeType;
class DISubprogram;
class Metadata;
} // namespace llvm

extern template struct llvm::Any::TypeId<const llvm::Module *>;
extern template struct llvm::Any::TypeId<const llvm::Function *>;
extern template struct llvm::Any::TypeId<const llvm::LazyCallGraph::SCC *>;
extern template struct llvm::Any::TypeId<const llvm::Loop *>;

namespace mtpc {

// Reading members that LLVM keeps private and offers no accessor for (the
// PassBuilder's target machine and callback lists, an analysis manager's
// registered analyses). An explicit instantiation of this template is the
// standard-conforming way to name a private member: access checks do not
// apply to explicit instantiation arguments. Each use names one member of one
// LLVM class, so a change in LLVM breaks the build, never the run. Use
// MTPC_EXPOSE_PRIVATE at global scope, with a tag name no other file uses:
//
//   MTPC_EXPOSE_PRIVATE(SomeTag, T, Class, Member);
//   ... Object.*member(mtpc::SomeTag()) ...
template <typename Tag, typename Tag::type Member> struct Expose {
  friend typename Tag::type member(Tag) { return Member; }
};

inline char *copyString(const std::string &S) { return strdup(S.c_str()); }

// How an object mtpc assembles or a partition writes is encoded: as the
// host's settings say (-gz compresses debug sections, --crel writes CREL
// relocations), or for a transcript to read (debug sections whole, RELA).
enum class ObjectFormat { AsHost, ForTranscript };

// Everything a partition must be compiled with, as the host would: its
// target machine's settings and its pipeline options, copied out of the
// host's PassBuilder (see partition_compile.cpp).
struct HostSettings {
  std::string Triple, CPU, Features;
  llvm::TargetOptions Options;
  std::optional<llvm::Reloc::Model> RM;
  std::optional<llvm::CodeModel::Model> CM;
  mtpc::CodeGenOptLevel OL = mtpc::CodeGenOptLevel::Default;
  const llvm::Target *TheTarget = nullptr;
  llvm::PipelineTuningOptions PTO;
  std::optional<llvm::PGOOptions> PGOOpt;
  // The target machine's own PGO setting (clang sets it, codegen reads it).
  std::optional<llvm::PGOOptions> TMPGOOpt;
  // clang's recorded command line, owned here: Options.MCOptions
  // .CommandLineArgs points into it, not into the host's memory (shared,
  // so that the copies of these settings keep pointing to live strings).
  std::shared_ptr<const std::vector<std::string>> CommandLine;
  // The host's target machine these settings were read from (compared, not
  // used: clang 22 hands its target machine to the pre-codegen callback).
  const llvm::TargetMachine *Source = nullptr;
  // A pass debugging option the process was run with (-print-after-all,
  // -opt-bisect-limit, -time-passes, ...), or null: partitions' passes run
  // outside the host's instrumentation, so it would see only part of them.
  const char *DebuggingOption = nullptr;

  // Reads the settings of a host PassBuilder; null if it has no target
  // machine (then mtpc cannot compile).
  static std::unique_ptr<HostSettings> capture(llvm::PassBuilder &PB);
  // A target machine with these settings, or null. With
  // ObjectFormat::ForTranscript its assembler writes debug sections whole
  // whatever the host's -gz and relocations as RELA whatever its --crel: a
  // part's object the host transcribes, and compresses and encodes as it
  // writes its own.
  std::unique_ptr<llvm::TargetMachine> createTargetMachine(ObjectFormat Format = ObjectFormat::AsHost) const;

  // The MC layer's descriptions of the target (for a text of its own,
  // written or read without a target machine).
  struct MCDescriptions {
    llvm::MCTargetOptions Options;
    std::unique_ptr<llvm::MCRegisterInfo> MRI;
    std::unique_ptr<llvm::MCAsmInfo> MAI;
    std::unique_ptr<llvm::MCSubtargetInfo> STI;
    // False if the target lacks one of them in this host.
    explicit operator bool() const { return MRI && MAI && STI; }
  };
  MCDescriptions describeMC() const;
};

// The module a run of mtpc-parallel works on (a mtpc::PassRun*, what the
// mtpc_run_* functions take; host_pipeline.cpp).
llvm::Module &runModule(void *Run);

// What the host's assembly printer writes around M's module asm once mtpc
// has emptied M, printed with the settings H: the text, and where module asm
// goes in it (object_frame.cpp). None, with Why, if it cannot be printed.
struct ObjectFrame {
  std::string Text;
  size_t HeadLength;
  bool operator==(const ObjectFrame &O) const { return Text == O.Text && HeadLength == O.HeadLength; }
};
std::optional<ObjectFrame> printObjectFrame(llvm::Module &M, const HostSettings &H, std::string &Why);

// Walks every debug metadata node M reaches, each once, from its compile
// units, its variables' and functions' attachments, its instructions'
// attachments and debug intrinsics' (or records') operands, in that order
// (the same for every partition): Enter(N) is called for each node, and
// says whether to walk N's operands (debug_info.cpp).
void walkDebugMetadata(const llvm::Module &M, llvm::function_ref<bool(const llvm::MDNode *)> Enter);

// While it lives, each shared C++ class definition of M (debug_types.cpp)
// lists among its elements every member function declaration of it that
// M's code names; M is as it was once it is gone. What the module that
// partitions are built from is written as.
class ClassMemberListing {
public:
  explicit ClassMemberListing(llvm::Module &M);
  ~ClassMemberListing();
  ClassMemberListing(const ClassMemberListing &) = delete;
  ClassMemberListing &operator=(const ClassMemberListing &) = delete;

private:
  // Each operand changed, by class and position, with what it held.
  struct ChangedOperand {
    llvm::DICompositeType *Class;
    unsigned Operand;
    llvm::Metadata *Before;
  };
  std::vector<ChangedOperand> Restore;
};

// The declaration subprogram that describes, where function SP defines is
// a declaration, the calls to it: SP's own declaration (a class member's),
// else one made from SP (debug_info.cpp).
llvm::DISubprogram *declarationOf(llvm::DISubprogram &SP);

// Turns F into a declaration; with full debug information, one that keeps
// the declaration of its subprogram (declarationOf), so that calls to it
// stay described (debug_info.cpp).
void turnIntoDeclaration(llvm::Function &F);

// While it lives, M lists, in a named metadata node and in the order of
// its functions, the declaration subprogram of each function definition
// with full debug information (declarationOf), for the partitions built
// from M's bitcode, whose declarations are read without their subprograms
// (mtpc_describe_declared_functions); M is as it was once it is gone.
class FunctionDeclarationListing {
public:
  explicit FunctionDeclarationListing(llvm::Module &M);
  ~FunctionDeclarationListing();
  FunctionDeclarationListing(const FunctionDeclarationListing &) = delete;
  FunctionDeclarationListing &operator=(const FunctionDeclarationListing &) = delete;

private:
  llvm::NamedMDNode *List = nullptr;
};

// Replaces everything the module defines by Asm, as module-level inline asm
// (ir_ops.cpp).
void replaceModuleWithAsm(llvm::Module &M, llvm::StringRef Asm);

// The named metadata replaceModuleWithAsm leaves in the host's module: the
// module flags, which the host's code generation reads (relocation model,
// CET notes), and an empty list of linker directives (clang 16 and 19 give
// every C++20 module one), which no partition keeps and whose section the
// host's code generation writes, empty, as stock's does (ir_ops.cpp).
bool keptByHost(const llvm::NamedMDNode &N);

// The host's analyses that a partition's analysis managers must have
// instead of the defaults: copied from the host's function analysis manager
// (host_pipeline.cpp).
struct HostAnalyses {
  std::optional<llvm::TargetLibraryAnalysis> LibraryInfo;
  std::optional<llvm::AAManager> AliasAnalysis;
  // The library info as an implementation, for the legacy code generator.
  std::shared_ptr<const llvm::TargetLibraryInfoImpl> LibraryInfoImpl;
};

class RemarkPolicy;        // diagnostics.cpp
class PartitionDiagnostics; // diagnostics.cpp

} // namespace mtpc

// Names the private member Class::Member, of type T, as mtpc::Tag (see
// Expose): `Object.*member(mtpc::Tag())`. At global scope; T without commas.
#define MTPC_EXPOSE_PRIVATE(Tag, T, Class, Member)                                                                     \
  namespace mtpc {                                                                                                     \
  struct Tag {                                                                                                         \
    using type = T Class::*;                                                                                           \
    friend type member(Tag);                                                                                           \
  };                                                                                                                   \
  }                                                                                                                    \
  template struct mtpc::Expose<mtpc::Tag, &Class::Member>
