; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; linkonce_odr without a COMDAT is a group of its own: small, every
; partition that uses it gets a discardable copy (linkonce_odr, as a
; translation unit of its own would); not to be copied (in a section of
; its own), the owner makes it weak_odr when other partitions use it (so it
; is not discarded), and they copy it available_externally (or declare it
; if it were large).
; Fails if: symbol_rules.rs decide() no longer promotes a linkonce_odr that
; other partitions use and do not copy to weak_odr, or odr_copies.rs stops
; treating a linkonce_odr without a COMDAT as a group of its own.
; P0-DAG: define linkonce_odr i32 @odr_no_comdat(
; P0-DAG: define available_externally i32 @odr_in_section(
; P1-DAG: define linkonce_odr i32 @odr_no_comdat(
; P1-DAG: define weak_odr i32 @odr_in_section(
; P2-NOT: @odr_

@common_var = common global i32 0, align 4
@weak_ref = extern_weak global i32
define linkonce_odr i32 @odr_no_comdat(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
define linkonce_odr i32 @odr_in_section(i32 %x) section ".text.odr" {
  %y = add i32 %x, 5
  ret i32 %y
}
define protected i32 @prot(i32 %x) {
  %y = add i32 %x, 2
  ret i32 %y
}
define hidden i32 @hid(i32 %x) {
  %y = add i32 %x, 3
  ret i32 %y
}
define dso_local i32 @local_def(i32 %x) {
  %y = add i32 %x, 4
  ret i32 %y
}
define i32 @user_a(i32 %x) {
  %z = call i32 @odr_no_comdat(i32 %x)
  %a = call i32 @odr_in_section(i32 %z)
  %b = call i32 @prot(i32 %a)
  %c = call i32 @hid(i32 %b)
  %d = call i32 @local_def(i32 %c)
  %e = load i32, ptr @common_var
  %f = load i32, ptr @weak_ref
  %g = add i32 %d, %e
  %h = add i32 %g, %f
  ret i32 %h
}
define i32 @user_b(i32 %x) {
  %z = call i32 @odr_no_comdat(i32 %x)
  %a = call i32 @odr_in_section(i32 %z)
  %b = call i32 @prot(i32 %a)
  %c = call i32 @hid(i32 %b)
  %d = call i32 @local_def(i32 %c)
  store i32 %d, ptr @common_var
  ret i32 %d
}
