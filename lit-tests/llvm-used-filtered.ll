; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;no-merge;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; llvm.used and llvm.compiler.used are kept in every partition that
; defines one of their members, listing only those members.
; Fails if: partition_builder.rs apply() step 3's filter keeps no member (llvm.used and llvm.compiler.used dropped everywhere).
; P0: @llvm.used = appending global [1 x ptr] [ptr @keep_a]
; P0-NOT: llvm.compiler.used
; P1: @llvm.used = appending global [1 x ptr] [ptr @keep_b]
; P2-NOT: @llvm.used
; P2: @llvm.compiler.used = appending global [1 x ptr] [ptr @keep_var]

@llvm.used = appending global [2 x ptr] [ptr @keep_a, ptr @keep_b], section "llvm.metadata"
@llvm.compiler.used = appending global [1 x ptr] [ptr @keep_var], section "llvm.metadata"
@keep_var = internal global i32 3
define internal void @keep_a() {
  %a = add i32 1, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  %e = add i32 %d, 1
  ret void
}
define internal void @keep_b() {
  %a = add i32 1, 1
  %b = add i32 %a, 1
  ret void
}
