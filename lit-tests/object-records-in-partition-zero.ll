; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; What the code generator writes into a section of its own once per
; object, from named metadata (the command line of -frecord-command-line,
; the libraries and linker options of #pragma comment), stays in partition
; 0 only, as module asm does: every partition's object listed it again
; (two command lines in a 2-partition object).
; Fails if: partition_builder's ONCE_PER_OBJECT_METADATA is not erased from
; the other partitions.
; P0: define void @a(
; P0-DAG: !llvm.commandline = !{
; P0-DAG: !llvm.dependent-libraries = !{
; P0-DAG: !llvm.linker.options = !{
; P1: define void @b(
; P1-NOT: !llvm.commandline
; P1-NOT: !llvm.dependent-libraries
; P1-NOT: !llvm.linker.options
target triple = "x86_64-pc-linux-gnu"

declare void @sink(i32)

define void @a(i32 %n) noinline nounwind {
  call void @sink(i32 %n)
  call void @sink(i32 1)
  ret void
}

define void @b(i32 %n) noinline nounwind {
  call void @sink(i32 %n)
  call void @sink(i32 2)
  ret void
}

!llvm.commandline = !{!0}
!llvm.dependent-libraries = !{!1}
!llvm.linker.options = !{!2}
!0 = !{!"clang -O2 -frecord-command-line -c x.c"}
!1 = !{!"m"}
!2 = !{!"-lpthread"}
