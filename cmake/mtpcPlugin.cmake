# Shared by mtpcConfig.cmake and mtpc-toolchain.cmake: which libmtpc.so to
# use, the LLVM major it was built for, and the check that a compiler matches.
#
# The plugin is the one built for the LLVM major asked for with -DMTPC_LLVM=N
# (16, 19 or 22), or else for the enabled C or C++ compiler's, if it is
# clang, or else for LLVM 16: in a source tree target/release/ (LLVM 16,
# `cargo build --release`) or target/llvm-N/release/ (`cargo build-llvmN`);
# in an install, beside lib/cmake/. -DMTPC_PLUGIN=/path/to/libmtpc.so names
# one. The major it was built for is read from the file itself.

if(NOT MTPC_LLVM)
  foreach(lang IN ITEMS C CXX)
    if(CMAKE_${lang}_COMPILER_ID STREQUAL "Clang")
      string(REGEX MATCH "^[0-9]+" MTPC_LLVM "${CMAKE_${lang}_COMPILER_VERSION}")
      break()
    endif()
  endforeach()
endif()
if(NOT MTPC_LLVM)
  set(MTPC_LLVM 16)
endif()

if(NOT MTPC_PLUGIN)
  if(MTPC_LLVM EQUAL 16)
    set(_mtpc_build_dir "${CMAKE_CURRENT_LIST_DIR}/../target/release")
  else()
    set(_mtpc_build_dir "${CMAKE_CURRENT_LIST_DIR}/../target/llvm-${MTPC_LLVM}/release")
  endif()
  find_file(MTPC_PLUGIN libmtpc.so
    PATHS "${_mtpc_build_dir}" "${CMAKE_CURRENT_LIST_DIR}/../.."
    NO_DEFAULT_PATH
    DOC "The mtpc pass plugin, libmtpc.so")
endif()
if(NOT MTPC_PLUGIN OR NOT EXISTS "${MTPC_PLUGIN}")
  if(MTPC_LLVM EQUAL 16)
    set(_mtpc_build "cargo build --release")
  else()
    set(_mtpc_build "cargo build-llvm${MTPC_LLVM}")
  endif()
  message(FATAL_ERROR "mtpc: no libmtpc.so built for LLVM ${MTPC_LLVM} was found near ${CMAKE_CURRENT_LIST_DIR}; "
    "build it with `${_mtpc_build}` in the mtpc repository, or pass -DMTPC_PLUGIN=/path/to/libmtpc.so")
endif()

# The plugin's entry point gives its version as "<version> mtpc-for-llvm-N".
file(STRINGS "${MTPC_PLUGIN}" _mtpc_built_for REGEX "mtpc-for-llvm-[0-9]+" LIMIT_COUNT 1)
if(NOT _mtpc_built_for MATCHES "mtpc-for-llvm-([0-9]+)")
  message(FATAL_ERROR "mtpc: ${MTPC_PLUGIN} does not say which LLVM it was built for: not a build of mtpc 0.1 or later")
endif()
set(MTPC_LLVM_VERSION_MAJOR "${CMAKE_MATCH_1}")

# Stops with a clear message unless every enabled C and C++ compiler is the
# clang of the LLVM major version the plugin was built for.
function(mtpc_check_compilers)
  if(CMAKE_PROJECT_NAME STREQUAL "CMAKE_TRY_COMPILE")
    return() # CMake's own compiler probes, through the toolchain file
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  foreach(lang IN ITEMS C CXX)
    if(NOT lang IN_LIST languages)
      continue()
    endif()
    set(id "${CMAKE_${lang}_COMPILER_ID}")
    string(REGEX MATCH "^[0-9]+" major "${CMAKE_${lang}_COMPILER_VERSION}")
    if(NOT id STREQUAL "Clang" OR NOT major EQUAL MTPC_LLVM_VERSION_MAJOR)
      message(FATAL_ERROR "mtpc: the plugin ${MTPC_PLUGIN} was built for LLVM ${MTPC_LLVM_VERSION_MAJOR}, "
        "but CMAKE_${lang}_COMPILER is ${CMAKE_${lang}_COMPILER} (${id} ${CMAKE_${lang}_COMPILER_VERSION}). "
        "Use clang-${MTPC_LLVM_VERSION_MAJOR} (-DCMAKE_${lang}_COMPILER=clang-${MTPC_LLVM_VERSION_MAJOR}) "
        "or the toolchain file cmake/mtpc-toolchain.cmake.")
    endif()
  endforeach()
endfunction()
