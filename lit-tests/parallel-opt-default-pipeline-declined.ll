; RUN: env MTPC_MIN_SIZE=0 MTPC_LOG=info %opt-mtpc -passes='default<O2>' -S %s -o - 2>%t.err | FileCheck %s
; RUN: FileCheck --check-prefix=INFO %s < %t.err

; Automatic mode in opt declines: opt writes IR, and the partitions' code
; would reach it as module asm. The module is optimized by default<O2> as
; without mtpc, and one info line says why.
; Fails if: decline.rs reason() no longer declines automatic mode in opt.
; CHECK-NOT: module asm
; CHECK: define i32 @first(
; CHECK: define i32 @second(
; INFO: mtpc: info: {{.*}}opt writes LLVM IR, not an object
; INFO-NOT: mtpc: info
target triple = "x86_64-pc-linux-gnu"

define i32 @first(i32 %x) {
  %a = mul i32 %x, %x
  %b = call i32 @second(i32 %a)
  ret i32 %b
}

define i32 @second(i32 %x) {
  %a = add i32 %x, 1
  ret i32 %a
}
