; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; llvm.global_ctors and llvm.global_dtors belong to the primary partition,
; with the functions they list; the other partitions have neither.
; Fails if: partition_plan.rs groups() no longer pins the functions llvm.global_ctors/dtors list to the primary.
; P0: @llvm.global_ctors = appending global {{.*}} @init
; P0: @llvm.global_dtors = appending global {{.*}} @fini
; P0: define internal void @init(
; P0: define internal void @fini(
; P1-NOT: llvm.global_
; P1-NOT: @init
; P2-NOT: llvm.global_
; P2-NOT: @init

@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @init, ptr null }]
@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @fini, ptr null }]
@ready = internal global i32 0
define internal void @init() {
  store i32 1, ptr @ready
  ret void
}
define internal void @fini() {
  store i32 0, ptr @ready
  ret void
}
define i32 @work_a(i32 %x) {
  %a = add i32 %x, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  %e = add i32 %d, 1
  ret i32 %e
}
define i32 @work_b(i32 %x) {
  %a = add i32 %x, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  ret i32 %d
}
