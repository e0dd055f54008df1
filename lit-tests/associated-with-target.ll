; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; A global with !associated stays in the partition of the global it names
; (the linker may drop its section only together with that global); the
; two, data only, go with their first user. Another partition that uses
; the named global declares it, and has no copy of the linked one. (Apart,
; @meta, which no function uses, would go to the lighter partition, P1.)
; Fails if: partition_plan.rs groups() stops uniting a global with the global its !associated names.
; P0: @meta = internal global i32 1, section "meta_sec", !associated
; P0: @payload = global i32 7
; P0: define i32 @read_payload()
; P1-NOT: @meta
; P1: @payload = external global i32
; P1-NOT: @meta

@meta = internal global i32 1, section "meta_sec", !associated !0
@payload = global i32 7
define i32 @read_payload() {
  %v = load i32, ptr @payload
  %a = add i32 %v, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  %e = add i32 %d, 1
  %f = add i32 %e, 1
  %g = add i32 %f, 1
  %h = add i32 %g, 1
  %i = add i32 %h, 1
  ret i32 %i
}
define i32 @other(i32 %x) {
  %p = load i32, ptr @payload
  %a = add i32 %p, %x
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  %e = add i32 %d, 1
  %f = add i32 %e, 1
  ret i32 %f
}
!0 = !{ptr @payload}
