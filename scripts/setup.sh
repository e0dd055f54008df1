#!/usr/bin/env bash
# Installs what building and testing mtpc needs on Debian 12 (run as root):
# LLVM 16 (clang, lld, the development files, FileCheck and friends), gdb,
# and lit. Safe to run again.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  clang-16 lld-16 llvm-16-dev llvm-16-tools \
  gdb cmake make ca-certificates > /dev/null
python3 -m pip install --quiet --disable-pip-version-check 'lit>=16'
/usr/lib/llvm-16/bin/llvm-config --version
