; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;no-merge;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; The call graph profile (the "CG Profile" flag the host's last passes add
; where functions carry profile counts; a module split for its code
; generation alone carries it) lists edges between functions, and every
; code generator writes each edge whose two functions it has, declared or
; defined (.llvm.call-graph-profile, which the linker sums). Each partition
; keeps the edges from the functions it defines: @main's partition, which
; declares @first and @second, does not write @first's edge to @second, and
; the parts together write each edge once.
; Fails if: partition_builder.rs leaves the flag whole in every partition,
; or keeps an edge by its callee, or mtpc_keep_call_graph_profile_from
; (ir_ops.cpp) drops the edges it should keep.
; P0: define i32 @first(
; P0-NOT: define
; P0: !{i32 5, !"CG Profile", ![[EDGES:[0-9]+]]}
; P0: ![[EDGES]] = distinct !{![[EDGE:[0-9]+]]}
; P0: ![[EDGE]] = !{ptr @first, ptr @second, i64 300}
; P0-NOT: ptr @main
; P1-DAG: define i32 @main(
; P1-DAG: define i32 @second(
; P1: !{i32 5, !"CG Profile", ![[EDGES:[0-9]+]]}
; P1: ![[EDGES]] = distinct !{![[A:[0-9]+]], ![[B:[0-9]+]]}
; P1-DAG: ![[A]] = !{ptr @main, ptr @first, i64 100}
; P1-DAG: ![[B]] = !{ptr @main, ptr @second, i64 50}
; P1-NOT: i64 300

define i32 @main(i32 %x) !prof !10 {
  %a = call i32 @first(i32 %x)
  %b = call i32 @second(i32 %a)
  %c = mul i32 %a, %b
  %d = add i32 %c, 7
  %e = xor i32 %d, %x
  %f = mul i32 %e, %d
  %g = add i32 %f, %a
  %h = xor i32 %g, %b
  %i = mul i32 %h, %g
  %j = add i32 %i, %c
  %k = xor i32 %j, %d
  %l = mul i32 %k, %e
  %m = add i32 %l, %f
  ret i32 %m
}

define i32 @first(i32 %x) noinline !prof !11 {
  %a = call i32 @second(i32 %x)
  %b = mul i32 %a, 3
  %c = add i32 %b, 7
  %d = xor i32 %c, %x
  %e = mul i32 %d, %c
  %f = add i32 %e, %b
  %g = xor i32 %f, %a
  %h = mul i32 %g, %f
  %i = add i32 %h, %e
  %j = xor i32 %i, %d
  %k = mul i32 %j, %i
  %l = add i32 %k, %h
  %m = xor i32 %l, %g
  %n = mul i32 %m, %l
  %o = add i32 %n, %k
  ret i32 %o
}

define i32 @second(i32 %x) noinline !prof !12 {
  %a = mul i32 %x, 5
  %b = add i32 %a, 11
  ret i32 %b
}

!llvm.module.flags = !{!0}
!0 = !{i32 5, !"CG Profile", !1}
!1 = distinct !{!2, !3, !4}
!2 = !{ptr @main, ptr @first, i64 100}
!3 = !{ptr @first, ptr @second, i64 300}
!4 = !{ptr @main, ptr @second, i64 50}
!10 = !{!"function_entry_count", i64 1}
!11 = !{!"function_entry_count", i64 100}
!12 = !{!"function_entry_count", i64 350}
