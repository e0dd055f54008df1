# mtpc's CMake package.
#
#   find_package(mtpc CONFIG REQUIRED)      # -Dmtpc_DIR=<mtpc>/cmake
#   target_link_libraries(big_target PRIVATE mtpc::clang)
#
# Gives:
#   MTPC_PLUGIN              the path of libmtpc.so
#   MTPC_LLVM_VERSION_MAJOR  the LLVM major version it was built for
#   mtpc::clang              INTERFACE target: -fpass-plugin=<plugin> on C and
#                            C++ compiles (mtpc then splits large modules)
#   mtpc::lld                INTERFACE target: -fuse-ld=lld and
#                            --load-pass-plugin=<plugin> on links (ThinLTO
#                            backends and full LTO)
# Refuses, with a message, C or C++ compilers that are not that clang.

include("${CMAKE_CURRENT_LIST_DIR}/mtpcPlugin.cmake")
mtpc_check_compilers()

if(NOT TARGET mtpc::clang)
  add_library(mtpc::clang INTERFACE IMPORTED)
  set_target_properties(mtpc::clang PROPERTIES
    INTERFACE_COMPILE_OPTIONS "$<$<COMPILE_LANGUAGE:C,CXX>:-fpass-plugin=${MTPC_PLUGIN}>")
endif()
if(NOT TARGET mtpc::lld)
  add_library(mtpc::lld INTERFACE IMPORTED)
  set_target_properties(mtpc::lld PROPERTIES
    INTERFACE_LINK_OPTIONS "-fuse-ld=lld;LINKER:--load-pass-plugin=${MTPC_PLUGIN}")
endif()
set(mtpc_FOUND TRUE)
