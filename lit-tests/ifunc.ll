; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; An ifunc stays with its resolver in the primary partition; the others
; call a declaration of the ifunc. The resolver and the implementation it
; returns are not promoted: nothing outside the primary refers to them.
; Fails if: partition_plan.rs groups() no longer pins an ifunc and its resolver to the primary.
; P0: @fast_mul = ifunc i32 (i32, i32), ptr @resolve_mul
; P0: define internal i32 @mul_generic(
; P0: define internal ptr @resolve_mul(
; P1-NOT: resolve_mul
; P1: declare i32 @fast_mul(i32, i32)
; P2-NOT: resolve_mul
; P2: declare i32 @fast_mul(i32, i32)

@fast_mul = ifunc i32 (i32, i32), ptr @resolve_mul
define internal i32 @mul_generic(i32 %a, i32 %b) {
  %m = mul i32 %a, %b
  ret i32 %m
}
define internal ptr @resolve_mul() {
  ret ptr @mul_generic
}
define i32 @user_a(i32 %x) {
  %r = call i32 @fast_mul(i32 %x, i32 3)
  %s = add i32 %r, 1
  %t = add i32 %s, 1
  %u = add i32 %t, 1
  %w = add i32 %u, 1
  ret i32 %w
}
define i32 @user_b(i32 %x) {
  %r = call i32 @fast_mul(i32 %x, i32 5)
  ret i32 %r
}
