; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;no-merge;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; -fprofile-instr-generate, lowered: each function's counters and data are
; private, in a `nodeduplicate` group of their own, in the sections every
; function's are in. A variable in a COMDAT group has no order in its
; section to keep (the group is a section of its own), and a group of
; variables only goes, whole, with the first function using it: each
; partition defines its functions' counters and data, private as in stock's
; object, and names no other's.
; Fails if: partition_plan.rs groups() unites the variables of one section
; inside COMDAT groups (every counter in one partition, the others'
; functions naming them by promoted names), or place_data_with_first_user
; places a group of variables apart from its first user.
; P0-NOT: .mtpc.
; P0: @__profc_f = private global [1 x i64] zeroinitializer, section "__llvm_prf_cnts", comdat
; P0: @__profd_f = private global
; P0-NOT: @__profc_g
; P0-NOT: @__profd_g
; P0: define i32 @f(
; P0-NOT: .mtpc.
; P1-NOT: .mtpc.
; P1: @__profc_g = private global [1 x i64] zeroinitializer, section "__llvm_prf_cnts", comdat
; P1: @__profd_g = private global
; P1-NOT: @__profc_f
; P1-NOT: @__profd_f
; P1: define i32 @g(
; P1-NOT: .mtpc.

$__profc_f = comdat nodeduplicate
$__profc_g = comdat nodeduplicate

@__profc_f = private global [1 x i64] zeroinitializer, section "__llvm_prf_cnts", comdat, align 8
@__profd_f = private global { ptr, ptr } { ptr @__profc_f, ptr @f }, section "__llvm_prf_data", comdat($__profc_f), align 8
@__profc_g = private global [1 x i64] zeroinitializer, section "__llvm_prf_cnts", comdat, align 8
@__profd_g = private global { ptr, ptr } { ptr @__profc_g, ptr @g }, section "__llvm_prf_data", comdat($__profc_g), align 8
@llvm.compiler.used = appending global [2 x ptr] [ptr @__profd_f, ptr @__profd_g], section "llvm.metadata"

define i32 @f(i32 %x) {
  %c = load i64, ptr @__profc_f, align 8
  %c1 = add i64 %c, 1
  store i64 %c1, ptr @__profc_f, align 8
  %a = mul i32 %x, 3
  %b = add i32 %a, 7
  %d = xor i32 %b, %x
  %e = mul i32 %d, %b
  ret i32 %e
}

define i32 @g(i32 %x) {
  %c = load i64, ptr @__profc_g, align 8
  %c1 = add i64 %c, 1
  store i64 %c1, ptr @__profc_g, align 8
  %a = mul i32 %x, 5
  %b = add i32 %a, 9
  %d = xor i32 %b, %x
  %e = mul i32 %d, %b
  ret i32 %e
}
