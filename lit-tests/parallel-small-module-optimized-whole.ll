; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2>' -S %s -o - | FileCheck %s
; The same module is split when min-size allows it: only min-size keeps it whole.
; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S %s -o - | FileCheck --check-prefix=SPLIT --implicit-check-not=define %s

; An explicit mtpc-parallel<O2> stands for default<O2>: a module below
; min-size (default 20000 IR instructions) is not split, but optimized whole
; as default<O2> would (here the add of 0 folds away), and stays IR.
; Fails if: parallel.rs run() gives the split min_size 0 instead of opts.min_size.
; CHECK-NOT: module asm
; CHECK-LABEL: define i32 @only(
; CHECK-NEXT: ret i32 %x
; CHECK-LABEL: define i32 @other(
; SPLIT-DAG: module asm "only:"
; SPLIT-DAG: module asm "other:"
target triple = "x86_64-pc-linux-gnu"

define i32 @only(i32 %x) {
  %a = add i32 %x, 0
  ret i32 %a
}

define i32 @other(i32 %x) {
  %a = mul i32 %x, %x
  %b = add i32 %a, 7
  %c = xor i32 %b, 3
  ret i32 %c
}
