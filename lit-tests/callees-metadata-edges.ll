; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; An indirect call resolved by !callees metadata is a call-graph edge: its
; targets stay in the caller's partition (here each a copy, so that
; indirect-call promotion can inline it) even though no instruction names
; them. An indirect call without metadata ties nothing: no edge to every
; address-taken function (the AMDGPU cartesian product).
; Fails if: module_facts.rs RefWalker::walk_indirect_call() ignores the targets !callees lists, or the shim's mtpc_body_uses (ir_ops.cpp) leaves out indirect calls.
; P0-NOT: unrelated
; P0: define linkonce_odr hidden i32 @target_one.mtpc.{{[0-9a-f]+}}(i32
; P0: define linkonce_odr hidden i32 @target_two.mtpc.{{[0-9a-f]+}}(i32
; P0-NOT: unrelated
; P0: define i32 @dispatch(
; P2-NOT: target_
; P2: define i32 @other_indirect(
; P2-NOT: target_

define internal i32 @target_one(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
define internal i32 @target_two(i32 %x) {
  %y = add i32 %x, 2
  ret i32 %y
}
define internal i32 @unrelated(i32 %x) {
  %y = add i32 %x, 3
  ret i32 %y
}
@table = constant [3 x ptr] [ptr @target_one, ptr @target_two, ptr @unrelated]
define i32 @dispatch(ptr %fp, i32 %x) {
  %r = call i32 %fp(i32 %x), !callees !0
  %a = add i32 %r, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  ret i32 %d
}
define i32 @other_indirect(ptr %fp, i32 %x) {
  %r = call i32 %fp(i32 %x)
  %a = add i32 %r, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  ret i32 %c
}
!0 = !{ptr @target_one, ptr @target_two}
