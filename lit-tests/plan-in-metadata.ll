; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0>' -S %s -o - | FileCheck %s

; Without out=, the module is left whole and valid, and the plan is
; recorded for later passes: each definition's partition as
; !mtpc.partition, the partition count as !mtpc.partitions.
; Fails if: split.rs annotate() records partition 0 on every definition.
; @b, small, goes with its caller @a (a copy elsewhere would only repeat it).
; CHECK: define i32 @a(i32 %x) !mtpc.partition [[P0:![0-9]+]]
; CHECK: define i32 @b(i32 %x) !mtpc.partition [[P0]]
; CHECK: define i32 @c(i32 %x) !mtpc.partition [[P1:![0-9]+]]
; CHECK: !mtpc.partitions = !{[[N:![0-9]+]]}
; CHECK-DAG: [[P0]] = !{i32 0}
; CHECK-DAG: [[P1]] = !{i32 1}
; CHECK-DAG: [[N]] = !{i32 2}

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
