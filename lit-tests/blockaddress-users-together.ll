; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; A function whose block addresses are taken shares its partition with
; every user of those addresses (its label table and @label_of_two), and
; its body is never copied elsewhere: a blockaddress of a declaration is
; not valid IR.
; Fails if: partition_plan.rs groups() stops uniting a blockaddress user with the function (or Rules::copy_function() drops its block_address_taken test).
; P0: @dispatch = internal constant [2 x ptr] [ptr blockaddress(@interp, %one)
; P0: define i32 @interp(
; P0: define ptr @label_of_two(
; P1-NOT: interp
; P2: declare i32 @interp(i32)
; P2-NOT: define available_externally

@dispatch = internal constant [2 x ptr] [ptr blockaddress(@interp, %one), ptr blockaddress(@interp, %two)]
define i32 @interp(i32 %op) {
entry:
  %slot = getelementptr [2 x ptr], ptr @dispatch, i32 0, i32 %op
  %target = load ptr, ptr %slot
  indirectbr ptr %target, [label %one, label %two]
one:
  ret i32 1
two:
  ret i32 2
}
define ptr @label_of_two() {
  ret ptr blockaddress(@interp, %two)
}
define i32 @caller(i32 %x) {
  %r = call i32 @interp(i32 %x)
  %a = add i32 %r, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  ret i32 %d
}
define i32 @other(i32 %x) {
  %a = add i32 %x, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  %e = add i32 %d, 1
  %f = add i32 %e, 1
  %g = add i32 %f, 1
  ret i32 %g
}
