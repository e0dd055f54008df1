; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o %t.0.ll
; RUN: llvm-dis %t.1.bc -o %t.1.ll
; RUN: cat %t.0.ll %t.1.ll | FileCheck %s
; RUN: not grep linkonce_odr %t.0.ll %t.1.ll

; A local function that an alias names is never a discardable copy, even
; when it is small and several partitions call it: a partition whose copy
; turned into a declaration after optimization (another one emits it)
; would leave the alias aliasing a declaration. It is promoted to one
; external definition, with its alias; the other partition has an
; available_externally copy to inline, as for any small external function.
; Fails if: odr_copies.rs OdrGroups::find no longer pins the targets of
; aliases outside their group.
; CHECK-DAG: @api = alias i32 (i32), ptr @impl.mtpc.[[HASH:[0-9a-f]+]]
; CHECK-DAG: define hidden i32 @impl.mtpc.[[HASH]](
; CHECK-DAG: define available_externally hidden i32 @impl.mtpc.[[HASH]](

@api = alias i32 (i32), ptr @impl

define internal i32 @impl(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
define i32 @user_a(i32 %x) {
  %r = call i32 @impl(i32 %x)
  ret i32 %r
}
define i32 @user_b(i32 %x) {
  %r = call i32 @impl(i32 %x)
  %s = add i32 %r, 1
  ret i32 %s
}
