; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1-LOCAL

; @wrapper is the only function that calls @listener, and one call both
; calls it and passes its address on. So @listener's address is taken: it
; is not a callee only @wrapper calls, which would ride along as a private
; copy wherever @wrapper is copied (each partition would then pass a
; listener of its own, with its own address: stock's program has one).
; It is shared as any local several partitions use: one name, promoted, in
; both partitions, so the object has one @listener and one address.
; Fails if: shim/ir_ops.cpp mtpc_body_uses() tells a callee from an operand by value (Op == the called operand), not by use (CallBase::isCallee): the argument then counts as the call, and @listener's address as taken nowhere.
; P0: define linkonce_odr hidden void [[L:@listener.mtpc.[0-9a-f]+]](
; P0: define void @wrapper(
; P0-NEXT: call void [[L]](ptr [[L]])
; P0: define i32 @user_a(
; P1: define linkonce_odr hidden void [[L:@listener.mtpc.[0-9a-f]+]](
; P1: define available_externally void @wrapper(
; P1-NEXT: call void [[L]](ptr [[L]])
; P1: define i32 @user_b(
; P1-LOCAL-NOT: define internal

@first = internal global ptr null

define internal void @listener(ptr %self) {
  %seen = load ptr, ptr @first
  %none = icmp eq ptr %seen, null
  br i1 %none, label %keep, label %done
keep:
  store ptr %self, ptr @first
  br label %done
done:
  ret void
}
define void @wrapper() {
  call void @listener(ptr @listener)
  ret void
}
define i32 @user_a(i32 %x) {
  call void @wrapper()
  %v0 = add i32 %x, 1
  %v1 = mul i32 %v0, 4
  %v2 = mul i32 %v1, 5
  %v3 = mul i32 %v2, 6
  %v4 = mul i32 %v3, 7
  %v5 = mul i32 %v4, 8
  %v6 = mul i32 %v5, 9
  %v7 = mul i32 %v6, 10
  %v8 = mul i32 %v7, 11
  %v9 = mul i32 %v8, 12
  %v10 = mul i32 %v9, 13
  %v11 = mul i32 %v10, 14
  %v12 = mul i32 %v11, 15
  %v13 = mul i32 %v12, 16
  %v14 = mul i32 %v13, 17
  %v15 = mul i32 %v14, 18
  %v16 = mul i32 %v15, 19
  %v17 = mul i32 %v16, 20
  %v18 = mul i32 %v17, 21
  %v19 = mul i32 %v18, 22
  %v20 = mul i32 %v19, 23
  %v21 = mul i32 %v20, 24
  %v22 = mul i32 %v21, 25
  %v23 = mul i32 %v22, 26
  %v24 = mul i32 %v23, 27
  %v25 = mul i32 %v24, 28
  %v26 = mul i32 %v25, 29
  %v27 = mul i32 %v26, 30
  %v28 = mul i32 %v27, 31
  %v29 = mul i32 %v28, 32
  %v30 = mul i32 %v29, 33
  %v31 = mul i32 %v30, 34
  %v32 = mul i32 %v31, 35
  %v33 = mul i32 %v32, 36
  %v34 = mul i32 %v33, 37
  %v35 = mul i32 %v34, 38
  %v36 = mul i32 %v35, 39
  %v37 = mul i32 %v36, 40
  %v38 = mul i32 %v37, 41
  %v39 = mul i32 %v38, 42
  %v40 = mul i32 %v39, 43
  %v41 = mul i32 %v40, 44
  %v42 = mul i32 %v41, 45
  %v43 = mul i32 %v42, 46
  %v44 = mul i32 %v43, 47
  %v45 = mul i32 %v44, 48
  %v46 = mul i32 %v45, 49
  %v47 = mul i32 %v46, 50
  %v48 = mul i32 %v47, 51
  %v49 = mul i32 %v48, 52
  %v50 = mul i32 %v49, 53
  %v51 = mul i32 %v50, 54
  %v52 = mul i32 %v51, 55
  %v53 = mul i32 %v52, 56
  %v54 = mul i32 %v53, 57
  %v55 = mul i32 %v54, 58
  %v56 = mul i32 %v55, 59
  %v57 = mul i32 %v56, 60
  %v58 = mul i32 %v57, 61
  %v59 = mul i32 %v58, 62
  ret i32 %v59
}
define i32 @user_b(i32 %x) {
  call void @wrapper()
  %v0 = add i32 %x, 2
  %v1 = mul i32 %v0, 4
  %v2 = mul i32 %v1, 5
  %v3 = mul i32 %v2, 6
  %v4 = mul i32 %v3, 7
  %v5 = mul i32 %v4, 8
  %v6 = mul i32 %v5, 9
  %v7 = mul i32 %v6, 10
  %v8 = mul i32 %v7, 11
  %v9 = mul i32 %v8, 12
  %v10 = mul i32 %v9, 13
  %v11 = mul i32 %v10, 14
  %v12 = mul i32 %v11, 15
  %v13 = mul i32 %v12, 16
  %v14 = mul i32 %v13, 17
  %v15 = mul i32 %v14, 18
  %v16 = mul i32 %v15, 19
  %v17 = mul i32 %v16, 20
  %v18 = mul i32 %v17, 21
  %v19 = mul i32 %v18, 22
  %v20 = mul i32 %v19, 23
  %v21 = mul i32 %v20, 24
  %v22 = mul i32 %v21, 25
  %v23 = mul i32 %v22, 26
  %v24 = mul i32 %v23, 27
  %v25 = mul i32 %v24, 28
  %v26 = mul i32 %v25, 29
  %v27 = mul i32 %v26, 30
  %v28 = mul i32 %v27, 31
  %v29 = mul i32 %v28, 32
  %v30 = mul i32 %v29, 33
  %v31 = mul i32 %v30, 34
  %v32 = mul i32 %v31, 35
  %v33 = mul i32 %v32, 36
  %v34 = mul i32 %v33, 37
  %v35 = mul i32 %v34, 38
  %v36 = mul i32 %v35, 39
  %v37 = mul i32 %v36, 40
  %v38 = mul i32 %v37, 41
  %v39 = mul i32 %v38, 42
  %v40 = mul i32 %v39, 43
  %v41 = mul i32 %v40, 44
  %v42 = mul i32 %v41, 45
  %v43 = mul i32 %v42, 46
  %v44 = mul i32 %v43, 47
  %v45 = mul i32 %v44, 48
  %v46 = mul i32 %v45, 49
  %v47 = mul i32 %v46, 50
  %v48 = mul i32 %v47, 51
  %v49 = mul i32 %v48, 52
  %v50 = mul i32 %v49, 53
  %v51 = mul i32 %v50, 54
  %v52 = mul i32 %v51, 55
  %v53 = mul i32 %v52, 56
  %v54 = mul i32 %v53, 57
  %v55 = mul i32 %v54, 58
  %v56 = mul i32 %v55, 59
  %v57 = mul i32 %v56, 60
  %v58 = mul i32 %v57, 61
  %v59 = mul i32 %v58, 62
  ret i32 %v59
}
