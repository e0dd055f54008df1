; REQUIRES: opt-15
; RUN: not opt-15 -load-pass-plugin=%mtpc -passes=mtpc-split %s -o /dev/null 2>&1 | FileCheck %s

; Loaded into a host of another LLVM (opt of LLVM 15), the plugin declines to
; load with a message that names both versions and what to do, instead of
; crashing on the host's objects (`not` fails on a crash).
; Fails if: host.rs check_host_llvm() returns Ok without asking foreign_host_llvm().
; CHECK: mtpc: error: libmtpc.so was built for LLVM 16, but opt-15 runs LLVM 15 ({{.*}}libLLVM-15{{.*}}); load it into the LLVM 16 tools
; CHECK-NOT: Stack dump

define void @f() {
  ret void
}
