; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;no-merge;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: not ls %t.2.bc

; C++ inline functions and vtables (linkonce_odr COMDAT groups small enough
; to copy): every partition that uses a member of a group gets a
; discardable copy of the whole group, as a translation unit of its own
; would: @user_b's partition gets @_Z6helperv too, though it does not use
; it. Nothing becomes weak_odr, and no partition holds copies alone (the
; groups go with their first user, so 3 requested partitions are 2).
; Fails if: symbol_rules.rs Rules::partition stops copying every member of
; a copied group (P1 then lacks @_Z6helperv), or odr_copies.rs stops
; finding the groups (the members become weak_odr).
; P0: $_Z3inlv = comdat any
; P0-NOT: _ZTV3Foo
; P0: define linkonce_odr i32 @_Z3inlv() comdat {
; P0: define linkonce_odr i32 @_Z6helperv() comdat($_Z3inlv) {
; P0: define i32 @user_a() {
; P1: $_Z3inlv = comdat any
; P1: $_ZTV3Foo = comdat any
; P1: @_ZTV3Foo = linkonce_odr constant {{.*}} comdat
; P1: define linkonce_odr i32 @_Z3inlv() comdat {
; P1: define linkonce_odr i32 @_Z6helperv() comdat($_Z3inlv) {
; P1: define ptr @user_b() {

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
