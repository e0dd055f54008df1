#!/usr/bin/env bash
# Installs what building and testing mtpc needs on Debian 12 (run as root):
# LLVM 16 and LLVM 22 (clang, lld, the development files, FileCheck and
# friends, and the sanitizer, profile and XRay runtimes for the fidelity
# test; LLVM 22 comes from bookworm-security), LLVM 16's OpenMP runtime
# (the fidelity test's OpenMP program; the libomp-N-dev packages of two
# majors conflict, so 22's is not installed and its test is skipped), gdb,
# cmake, make, ninja (the whole-project benchmark), distcc (the distributed-compile test), LLVM 15's opt (the
# test that mtpc refuses a host of another LLVM), valgrind (the race
# detector test), csmith (random C programs for the stress test), lit, and matplotlib (the
# benchmark's chart). Safe to run again.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  clang-16 lld-16 llvm-16-dev llvm-16-tools libclang-rt-16-dev libomp-16-dev \
  clang-22 lld-22 llvm-22-dev llvm-22-tools libclang-rt-22-dev \
  gdb cmake make ninja-build distcc llvm-15 valgrind csmith libcsmith-dev ca-certificates > /dev/null
# distccd runs only compilers listed in /usr/lib/distcc: list clang-16.
update-distcc-symlinks > /dev/null
python3 -m pip install --quiet --disable-pip-version-check 'lit>=16' matplotlib
/usr/lib/llvm-16/bin/llvm-config --version
/usr/lib/llvm-22/bin/llvm-config --version
