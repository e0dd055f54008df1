; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S %s -o - | FileCheck %s

; mtpc-parallel compiles every partition and hands the host one module whose
; only content is the merged assembly (module asm): no IR definitions are
; left, each function is defined once in the text, and private labels carry
; a per-partition prefix.
; CHECK-NOT: define
; CHECK: module asm "{{.*}}first:"
; CHECK-NOT: define
; CHECK: module asm "{{.*}}.Lmtpc{{[01]}}.
; CHECK-NOT: define

target triple = "x86_64-pc-linux-gnu"

define i32 @first(i32 %x) {
  %a = mul i32 %x, %x
  %b = add i32 %a, 7
  %c = xor i32 %b, 3
  %d = mul i32 %c, %x
  ret i32 %d
}

define i32 @second(i32 %x) {
  %a = add i32 %x, 1
  %b = shl i32 %a, 2
  ret i32 %b
}
