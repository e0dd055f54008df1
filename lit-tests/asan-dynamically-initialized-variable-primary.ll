; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0-NO-USER
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; A variable clang asks ASan to treat as dynamically initialized (a C++
; global with a constructor) is defined with the module's constructors, in
; the primary partition, even where its first user is another partition's:
; each partition's ASan names the module by a string of its own, and ASan's
; run time would count the variable as another module's while the
; constructors initialize it. Other data still goes with its first user.
; Fails if: partition_plan.rs groups() no longer pins the variables
; ModuleFacts marks asan_dynamic_init to the primary.
; P0: @table = global [64 x i32] zeroinitializer, sanitize_address_dyninit
; P0-NOT: @plain
; P0: define internal void @_GLOBAL__sub_I_t.cpp(
; P0-NOT: @plain
; P0-NO-USER-NOT: @user(
; P1: @table = external global [64 x i32]
; P1: @plain = global [64 x i32] zeroinitializer
; P1: define i32 @user(
; P1-NOT: @_GLOBAL__sub_I_t.cpp

@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @_GLOBAL__sub_I_t.cpp, ptr null }]
@table = global [64 x i32] zeroinitializer, sanitize_address_dyninit
@plain = global [64 x i32] zeroinitializer

define i32 @user(i32 %i) {
  %p = getelementptr [64 x i32], ptr @table, i32 0, i32 %i
  %v = load i32, ptr %p
  %q = getelementptr [64 x i32], ptr @plain, i32 0, i32 %i
  %w = load i32, ptr %q
  %a = add i32 %v, %w
  %b = mul i32 %a, %a
  %c = add i32 %b, 1
  %d = mul i32 %c, %c
  %e = add i32 %d, 1
  %f = mul i32 %e, %e
  ret i32 %f
}
define internal void @_GLOBAL__sub_I_t.cpp() {
  store i32 7, ptr @table
  ret void
}
define i32 @other(i32 %x) {
  %a = add i32 %x, 1
  %b = mul i32 %a, %a
  %c = add i32 %b, 1
  %d = mul i32 %c, %c
  %e = add i32 %d, 1
  ret i32 %e
}
