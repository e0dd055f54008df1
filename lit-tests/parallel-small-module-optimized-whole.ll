; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2>' -S %s -o - | FileCheck %s

; An explicit mtpc-parallel<O2> stands for default<O2>: a module below
; min-size (default 20000 IR instructions) is not split, but optimized whole
; as default<O2> would (here the add of 0 folds away), and stays IR.
; CHECK-NOT: module asm
; CHECK-LABEL: define i32 @only(
; CHECK-NEXT: ret i32 %x
target triple = "x86_64-pc-linux-gnu"

define i32 @only(i32 %x) {
  %a = add i32 %x, 0
  ret i32 %a
}
