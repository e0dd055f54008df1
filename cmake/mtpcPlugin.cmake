# Shared by mtpcConfig.cmake and mtpc-toolchain.cmake: where libmtpc.so is,
# which LLVM it was built for, and the check that a compiler matches it.

set(MTPC_LLVM_VERSION_MAJOR 16)

if(NOT MTPC_PLUGIN)
  # A source tree (cmake/ beside target/), or an install (lib/cmake/mtpc/).
  find_file(MTPC_PLUGIN libmtpc.so
    PATHS "${CMAKE_CURRENT_LIST_DIR}/../target/release" "${CMAKE_CURRENT_LIST_DIR}/../.."
    NO_DEFAULT_PATH
    DOC "The mtpc pass plugin, libmtpc.so")
endif()
if(NOT MTPC_PLUGIN OR NOT EXISTS "${MTPC_PLUGIN}")
  message(FATAL_ERROR "mtpc: libmtpc.so was not found near ${CMAKE_CURRENT_LIST_DIR}; "
    "build it with `cargo build --release` in the mtpc repository, or pass -DMTPC_PLUGIN=/path/to/libmtpc.so")
endif()

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
