; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; Visibility and dso_local are kept as they were, on definitions and copies.
; Fails if: partition_builder.rs apply() step 4 resets an available_externally copy to default visibility, not dso_local.
; P0: define available_externally protected i32 @prot(
; P0: define available_externally hidden i32 @hid(
; P0: define available_externally dso_local i32 @local_def(
; P1: define protected i32 @prot(
; P1: define hidden i32 @hid(
; P1: define available_externally dso_local i32 @local_def(
; P2: define dso_local i32 @local_def(

@common_var = common global i32 0, align 4
@weak_ref = extern_weak global i32
define linkonce_odr i32 @odr_no_comdat(i32 %x) {
  %y = add i32 %x, 1
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
  %a = call i32 @odr_no_comdat(i32 %x)
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
  %a = call i32 @odr_no_comdat(i32 %x)
  %b = call i32 @prot(i32 %a)
  %c = call i32 @hid(i32 %b)
  %d = call i32 @local_def(i32 %c)
  store i32 %d, ptr @common_var
  ret i32 %d
}
