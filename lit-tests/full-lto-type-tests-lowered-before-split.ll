; RUN: %opt-mtpc -relocation-model=pic -passes='mtpc-parallel<fulllto;O2;partitions=3;min-size=0>' -S %s -o %t.ll
; RUN: FileCheck %s --implicit-check-not=define --implicit-check-not=llvm.type.test < %t.ll
; One jump table in the whole text:
; RUN: grep -c '^module asm ".cfi.jumptable[^"]*:"$' %t.ll | FileCheck --check-prefix=ONCE %s

; In full LTO, type tests (here CFI's check of an indirect call) are lowered
; on the whole module before the split: one jump table holds @inc and @dbl,
; @call (in another partition) checks its pointer against that table, and
; @inc and @dbl name their entries; no partition lowers type tests again.
; Fails if: host_pipeline.cpp's mtpc_run_lower_type_tests_whole does not
; run the full LTO pipeline's type-test lowering before the split (each
; partition would then build a jump table of its own, or none).
; CHECK-LABEL: module asm "call:"
; (LLVM 22 writes the aliases `inc = X`, which the merge writes as LLVM 16
; and 19 do, `.set inc, X`.)
; CHECK: module asm "\09leaq\09.cfi.jumptable[[SUFFIX:[.a-z0-9]*]](%rip), %r{{[a-z]+}}"
; CHECK-DAG: module asm ".set inc, .cfi.jumptable[[SUFFIX]]"
; CHECK-DAG: module asm ".set dbl, .cfi.jumptable[[SUFFIX]]+8"
; CHECK-DAG: module asm "\09jmp\09inc.cfi@PLT"
; CHECK-DAG: module asm "\09jmp\09dbl.cfi@PLT"
; CHECK-DAG: module asm ".Lmtpc1.
; ONCE: {{^}}1{{$}}

target triple = "x86_64-pc-linux-gnu"

@table = hidden global [2 x ptr] [ptr @inc, ptr @dbl], align 16

define hidden i32 @inc(i32 %x) noinline !type !1 {
  %r = add nsw i32 %x, 1
  ret i32 %r
}

define hidden i32 @dbl(i32 %x) noinline !type !1 {
  %r = mul nsw i32 %x, 2
  ret i32 %r
}

define hidden i32 @call(i32 %i, i32 %x) noinline {
  %slot = getelementptr inbounds [2 x ptr], ptr @table, i64 0, i32 %i
  %f = load ptr, ptr %slot, align 8
  %ok = call i1 @llvm.type.test(ptr %f, metadata !"_ZTSFiiE")
  br i1 %ok, label %cont, label %trap

trap:
  call void @llvm.ubsantrap(i8 2)
  unreachable

cont:
  %r = call i32 %f(i32 %x)
  ret i32 %r
}

declare i1 @llvm.type.test(ptr, metadata)
declare void @llvm.ubsantrap(i8 immarg)

!llvm.module.flags = !{!0}
!0 = !{i32 4, !"CFI Canonical Jump Tables", i32 1}
!1 = !{i64 0, !"_ZTSFiiE"}
