; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' %s -S -o - | FileCheck %s --check-prefix=HOST

; clang 16 gives every C++20 module an empty list of linker options, which
; LLVM 16's code generator writes as an empty section of its own type
; (.linker-options). A part's object holding that section cannot be
; transcribed for the host, and every C++20 module compiled whole, with a
; warning. No partition keeps an empty list; the host's module keeps it,
; and its code generation writes the empty section, as stock's does.
; (A list that names something stays in partition 0:
; object-records-in-partition-zero.ll.)
; Fails if: partition_builder.rs stops erasing an empty
; LINKER_DIRECTIVES_METADATA list from partition 0 (P0), or the shim's
; replaceModuleWithAsm erases the host's (HOST).
; The same for an empty list of dependent libraries, which no clang writes.
; P0: define void @a(
; P0-NOT: !llvm.linker.options
; P0-NOT: !llvm.dependent-libraries
; P1: define void @b(
; P1-NOT: !llvm.linker.options
; P1-NOT: !llvm.dependent-libraries
; HOST: module asm
; HOST-NOT: define
; HOST-DAG: !llvm.linker.options = !{}
; HOST-DAG: !llvm.dependent-libraries = !{}
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

!llvm.linker.options = !{}
!llvm.dependent-libraries = !{}
