; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; An internal function used by one partition stays internal there, under
; its own name, and appears nowhere else.
; Fails if: symbol_rules.rs decide() promotes an owned local even when no other partition uses it (its used_elsewhere test dropped).
; P0: define internal i32 @helper(
; P0: define i32 @big_user(
; P1-NOT: helper

define internal i32 @helper(i32 %x) {
  %y = add i32 %x, 5
  ret i32 %y
}
define i32 @big_user_body(i32 %x) {
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
  ret i32 %v59
}
define i32 @big_user(i32 %x) {
  %a = call i32 @helper(i32 %x)
  %b = call i32 @big_user_body(i32 %a)
  ret i32 %b
}
define i32 @other(i32 %x) {
  %y = sub i32 %x, 5
  ret i32 %y
}
