; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null 2>%t.err
; RUN: FileCheck %s --check-prefix=WARN < %t.err
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: sed -e 's/ "split-stack"//' %s > %t.plain.ll
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t.plain>' %t.plain.ll -o /dev/null 2>%t.plain.err
; RUN: FileCheck %s --check-prefix=QUIET --allow-empty < %t.plain.err

; mtpc-split writes the partitions asked for, also of a module that
; mtpc-parallel compiles whole (here: split-stack functions, whose object
; marker is written from every function at once); it says so, with
; mtpc-parallel's reason, so that whoever compiles the parts apart knows
; that together they may not make the whole module's program. A module
; mtpc-parallel splits gets no such warning.
; Fails if: split::write_partitions no longer asks decline for its reason.
; WARN: mtpc: warning: mtpc-split: mtpc-parallel would compile this module whole: it has split-stack functions{{.*}}its 2 partitions are written as asked
; P0: define void @a(
; P0-NOT: define
; P1: define void @b(
; P1-NOT: define
; QUIET-NOT: warning
target triple = "x86_64-pc-linux-gnu"

declare void @sink(i32)

define void @a(i32 %n) noinline nounwind "split-stack" {
  call void @sink(i32 %n)
  call void @sink(i32 1)
  ret void
}

define void @b(i32 %n) noinline nounwind {
  call void @sink(i32 %n)
  call void @sink(i32 2)
  ret void
}
