# Turns mtpc on for a whole project:
#   cmake -DCMAKE_TOOLCHAIN_FILE=<mtpc>/cmake/mtpc-toolchain.cmake ...
#   cmake -DCMAKE_TOOLCHAIN_FILE=<mtpc>/cmake/mtpc-toolchain.cmake -DMTPC_LLVM=22 ...
# Compiles with clang-N/clang++-N of the LLVM major MTPC_LLVM names (16 by
# default; unless the compilers are set already) and -fpass-plugin=<the
# libmtpc.so built for it>; after project(), checks that the compilers are
# the clang the plugin was built for.

include("${CMAKE_CURRENT_LIST_DIR}/mtpcPlugin.cmake")

if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER "clang-${MTPC_LLVM_VERSION_MAJOR}")
endif()
if(NOT CMAKE_CXX_COMPILER)
  set(CMAKE_CXX_COMPILER "clang++-${MTPC_LLVM_VERSION_MAJOR}")
endif()
string(APPEND CMAKE_C_FLAGS_INIT " -fpass-plugin=${MTPC_PLUGIN}")
string(APPEND CMAKE_CXX_FLAGS_INIT " -fpass-plugin=${MTPC_PLUGIN}")
set(CMAKE_PROJECT_INCLUDE "${CMAKE_CURRENT_LIST_DIR}/mtpcCheckCompilers.cmake")
