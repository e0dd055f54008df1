; REQUIRES: other-llvm-opt
; RUN: not %other-opt -load-pass-plugin=%mtpc -passes=mtpc-split %s -o /dev/null 2>&1 \
; RUN:   | FileCheck %s -DMAJOR=%llvm-major -DOTHER=%other-major

; Loaded into a host of another LLVM (the opt of another major), the plugin
; declines to load with a message that names both versions and what to do,
; instead of crashing on the host's objects (`not` fails on a crash).
; Fails if: host.rs check_host_llvm() returns Ok without asking foreign_host_llvm().
; CHECK: mtpc: error: libmtpc.so was built for LLVM [[MAJOR]], but opt runs LLVM [[OTHER]] ({{.*}}libLLVM{{.*}}[[OTHER]]{{.*}}); load it into the LLVM [[MAJOR]] tools
; CHECK-NOT: Stack dump

define void @f() {
  ret void
}
