; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; Value-profile metadata (!prof "VP") resolves an indirect call to the
; functions whose MD5 name hash it records: @hot_target, reachable only
; through that profile, is placed with its caller. Without that edge it
; would be a unit of its own, and largest-first packing would put it
; apart: @big_a (40) and @big_b (38) first, then @caller (5) on the
; lighter partition, which it makes the heavier, then @hot_target (4) on
; the other.
; Fails if: module_facts.rs RefWalker::walk_indirect_call() ignores the targets value-profile (VP) metadata records, or the shim's mtpc_body_uses (ir_ops.cpp) leaves out indirect calls.
; P0: define i32 @big_a(
; P0-NOT: hot_target
; P1: define i32 @caller(
; P1: define i32 @hot_target(
; P1: define i32 @big_b(

define i32 @caller(ptr %fp, i32 %x) {
  %r = call i32 %fp(i32 %x), !prof !0
  %a = add i32 %r, 1
  %b = add i32 %a, 2
  ret i32 %b
}
define i32 @hot_target(i32 %x) {
  %v0 = add i32 %x, 1
  %v1 = add i32 %v0, 2
  ret i32 %v1
}
define i32 @big_a(i32 %x) {
  %v0 = mul i32 %x, 1
  %v1 = mul i32 %v0, 2
  %v2 = mul i32 %v1, 3
  %v3 = mul i32 %v2, 4
  %v4 = mul i32 %v3, 5
  %v5 = mul i32 %v4, 6
  %v6 = mul i32 %v5, 7
  %v7 = mul i32 %v6, 8
  %v8 = mul i32 %v7, 9
  %v9 = mul i32 %v8, 10
  %v10 = mul i32 %v9, 11
  %v11 = mul i32 %v10, 12
  %v12 = mul i32 %v11, 13
  %v13 = mul i32 %v12, 14
  %v14 = mul i32 %v13, 15
  %v15 = mul i32 %v14, 16
  %v16 = mul i32 %v15, 17
  %v17 = mul i32 %v16, 18
  %v18 = mul i32 %v17, 19
  %v19 = mul i32 %v18, 20
  %v20 = mul i32 %v19, 21
  %v21 = mul i32 %v20, 22
  %v22 = mul i32 %v21, 23
  %v23 = mul i32 %v22, 24
  %v24 = mul i32 %v23, 25
  %v25 = mul i32 %v24, 26
  %v26 = mul i32 %v25, 27
  %v27 = mul i32 %v26, 28
  %v28 = mul i32 %v27, 29
  %v29 = mul i32 %v28, 30
  %v30 = mul i32 %v29, 31
  %v31 = mul i32 %v30, 32
  %v32 = mul i32 %v31, 33
  %v33 = mul i32 %v32, 34
  %v34 = mul i32 %v33, 35
  %v35 = mul i32 %v34, 36
  %v36 = mul i32 %v35, 37
  %v37 = mul i32 %v36, 38
  ret i32 %v37
}
define i32 @big_b(i32 %x) {
  %v0 = xor i32 %x, 1
  %v1 = xor i32 %v0, 2
  %v2 = xor i32 %v1, 3
  %v3 = xor i32 %v2, 4
  %v4 = xor i32 %v3, 5
  %v5 = xor i32 %v4, 6
  %v6 = xor i32 %v5, 7
  %v7 = xor i32 %v6, 8
  %v8 = xor i32 %v7, 9
  %v9 = xor i32 %v8, 10
  %v10 = xor i32 %v9, 11
  %v11 = xor i32 %v10, 12
  %v12 = xor i32 %v11, 13
  %v13 = xor i32 %v12, 14
  %v14 = xor i32 %v13, 15
  %v15 = xor i32 %v14, 16
  %v16 = xor i32 %v15, 17
  %v17 = xor i32 %v16, 18
  %v18 = xor i32 %v17, 19
  %v19 = xor i32 %v18, 20
  %v20 = xor i32 %v19, 21
  %v21 = xor i32 %v20, 22
  %v22 = xor i32 %v21, 23
  %v23 = xor i32 %v22, 24
  %v24 = xor i32 %v23, 25
  %v25 = xor i32 %v24, 26
  %v26 = xor i32 %v25, 27
  %v27 = xor i32 %v26, 28
  %v28 = xor i32 %v27, 29
  %v29 = xor i32 %v28, 30
  %v30 = xor i32 %v29, 31
  %v31 = xor i32 %v30, 32
  %v32 = xor i32 %v31, 33
  %v33 = xor i32 %v32, 34
  %v34 = xor i32 %v33, 35
  %v35 = xor i32 %v34, 36
  ret i32 %v35
}
; 867864718532769752 is MD5("hot_target"), low 64 bits.
!0 = !{!"VP", i32 0, i64 100, i64 867864718532769752, i64 90}
