# Run after project() by mtpc-toolchain.cmake (CMAKE_PROJECT_INCLUDE).
include("${CMAKE_CURRENT_LIST_DIR}/mtpcPlugin.cmake")
mtpc_check_compilers()
