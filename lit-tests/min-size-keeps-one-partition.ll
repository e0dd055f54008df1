; RUN: rm -rf %t && mkdir %t
; RUN: %opt-mtpc -passes='mtpc-split<partitions=4;min-size=1000;out=%t/p>' %s -o /dev/null
; RUN: llvm-dis %t/p.0.bc -o - | FileCheck %s
; RUN: not ls %t/p.1.bc

; A module whose cost (IR instructions) is below min-size stays one
; partition, written whole as PREFIX.0.bc.
; Fails if: options.rs SplitOptions::partitions_for() ignores min_size.
; CHECK: define i32 @a(
; CHECK: define i32 @b(
; CHECK: define i32 @c(

define i32 @a(i32 %x) {
  %r = call i32 @b(i32 %x)
  %s = add i32 %r, 1
  %t = add i32 %s, 1
  ret i32 %t
}
define i32 @b(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
define i32 @c(i32 %x) {
  %y = add i32 %x, 2
  ret i32 %y
}
