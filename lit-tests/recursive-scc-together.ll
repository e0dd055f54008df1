; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;no-merge;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; Mutually recursive functions (a call-graph SCC) share a partition.
; Fails if: partition_plan.rs groups() stops uniting the members of a recursive SCC.
; P0: define i32 @rec_a(
; P0: define i32 @rec_b(
; P0: define i32 @rec_c(
; P1-NOT: define i32 @rec_
; P2-NOT: define i32 @rec_

define i32 @rec_a(i32 %n) {
  %c = icmp eq i32 %n, 0
  br i1 %c, label %done, label %more
more:
  %m = sub i32 %n, 1
  %r = call i32 @rec_b(i32 %m)
  ret i32 %r
done:
  ret i32 0
}
define i32 @rec_b(i32 %n) {
  %r = call i32 @rec_c(i32 %n)
  %s = add i32 %r, 1
  ret i32 %s
}
define i32 @rec_c(i32 %n) {
  %r = call i32 @rec_a(i32 %n)
  %s = add i32 %r, 2
  ret i32 %s
}
define i32 @entry_one(i32 %n) {
  %r = call i32 @rec_a(i32 %n)
  ret i32 %r
}
define i32 @entry_two(i32 %n) {
  %r = call i32 @rec_b(i32 %n)
  ret i32 %r
}
