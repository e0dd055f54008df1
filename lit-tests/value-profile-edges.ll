; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; Value-profile metadata (!prof "VP") resolves an indirect call to the
; functions whose MD5 name hash it records: @hot_target, reachable only
; through that profile, is placed with its caller.
; P0: define i32 @elsewhere(
; P1: define i32 @hot_target(
; P1: define i32 @caller(

define i32 @hot_target(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
define i32 @caller(ptr %fp, i32 %x) {
  %r = call i32 %fp(i32 %x), !prof !0
  %a = add i32 %r, 1
  %b = add i32 %a, 1
  ret i32 %b
}
define i32 @elsewhere(i32 %x) {
  %a = add i32 %x, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  ret i32 %d
}
; 867864718532769752 is MD5("hot_target"), low 64 bits.
!0 = !{!"VP", i32 0, i64 100, i64 867864718532769752, i64 90}
