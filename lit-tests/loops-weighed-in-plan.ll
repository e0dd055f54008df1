; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0>' -S %s -o - | FileCheck %s

; A loop weighs more than its instructions: each back edge (a branch to
; its own block or an earlier one) adds 64 (partition_plan.rs,
; BACK_EDGE_WEIGHT), as loops are where the optimizer and the code
; generator spend. @loops, 11 instructions in two loops (one a single
; block, one a header and a latch), weighs 140 (one more for its
; definition), about as much as the four straight-line functions together
; (37 each), so it has a partition of its own.
; Fails if: the shim's body walk counts no back edges (module_facts.rs
; back_edges), or only a block's branch to itself, or the plan weighs
; instructions only: then @loops, light, shares a partition with two of
; the others.
; CHECK: define i32 @loops(i32 %n) !mtpc.partition [[PL:![0-9]+]]
; CHECK: define i32 @f0(i32 %x) !mtpc.partition [[PF:![0-9]+]]
; CHECK: define i32 @f1(i32 %x) !mtpc.partition [[PF]]
; CHECK: define i32 @f2(i32 %x) !mtpc.partition [[PF]]
; CHECK: define i32 @f3(i32 %x) !mtpc.partition [[PF]]
; CHECK: !mtpc.partitions = !{[[N:![0-9]+]]}
; CHECK-DAG: [[PL]] = !{i32 0}
; CHECK-DAG: [[PF]] = !{i32 1}
; CHECK-DAG: [[N]] = !{i32 2}

define i32 @loops(i32 %n) {
entry:
  br label %first
first:
  %i = phi i32 [ 0, %entry ], [ %i.next, %first ]
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %first, label %second
second:
  %j = phi i32 [ %i.next, %first ], [ %j.next, %latch ]
  %j.next = add i32 %j, 2
  br label %latch
latch:
  %again = icmp slt i32 %j.next, 1000
  br i1 %again, label %second, label %done
done:
  ret i32 %j.next
}

define i32 @f0(i32 %x) {
  %v0 = add i32 %x, 1
  %v1 = add i32 %v0, 1
  %v2 = add i32 %v1, 2
  %v3 = add i32 %v2, 3
  %v4 = add i32 %v3, 4
  %v5 = add i32 %v4, 5
  %v6 = add i32 %v5, 6
  %v7 = add i32 %v6, 7
  %v8 = add i32 %v7, 8
  %v9 = add i32 %v8, 9
  %v10 = add i32 %v9, 10
  %v11 = add i32 %v10, 11
  %v12 = add i32 %v11, 12
  %v13 = add i32 %v12, 13
  %v14 = add i32 %v13, 14
  %v15 = add i32 %v14, 15
  %v16 = add i32 %v15, 16
  %v17 = add i32 %v16, 17
  %v18 = add i32 %v17, 18
  %v19 = add i32 %v18, 19
  %v20 = add i32 %v19, 20
  %v21 = add i32 %v20, 21
  %v22 = add i32 %v21, 22
  %v23 = add i32 %v22, 23
  %v24 = add i32 %v23, 24
  %v25 = add i32 %v24, 25
  %v26 = add i32 %v25, 26
  %v27 = add i32 %v26, 27
  %v28 = add i32 %v27, 28
  %v29 = add i32 %v28, 29
  %v30 = add i32 %v29, 30
  %v31 = add i32 %v30, 31
  %v32 = add i32 %v31, 32
  %v33 = add i32 %v32, 33
  %v34 = add i32 %v33, 34
  ret i32 %v34
}

define i32 @f1(i32 %x) {
  %v0 = add i32 %x, 2
  %v1 = add i32 %v0, 1
  %v2 = add i32 %v1, 2
  %v3 = add i32 %v2, 3
  %v4 = add i32 %v3, 4
  %v5 = add i32 %v4, 5
  %v6 = add i32 %v5, 6
  %v7 = add i32 %v6, 7
  %v8 = add i32 %v7, 8
  %v9 = add i32 %v8, 9
  %v10 = add i32 %v9, 10
  %v11 = add i32 %v10, 11
  %v12 = add i32 %v11, 12
  %v13 = add i32 %v12, 13
  %v14 = add i32 %v13, 14
  %v15 = add i32 %v14, 15
  %v16 = add i32 %v15, 16
  %v17 = add i32 %v16, 17
  %v18 = add i32 %v17, 18
  %v19 = add i32 %v18, 19
  %v20 = add i32 %v19, 20
  %v21 = add i32 %v20, 21
  %v22 = add i32 %v21, 22
  %v23 = add i32 %v22, 23
  %v24 = add i32 %v23, 24
  %v25 = add i32 %v24, 25
  %v26 = add i32 %v25, 26
  %v27 = add i32 %v26, 27
  %v28 = add i32 %v27, 28
  %v29 = add i32 %v28, 29
  %v30 = add i32 %v29, 30
  %v31 = add i32 %v30, 31
  %v32 = add i32 %v31, 32
  %v33 = add i32 %v32, 33
  %v34 = add i32 %v33, 34
  ret i32 %v34
}

define i32 @f2(i32 %x) {
  %v0 = add i32 %x, 3
  %v1 = add i32 %v0, 1
  %v2 = add i32 %v1, 2
  %v3 = add i32 %v2, 3
  %v4 = add i32 %v3, 4
  %v5 = add i32 %v4, 5
  %v6 = add i32 %v5, 6
  %v7 = add i32 %v6, 7
  %v8 = add i32 %v7, 8
  %v9 = add i32 %v8, 9
  %v10 = add i32 %v9, 10
  %v11 = add i32 %v10, 11
  %v12 = add i32 %v11, 12
  %v13 = add i32 %v12, 13
  %v14 = add i32 %v13, 14
  %v15 = add i32 %v14, 15
  %v16 = add i32 %v15, 16
  %v17 = add i32 %v16, 17
  %v18 = add i32 %v17, 18
  %v19 = add i32 %v18, 19
  %v20 = add i32 %v19, 20
  %v21 = add i32 %v20, 21
  %v22 = add i32 %v21, 22
  %v23 = add i32 %v22, 23
  %v24 = add i32 %v23, 24
  %v25 = add i32 %v24, 25
  %v26 = add i32 %v25, 26
  %v27 = add i32 %v26, 27
  %v28 = add i32 %v27, 28
  %v29 = add i32 %v28, 29
  %v30 = add i32 %v29, 30
  %v31 = add i32 %v30, 31
  %v32 = add i32 %v31, 32
  %v33 = add i32 %v32, 33
  %v34 = add i32 %v33, 34
  ret i32 %v34
}

define i32 @f3(i32 %x) {
  %v0 = add i32 %x, 4
  %v1 = add i32 %v0, 1
  %v2 = add i32 %v1, 2
  %v3 = add i32 %v2, 3
  %v4 = add i32 %v3, 4
  %v5 = add i32 %v4, 5
  %v6 = add i32 %v5, 6
  %v7 = add i32 %v6, 7
  %v8 = add i32 %v7, 8
  %v9 = add i32 %v8, 9
  %v10 = add i32 %v9, 10
  %v11 = add i32 %v10, 11
  %v12 = add i32 %v11, 12
  %v13 = add i32 %v12, 13
  %v14 = add i32 %v13, 14
  %v15 = add i32 %v14, 15
  %v16 = add i32 %v15, 16
  %v17 = add i32 %v16, 17
  %v18 = add i32 %v17, 18
  %v19 = add i32 %v18, 19
  %v20 = add i32 %v19, 20
  %v21 = add i32 %v20, 21
  %v22 = add i32 %v21, 22
  %v23 = add i32 %v22, 23
  %v24 = add i32 %v23, 24
  %v25 = add i32 %v24, 25
  %v26 = add i32 %v25, 26
  %v27 = add i32 %v26, 27
  %v28 = add i32 %v27, 28
  %v29 = add i32 %v28, 29
  %v30 = add i32 %v29, 30
  %v31 = add i32 %v30, 31
  %v32 = add i32 %v31, 32
  %v33 = add i32 %v32, 33
  %v34 = add i32 %v33, 34
  ret i32 %v34
}
