; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;no-merge;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; A callee's inline size leaves out what promoting its local variables to
; registers removes (an alloca, a load from or store to one, a lifetime
; marker): unoptimized code is mostly such accesses. @spilled has 243
; instructions, of which 80 are code besides them, at the copy limit (80):
; its callers' partitions get its body, and would not if any kind of access
; counted. @through_pointer's 84 instructions load and store through an
; argument, not a local: all count, and its callers' partitions only
; declare it.
; Fails if: the shim's mtpc_body_uses (ir_ops.cpp) counts accesses of a
; local variable into the inline size, or those of another pointer out of it.
; P0: define i32 @caller_b(
; P0: define i32 @spilled(
; P1: define i32 @through_pointer(
; P2: define i32 @caller_a(
; P2: define available_externally i32 @spilled(
; P2: declare i32 @through_pointer(

define i32 @caller_a(i32 %x, ptr %p) {
  %r = call i32 @spilled(i32 %x)
  %s = call i32 @through_pointer(ptr %p, i32 %r)
  ret i32 %s
}
define i32 @caller_b(i32 %x, ptr %p) {
  %r = call i32 @spilled(i32 %x)
  %s = call i32 @through_pointer(ptr %p, i32 %r)
  %t = add i32 %s, 1
  ret i32 %t
}
; 79 adds and a return, 163 accesses of %slot.
define i32 @spilled(i32 %x) {
  %slot = alloca i32
  call void @llvm.lifetime.start.p0(i64 4, ptr %slot)
  store i32 %x, ptr %slot
  %l0 = load i32, ptr %slot
  %v0 = add i32 %l0, 1
  store i32 %v0, ptr %slot
  %l1 = load i32, ptr %slot
  %v1 = add i32 %l1, 2
  store i32 %v1, ptr %slot
  %l2 = load i32, ptr %slot
  %v2 = add i32 %l2, 3
  store i32 %v2, ptr %slot
  %l3 = load i32, ptr %slot
  %v3 = add i32 %l3, 4
  store i32 %v3, ptr %slot
  %l4 = load i32, ptr %slot
  %v4 = add i32 %l4, 5
  store i32 %v4, ptr %slot
  %l5 = load i32, ptr %slot
  %v5 = add i32 %l5, 6
  store i32 %v5, ptr %slot
  %l6 = load i32, ptr %slot
  %v6 = add i32 %l6, 7
  store i32 %v6, ptr %slot
  %l7 = load i32, ptr %slot
  %v7 = add i32 %l7, 8
  store i32 %v7, ptr %slot
  %l8 = load i32, ptr %slot
  %v8 = add i32 %l8, 9
  store i32 %v8, ptr %slot
  %l9 = load i32, ptr %slot
  %v9 = add i32 %l9, 10
  store i32 %v9, ptr %slot
  %l10 = load i32, ptr %slot
  %v10 = add i32 %l10, 11
  store i32 %v10, ptr %slot
  %l11 = load i32, ptr %slot
  %v11 = add i32 %l11, 12
  store i32 %v11, ptr %slot
  %l12 = load i32, ptr %slot
  %v12 = add i32 %l12, 13
  store i32 %v12, ptr %slot
  %l13 = load i32, ptr %slot
  %v13 = add i32 %l13, 14
  store i32 %v13, ptr %slot
  %l14 = load i32, ptr %slot
  %v14 = add i32 %l14, 15
  store i32 %v14, ptr %slot
  %l15 = load i32, ptr %slot
  %v15 = add i32 %l15, 16
  store i32 %v15, ptr %slot
  %l16 = load i32, ptr %slot
  %v16 = add i32 %l16, 17
  store i32 %v16, ptr %slot
  %l17 = load i32, ptr %slot
  %v17 = add i32 %l17, 18
  store i32 %v17, ptr %slot
  %l18 = load i32, ptr %slot
  %v18 = add i32 %l18, 19
  store i32 %v18, ptr %slot
  %l19 = load i32, ptr %slot
  %v19 = add i32 %l19, 20
  store i32 %v19, ptr %slot
  %l20 = load i32, ptr %slot
  %v20 = add i32 %l20, 21
  store i32 %v20, ptr %slot
  %l21 = load i32, ptr %slot
  %v21 = add i32 %l21, 22
  store i32 %v21, ptr %slot
  %l22 = load i32, ptr %slot
  %v22 = add i32 %l22, 23
  store i32 %v22, ptr %slot
  %l23 = load i32, ptr %slot
  %v23 = add i32 %l23, 24
  store i32 %v23, ptr %slot
  %l24 = load i32, ptr %slot
  %v24 = add i32 %l24, 25
  store i32 %v24, ptr %slot
  %l25 = load i32, ptr %slot
  %v25 = add i32 %l25, 26
  store i32 %v25, ptr %slot
  %l26 = load i32, ptr %slot
  %v26 = add i32 %l26, 27
  store i32 %v26, ptr %slot
  %l27 = load i32, ptr %slot
  %v27 = add i32 %l27, 28
  store i32 %v27, ptr %slot
  %l28 = load i32, ptr %slot
  %v28 = add i32 %l28, 29
  store i32 %v28, ptr %slot
  %l29 = load i32, ptr %slot
  %v29 = add i32 %l29, 30
  store i32 %v29, ptr %slot
  %l30 = load i32, ptr %slot
  %v30 = add i32 %l30, 31
  store i32 %v30, ptr %slot
  %l31 = load i32, ptr %slot
  %v31 = add i32 %l31, 32
  store i32 %v31, ptr %slot
  %l32 = load i32, ptr %slot
  %v32 = add i32 %l32, 33
  store i32 %v32, ptr %slot
  %l33 = load i32, ptr %slot
  %v33 = add i32 %l33, 34
  store i32 %v33, ptr %slot
  %l34 = load i32, ptr %slot
  %v34 = add i32 %l34, 35
  store i32 %v34, ptr %slot
  %l35 = load i32, ptr %slot
  %v35 = add i32 %l35, 36
  store i32 %v35, ptr %slot
  %l36 = load i32, ptr %slot
  %v36 = add i32 %l36, 37
  store i32 %v36, ptr %slot
  %l37 = load i32, ptr %slot
  %v37 = add i32 %l37, 38
  store i32 %v37, ptr %slot
  %l38 = load i32, ptr %slot
  %v38 = add i32 %l38, 39
  store i32 %v38, ptr %slot
  %l39 = load i32, ptr %slot
  %v39 = add i32 %l39, 40
  store i32 %v39, ptr %slot
  %l40 = load i32, ptr %slot
  %v40 = add i32 %l40, 41
  store i32 %v40, ptr %slot
  %l41 = load i32, ptr %slot
  %v41 = add i32 %l41, 42
  store i32 %v41, ptr %slot
  %l42 = load i32, ptr %slot
  %v42 = add i32 %l42, 43
  store i32 %v42, ptr %slot
  %l43 = load i32, ptr %slot
  %v43 = add i32 %l43, 44
  store i32 %v43, ptr %slot
  %l44 = load i32, ptr %slot
  %v44 = add i32 %l44, 45
  store i32 %v44, ptr %slot
  %l45 = load i32, ptr %slot
  %v45 = add i32 %l45, 46
  store i32 %v45, ptr %slot
  %l46 = load i32, ptr %slot
  %v46 = add i32 %l46, 47
  store i32 %v46, ptr %slot
  %l47 = load i32, ptr %slot
  %v47 = add i32 %l47, 48
  store i32 %v47, ptr %slot
  %l48 = load i32, ptr %slot
  %v48 = add i32 %l48, 49
  store i32 %v48, ptr %slot
  %l49 = load i32, ptr %slot
  %v49 = add i32 %l49, 50
  store i32 %v49, ptr %slot
  %l50 = load i32, ptr %slot
  %v50 = add i32 %l50, 51
  store i32 %v50, ptr %slot
  %l51 = load i32, ptr %slot
  %v51 = add i32 %l51, 52
  store i32 %v51, ptr %slot
  %l52 = load i32, ptr %slot
  %v52 = add i32 %l52, 53
  store i32 %v52, ptr %slot
  %l53 = load i32, ptr %slot
  %v53 = add i32 %l53, 54
  store i32 %v53, ptr %slot
  %l54 = load i32, ptr %slot
  %v54 = add i32 %l54, 55
  store i32 %v54, ptr %slot
  %l55 = load i32, ptr %slot
  %v55 = add i32 %l55, 56
  store i32 %v55, ptr %slot
  %l56 = load i32, ptr %slot
  %v56 = add i32 %l56, 57
  store i32 %v56, ptr %slot
  %l57 = load i32, ptr %slot
  %v57 = add i32 %l57, 58
  store i32 %v57, ptr %slot
  %l58 = load i32, ptr %slot
  %v58 = add i32 %l58, 59
  store i32 %v58, ptr %slot
  %l59 = load i32, ptr %slot
  %v59 = add i32 %l59, 60
  store i32 %v59, ptr %slot
  %l60 = load i32, ptr %slot
  %v60 = add i32 %l60, 61
  store i32 %v60, ptr %slot
  %l61 = load i32, ptr %slot
  %v61 = add i32 %l61, 62
  store i32 %v61, ptr %slot
  %l62 = load i32, ptr %slot
  %v62 = add i32 %l62, 63
  store i32 %v62, ptr %slot
  %l63 = load i32, ptr %slot
  %v63 = add i32 %l63, 64
  store i32 %v63, ptr %slot
  %l64 = load i32, ptr %slot
  %v64 = add i32 %l64, 65
  store i32 %v64, ptr %slot
  %l65 = load i32, ptr %slot
  %v65 = add i32 %l65, 66
  store i32 %v65, ptr %slot
  %l66 = load i32, ptr %slot
  %v66 = add i32 %l66, 67
  store i32 %v66, ptr %slot
  %l67 = load i32, ptr %slot
  %v67 = add i32 %l67, 68
  store i32 %v67, ptr %slot
  %l68 = load i32, ptr %slot
  %v68 = add i32 %l68, 69
  store i32 %v68, ptr %slot
  %l69 = load i32, ptr %slot
  %v69 = add i32 %l69, 70
  store i32 %v69, ptr %slot
  %l70 = load i32, ptr %slot
  %v70 = add i32 %l70, 71
  store i32 %v70, ptr %slot
  %l71 = load i32, ptr %slot
  %v71 = add i32 %l71, 72
  store i32 %v71, ptr %slot
  %l72 = load i32, ptr %slot
  %v72 = add i32 %l72, 73
  store i32 %v72, ptr %slot
  %l73 = load i32, ptr %slot
  %v73 = add i32 %l73, 74
  store i32 %v73, ptr %slot
  %l74 = load i32, ptr %slot
  %v74 = add i32 %l74, 75
  store i32 %v74, ptr %slot
  %l75 = load i32, ptr %slot
  %v75 = add i32 %l75, 76
  store i32 %v75, ptr %slot
  %l76 = load i32, ptr %slot
  %v76 = add i32 %l76, 77
  store i32 %v76, ptr %slot
  %l77 = load i32, ptr %slot
  %v77 = add i32 %l77, 78
  store i32 %v77, ptr %slot
  %l78 = load i32, ptr %slot
  %v78 = add i32 %l78, 79
  store i32 %v78, ptr %slot
  %r = load i32, ptr %slot
  call void @llvm.lifetime.end.p0(i64 4, ptr %slot)
  ret i32 %r
}
; 27 loads, adds and stores through %p, a store, a load and a return.
define i32 @through_pointer(ptr %p, i32 %x) {
  store i32 %x, ptr %p
  %l0 = load i32, ptr %p
  %v0 = add i32 %l0, 1
  store i32 %v0, ptr %p
  %l1 = load i32, ptr %p
  %v1 = add i32 %l1, 2
  store i32 %v1, ptr %p
  %l2 = load i32, ptr %p
  %v2 = add i32 %l2, 3
  store i32 %v2, ptr %p
  %l3 = load i32, ptr %p
  %v3 = add i32 %l3, 4
  store i32 %v3, ptr %p
  %l4 = load i32, ptr %p
  %v4 = add i32 %l4, 5
  store i32 %v4, ptr %p
  %l5 = load i32, ptr %p
  %v5 = add i32 %l5, 6
  store i32 %v5, ptr %p
  %l6 = load i32, ptr %p
  %v6 = add i32 %l6, 7
  store i32 %v6, ptr %p
  %l7 = load i32, ptr %p
  %v7 = add i32 %l7, 8
  store i32 %v7, ptr %p
  %l8 = load i32, ptr %p
  %v8 = add i32 %l8, 9
  store i32 %v8, ptr %p
  %l9 = load i32, ptr %p
  %v9 = add i32 %l9, 10
  store i32 %v9, ptr %p
  %l10 = load i32, ptr %p
  %v10 = add i32 %l10, 11
  store i32 %v10, ptr %p
  %l11 = load i32, ptr %p
  %v11 = add i32 %l11, 12
  store i32 %v11, ptr %p
  %l12 = load i32, ptr %p
  %v12 = add i32 %l12, 13
  store i32 %v12, ptr %p
  %l13 = load i32, ptr %p
  %v13 = add i32 %l13, 14
  store i32 %v13, ptr %p
  %l14 = load i32, ptr %p
  %v14 = add i32 %l14, 15
  store i32 %v14, ptr %p
  %l15 = load i32, ptr %p
  %v15 = add i32 %l15, 16
  store i32 %v15, ptr %p
  %l16 = load i32, ptr %p
  %v16 = add i32 %l16, 17
  store i32 %v16, ptr %p
  %l17 = load i32, ptr %p
  %v17 = add i32 %l17, 18
  store i32 %v17, ptr %p
  %l18 = load i32, ptr %p
  %v18 = add i32 %l18, 19
  store i32 %v18, ptr %p
  %l19 = load i32, ptr %p
  %v19 = add i32 %l19, 20
  store i32 %v19, ptr %p
  %l20 = load i32, ptr %p
  %v20 = add i32 %l20, 21
  store i32 %v20, ptr %p
  %l21 = load i32, ptr %p
  %v21 = add i32 %l21, 22
  store i32 %v21, ptr %p
  %l22 = load i32, ptr %p
  %v22 = add i32 %l22, 23
  store i32 %v22, ptr %p
  %l23 = load i32, ptr %p
  %v23 = add i32 %l23, 24
  store i32 %v23, ptr %p
  %l24 = load i32, ptr %p
  %v24 = add i32 %l24, 25
  store i32 %v24, ptr %p
  %l25 = load i32, ptr %p
  %v25 = add i32 %l25, 26
  store i32 %v25, ptr %p
  %l26 = load i32, ptr %p
  %v26 = add i32 %l26, 27
  store i32 %v26, ptr %p
  %r = load i32, ptr %p
  ret i32 %r
}
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
