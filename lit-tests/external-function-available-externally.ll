; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;no-merge;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; An external function is defined only in its owner partition; partitions
; that call it get its body as available_externally so they can inline it.
; Fails if: symbol_rules.rs COPY_LIMITS.function lowered from 80 to 0 (no body copied).
; P0: define i32 @caller_a(
; P0: define available_externally i32 @leaf(
; (`no-merge` keeps a partition per function: the two lighter would merge.)
; P1-NOT: @caller
; P1: define i32 @leaf(
; P2: define i32 @caller_b(
; P2: define available_externally i32 @leaf(

define i32 @caller_a(i32 %x) {
  %r = call i32 @leaf(i32 %x)
  %s = add i32 %r, 1
  %t = mul i32 %s, %r
  %u = xor i32 %t, 7
  ret i32 %u
}
define i32 @caller_b(i32 %x) {
  %r = call i32 @leaf(i32 %x)
  ret i32 %r
}
define i32 @leaf(i32 %x) {
  %y = mul i32 %x, 3
  ret i32 %y
}
