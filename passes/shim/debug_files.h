// debug_files.h - one numbering of the module's source files, shared by all
// its partitions (debug_files.cpp).
#pragma once

#include "shim.h"

#include "llvm/Support/MD5.h"

#include <vector>

namespace llvm {
class ModulePass;
class MachineModuleInfoWrapperPass;
} // namespace llvm

namespace mtpc {

// A source file as the DWARF writer registers it in a line table.
struct DebugFile {
  std::string Directory, Name;
  std::optional<llvm::MD5::MD5Result> Checksum;
  std::optional<std::string> Source;
};

// The module's source files, in the order every partition numbers them.
struct DebugFiles {
  uint16_t DwarfVersion = 4;
  // The compile unit's file: the root of a DWARF 5 line table.
  std::optional<DebugFile> Root;
  std::vector<DebugFile> Files;
};

// Collects the files the module's debug information names (empty without
// debug information).
std::shared_ptr<const DebugFiles> collectDebugFiles(const llvm::Module &M);

// A code-generation pass that, before the DWARF writer numbers any file,
// gives Files their numbers in the line table of MMIWP's context. ForObject:
// the code generator writes an object, whose line table names a file in the
// compile unit's directory without it (as the DWARF writer registers it).
llvm::ModulePass *createReserveFileNumbersPass(std::shared_ptr<const DebugFiles> Files,
                                               llvm::MachineModuleInfoWrapperPass *MMIWP, bool ForObject);

} // namespace mtpc
