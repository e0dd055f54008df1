; RUN: env MTPC_MIN_SIZE=0 MTPC_LOG=info %opt-mtpc -passes='mtpc-parallel<O2;partitions=2>' -opt-bisect-limit=-1 -S %s -o - 2>%t.err | FileCheck %s
; RUN: FileCheck --check-prefix=INFO %s < %t.err
; RUN: env MTPC_MIN_SIZE=0 MTPC_LOG=info %opt-mtpc -passes='mtpc-parallel<O2;partitions=2>' -debug-pass-manager -S %s -o /dev/null 2>&1 | FileCheck --check-prefix=PM %s

; A pass debugging option follows the host's pipeline, which partitions'
; passes run outside of: even an explicit mtpc-parallel declines to split,
; with one info line, and the module is optimized whole as default<O2>
; would (the add of 0 folds away), every pass seen by the bisector.
; Fails if: decline.rs reason() no longer declines a pass debugging option.
; CHECK-NOT: module asm
; CHECK-LABEL: define i32 @first(
; CHECK-NOT: add i32 %x, 0
; CHECK-LABEL: define i32 @second(
; INFO: mtpc: info: {{.*}}the pass debugging option -opt-bisect-limit is on
; INFO-NOT: mtpc: info
; INFO: BISECT: running pass ({{[0-9]+}}) {{InstCombinePass|instcombine}} on second
; opt's pass manager logging too: the whole module's passes are logged.
; PM: mtpc: info: {{.*}}the pass debugging option -debug-pass-manager is on
; PM: Running pass: InstCombinePass on second
target triple = "x86_64-pc-linux-gnu"

define i32 @first(i32 %x) {
  %a = add i32 %x, 0
  %b = call i32 @second(i32 %a)
  ret i32 %b
}

define i32 @second(i32 %x) {
  %a = mul i32 %x, %x
  ret i32 %a
}
