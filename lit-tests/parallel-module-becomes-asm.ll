; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S %s -o %t.ll
; RUN: FileCheck %s --implicit-check-not=define < %t.ll
; Each function's label exactly once in the whole text:
; RUN: grep -c '^module asm "first:"$' %t.ll | FileCheck --check-prefix=ONCE %s
; RUN: grep -c '^module asm "second:"$' %t.ll | FileCheck --check-prefix=ONCE %s

; mtpc-parallel compiles every partition and hands the host one module whose
; only content is the merged assembly (module asm): no IR definitions are
; left, each function is defined once in the text (@second also has an
; available_externally copy in @first's partition, which is not emitted),
; and private labels carry a per-partition prefix.
; Fails if: parallel.rs run() hands only partition 0's text to the merge (or partition_builder.rs leaves a copy's linkage, so the copy is emitted too).
; CHECK-DAG: module asm "first:"
; CHECK-DAG: module asm "second:"
; CHECK-DAG: module asm "{{.*}}.Lmtpc0.
; CHECK-DAG: module asm "{{.*}}.Lmtpc1.
; ONCE: {{^}}1{{$}}

target triple = "x86_64-pc-linux-gnu"

define i32 @first(i32 %x) {
  %a = mul i32 %x, %x
  %b = add i32 %a, 7
  %c = xor i32 %b, 3
  %d = mul i32 %c, %x
  %e = call i32 @second(i32 %d)
  ret i32 %e
}

define i32 @second(i32 %x) {
  %a = add i32 %x, 1
  %b = shl i32 %a, 2
  ret i32 %b
}
