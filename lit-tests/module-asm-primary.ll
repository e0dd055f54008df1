; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; Module-level inline asm goes to the primary partition only. A local
; symbol the asm text names keeps its name and linkage, and its users stay
; with it, since it cannot be renamed.
; Fails if: partition_builder.rs apply() step 3 keeps module asm in every partition.
; P0: module asm "asm_entry: jmp asm_helper"
; P0: define internal i32 @asm_helper(
; P0: define i32 @uses_helper(
; P1-NOT: module asm
; P1-NOT: asm_helper

module asm ".globl asm_entry"
module asm "asm_entry: jmp asm_helper"
define internal i32 @asm_helper(i32 %x) {
  %y = mul i32 %x, 3
  ret i32 %y
}
define i32 @uses_helper(i32 %x) {
  %r = call i32 @asm_helper(i32 %x)
  ret i32 %r
}
define i32 @big_other(i32 %x) {
  %a = add i32 %x, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  %e = add i32 %d, 1
  %f = add i32 %e, 1
  %g = add i32 %f, 1
  ret i32 %g
}
