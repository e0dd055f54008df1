; RUN: %opt-mtpc -passes='mtpc-split<partitions=4;min-size=0>' -S %s -o - | FileCheck %s
; RUN: %opt-mtpc -passes='mtpc-split<partitions=4;min-size=0;no-merge>' -S %s -o - | FileCheck %s --check-prefix=NOMERGE

; A function heavier than the others together is a partition of its own,
; and the work of the four partitions asked for is not there to divide:
; the partitions lighter than it are merged while together they stay
; within its work less a fifth (copying less, waiting no longer), so the
; four small functions share one partition beside @big.
; Fails if: partition_plan.rs merge_within_the_heaviest() stops merging.
; CHECK: define i32 @big(i32 %x) !mtpc.partition [[P0:![0-9]+]]
; CHECK: define i32 @s0(i32 %x) !mtpc.partition [[P1:![0-9]+]]
; CHECK: define i32 @s1(i32 %x) !mtpc.partition [[P1]]
; CHECK: define i32 @s2(i32 %x) !mtpc.partition [[P1]]
; CHECK: define i32 @s3(i32 %x) !mtpc.partition [[P1]]
; CHECK: !mtpc.partitions = !{[[N:![0-9]+]]}
; CHECK-DAG: [[P0]] = !{i32 0}
; CHECK-DAG: [[P1]] = !{i32 1}
; CHECK-DAG: [[N]] = !{i32 2}
; With no-merge, the four partitions packing made stay.
; NOMERGE: !mtpc.partitions = !{[[N:![0-9]+]]}
; NOMERGE: [[N]] = !{i32 4}

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
  ret i32 %v39
}
define i32 @s0(i32 %x) {
  %a = add i32 %x, 1
  %b = mul i32 %a, 3
  %c = xor i32 %b, 5
  ret i32 %c
}
define i32 @s1(i32 %x) {
  %a = add i32 %x, 2
  %b = mul i32 %a, 3
  %c = xor i32 %b, 5
  ret i32 %c
}
define i32 @s2(i32 %x) {
  %a = add i32 %x, 3
  %b = mul i32 %a, 3
  %c = xor i32 %b, 5
  ret i32 %c
}
define i32 @s3(i32 %x) {
  %a = add i32 %x, 4
  %b = mul i32 %a, 3
  %c = xor i32 %b, 5
  ret i32 %c
}
