; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;no-merge;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; A callee too large for the inliner to take is only declared where it is
; called: copying it would optimize it once per partition for nothing.
; Fails if: symbol_rules.rs COPY_LIMITS.function raised from 80 to 1000.
; P0: define i32 @big(
; P1: declare i32 @big(
; P1-NOT: define available_externally
; P2: declare i32 @big(
; P2-NOT: define available_externally

define i32 @big(i32 %x) {
  %v0 = add i32 %x, 1
  %v1 = mul i32 %v0, 3
  %v2 = mul i32 %v1, 4
  %v3 = mul i32 %v2, 5
  %v4 = mul i32 %v3, 6
  %v5 = mul i32 %v4, 7
  %v6 = mul i32 %v5, 8
  %v7 = mul i32 %v6, 9
  %v8 = mul i32 %v7, 10
  %v9 = mul i32 %v8, 11
  %v10 = mul i32 %v9, 12
  %v11 = mul i32 %v10, 13
  %v12 = mul i32 %v11, 14
  %v13 = mul i32 %v12, 15
  %v14 = mul i32 %v13, 16
  %v15 = mul i32 %v14, 17
  %v16 = mul i32 %v15, 18
  %v17 = mul i32 %v16, 19
  %v18 = mul i32 %v17, 20
  %v19 = mul i32 %v18, 21
  %v20 = mul i32 %v19, 22
  %v21 = mul i32 %v20, 23
  %v22 = mul i32 %v21, 24
  %v23 = mul i32 %v22, 25
  %v24 = mul i32 %v23, 26
  %v25 = mul i32 %v24, 27
  %v26 = mul i32 %v25, 28
  %v27 = mul i32 %v26, 29
  %v28 = mul i32 %v27, 30
  %v29 = mul i32 %v28, 31
  %v30 = mul i32 %v29, 32
  %v31 = mul i32 %v30, 33
  %v32 = mul i32 %v31, 34
  %v33 = mul i32 %v32, 35
  %v34 = mul i32 %v33, 36
  %v35 = mul i32 %v34, 37
  %v36 = mul i32 %v35, 38
  %v37 = mul i32 %v36, 39
  %v38 = mul i32 %v37, 40
  %v39 = mul i32 %v38, 41
  %v40 = mul i32 %v39, 42
  %v41 = mul i32 %v40, 43
  %v42 = mul i32 %v41, 44
  %v43 = mul i32 %v42, 45
  %v44 = mul i32 %v43, 46
  %v45 = mul i32 %v44, 47
  %v46 = mul i32 %v45, 48
  %v47 = mul i32 %v46, 49
  %v48 = mul i32 %v47, 50
  %v49 = mul i32 %v48, 51
  %v50 = mul i32 %v49, 52
  %v51 = mul i32 %v50, 53
  %v52 = mul i32 %v51, 54
  %v53 = mul i32 %v52, 55
  %v54 = mul i32 %v53, 56
  %v55 = mul i32 %v54, 57
  %v56 = mul i32 %v55, 58
  %v57 = mul i32 %v56, 59
  %v58 = mul i32 %v57, 60
  %v59 = mul i32 %v58, 61
  %v60 = mul i32 %v59, 62
  %v61 = mul i32 %v60, 63
  %v62 = mul i32 %v61, 64
  %v63 = mul i32 %v62, 65
  %v64 = mul i32 %v63, 66
  %v65 = mul i32 %v64, 67
  %v66 = mul i32 %v65, 68
  %v67 = mul i32 %v66, 69
  %v68 = mul i32 %v67, 70
  %v69 = mul i32 %v68, 71
  %v70 = mul i32 %v69, 72
  %v71 = mul i32 %v70, 73
  %v72 = mul i32 %v71, 74
  %v73 = mul i32 %v72, 75
  %v74 = mul i32 %v73, 76
  %v75 = mul i32 %v74, 77
  %v76 = mul i32 %v75, 78
  %v77 = mul i32 %v76, 79
  %v78 = mul i32 %v77, 80
  %v79 = mul i32 %v78, 81
  %v80 = mul i32 %v79, 82
  %v81 = mul i32 %v80, 83
  %v82 = mul i32 %v81, 84
  %v83 = mul i32 %v82, 85
  %v84 = mul i32 %v83, 86
  %v85 = mul i32 %v84, 87
  %v86 = mul i32 %v85, 88
  %v87 = mul i32 %v86, 89
  %v88 = mul i32 %v87, 90
  %v89 = mul i32 %v88, 91
  %v90 = mul i32 %v89, 92
  %v91 = mul i32 %v90, 93
  %v92 = mul i32 %v91, 94
  %v93 = mul i32 %v92, 95
  %v94 = mul i32 %v93, 96
  %v95 = mul i32 %v94, 97
  %v96 = mul i32 %v95, 98
  %v97 = mul i32 %v96, 99
  %v98 = mul i32 %v97, 100
  %v99 = mul i32 %v98, 101
  %v100 = mul i32 %v99, 102
  %v101 = mul i32 %v100, 103
  %v102 = mul i32 %v101, 104
  %v103 = mul i32 %v102, 105
  %v104 = mul i32 %v103, 106
  %v105 = mul i32 %v104, 107
  %v106 = mul i32 %v105, 108
  %v107 = mul i32 %v106, 109
  %v108 = mul i32 %v107, 110
  %v109 = mul i32 %v108, 111
  ret i32 %v109
}
define i32 @caller_a(i32 %x) {
  %r = call i32 @big(i32 %x)
  ret i32 %r
}
define i32 @caller_b(i32 %x) {
  %r = call i32 @big(i32 %x)
  %s = add i32 %r, 2
  ret i32 %s
}
