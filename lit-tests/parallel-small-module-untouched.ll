; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2>' -S %s -o - | FileCheck %s

; A module below min-size (default 20000 IR instructions) is left to the
; host's normal compilation, unchanged.
; CHECK-NOT: module asm
; CHECK: define i32 @only(
target triple = "x86_64-pc-linux-gnu"

define i32 @only(i32 %x) {
  %a = add i32 %x, 1
  ret i32 %a
}
