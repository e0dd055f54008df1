; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; A COMDAT group that is not copied (here: one member is in a section of
; its own, where the linker must find one definition) stays
; whole in one partition. Its linkonce_odr members that other partitions
; use become weak_odr there (the linker keeps one copy; nothing may
; discard it); other partitions get available_externally copies of the
; small ones, outside the group (and declarations of the rest).
; Fails if: partition_plan.rs groups() stops uniting the members of a
; COMDAT group, or odr_copies.rs copies a group with a member in a section.
; P0-NOT: = comdat
; P0: define available_externally i32 @_Z3bigv() section ".text.placed" {
; P0: define available_externally i32 @_Z6helperv() {
; P0: define i32 @user_a() {
; P1-NOT: = comdat
; P1: define available_externally i32 @_Z3bigv() section ".text.placed" {
; P1: define i32 @user_b() {
; P2: $_Z3bigv = comdat any
; P2: define weak_odr i32 @_Z3bigv() section ".text.placed" comdat {
; P2: define weak_odr i32 @_Z6helperv() comdat($_Z3bigv) {

$_Z3bigv = comdat any
define linkonce_odr i32 @_Z3bigv() section ".text.placed" comdat {
  ret i32 7
}
define linkonce_odr i32 @_Z6helperv() comdat($_Z3bigv) {
  ret i32 8
}
define i32 @user_a() {
  %a = call i32 @_Z3bigv()
  %b = call i32 @_Z6helperv()
  %c = add i32 %a, %b
  %d = add i32 %c, 1
  %e = add i32 %d, 1
  ret i32 %e
}
define i32 @user_b() {
  %a = call i32 @_Z3bigv()
  %b = add i32 %a, 2
  %c = add i32 %b, 3
  %d = add i32 %c, 4
  ret i32 %d
}
