; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; A COMDAT group stays whole in one partition. Its linkonce_odr members
; that other partitions use become weak_odr there (the linker keeps one
; copy; nothing may discard it); other partitions see copies outside the
; group. A group nobody else uses keeps its linkage.
; Fails if: partition_plan.rs groups() stops uniting the members of a COMDAT group.
; P0-NOT: = comdat
; P0: define available_externally i32 @_Z3inlv() {
; P0: define available_externally i32 @_Z6helperv() {
; P1: $_Z3inlv = comdat any
; P1: define weak_odr i32 @_Z3inlv() comdat {
; P1: define weak_odr i32 @_Z6helperv() comdat($_Z3inlv) {
; P2: @_ZTV3Foo = linkonce_odr constant {{.*}} comdat
; P2: define available_externally i32 @_Z3inlv() {

$_Z3inlv = comdat any
$_ZTV3Foo = comdat any
@_ZTV3Foo = linkonce_odr constant { [1 x ptr] } { [1 x ptr] [ptr @_Z3inlv] }, comdat, align 8
define linkonce_odr i32 @_Z3inlv() comdat {
  ret i32 7
}
define linkonce_odr i32 @_Z6helperv() comdat($_Z3inlv) {
  ret i32 8
}
define i32 @user_a() {
  %a = call i32 @_Z3inlv()
  %b = call i32 @_Z6helperv()
  %c = add i32 %a, %b
  %d = add i32 %c, 1
  %e = add i32 %d, 1
  ret i32 %e
}
define ptr @user_b() {
  %a = call i32 @_Z3inlv()
  ret ptr @_ZTV3Foo
}
