; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;no-merge;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2
; The same module without its debug info is split the same way.
; RUN: opt -strip-debug %s -o %t.nodebug.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;no-merge;out=%t.nodebug>' %t.nodebug.bc -o /dev/null
; RUN: llvm-dis %t.nodebug.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.nodebug.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.nodebug.2.bc -o - | FileCheck %s --check-prefix=P2

; Debug intrinsics are not counted as instructions: -g must not change the
; plan or what is copied. @leaf has 60 instructions of code, under the copy
; limit (80), and 40 llvm.dbg.value calls that would put it over; its
; callers' partitions still get its body.
; Fails if: the shim's mtpc_body_uses (ir_ops.cpp) counts debug intrinsics as instructions.
; P0: define i32 @caller_a(
; P0: define available_externally i32 @leaf(
; P1: define i32 @leaf(
; P2: define i32 @caller_b(
; P2: define available_externally i32 @leaf(

define i32 @caller_a(i32 %x) !dbg !10 {
  %r = call i32 @leaf(i32 %x), !dbg !20
  %s = add i32 %r, 1, !dbg !20
  %t = mul i32 %s, %r, !dbg !20
  %u = xor i32 %t, 7, !dbg !20
  ret i32 %u, !dbg !20
}
define i32 @caller_b(i32 %x) !dbg !11 {
  %r = call i32 @leaf(i32 %x), !dbg !21
  ret i32 %r, !dbg !21
}
; 60 instructions of code and 40 debug intrinsics.
define i32 @leaf(i32 %x) !dbg !12 {
  %v0 = add i32 %x, 1, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v0, metadata !30, metadata !DIExpression()), !dbg !22
  %v1 = add i32 %v0, 2, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v1, metadata !30, metadata !DIExpression()), !dbg !22
  %v2 = add i32 %v1, 3, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v2, metadata !30, metadata !DIExpression()), !dbg !22
  %v3 = add i32 %v2, 4, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v3, metadata !30, metadata !DIExpression()), !dbg !22
  %v4 = add i32 %v3, 5, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v4, metadata !30, metadata !DIExpression()), !dbg !22
  %v5 = add i32 %v4, 6, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v5, metadata !30, metadata !DIExpression()), !dbg !22
  %v6 = add i32 %v5, 7, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v6, metadata !30, metadata !DIExpression()), !dbg !22
  %v7 = add i32 %v6, 8, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v7, metadata !30, metadata !DIExpression()), !dbg !22
  %v8 = add i32 %v7, 9, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v8, metadata !30, metadata !DIExpression()), !dbg !22
  %v9 = add i32 %v8, 10, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v9, metadata !30, metadata !DIExpression()), !dbg !22
  %v10 = add i32 %v9, 11, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v10, metadata !30, metadata !DIExpression()), !dbg !22
  %v11 = add i32 %v10, 12, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v11, metadata !30, metadata !DIExpression()), !dbg !22
  %v12 = add i32 %v11, 13, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v12, metadata !30, metadata !DIExpression()), !dbg !22
  %v13 = add i32 %v12, 14, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v13, metadata !30, metadata !DIExpression()), !dbg !22
  %v14 = add i32 %v13, 15, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v14, metadata !30, metadata !DIExpression()), !dbg !22
  %v15 = add i32 %v14, 16, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v15, metadata !30, metadata !DIExpression()), !dbg !22
  %v16 = add i32 %v15, 17, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v16, metadata !30, metadata !DIExpression()), !dbg !22
  %v17 = add i32 %v16, 18, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v17, metadata !30, metadata !DIExpression()), !dbg !22
  %v18 = add i32 %v17, 19, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v18, metadata !30, metadata !DIExpression()), !dbg !22
  %v19 = add i32 %v18, 20, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v19, metadata !30, metadata !DIExpression()), !dbg !22
  %v20 = add i32 %v19, 21, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v20, metadata !30, metadata !DIExpression()), !dbg !22
  %v21 = add i32 %v20, 22, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v21, metadata !30, metadata !DIExpression()), !dbg !22
  %v22 = add i32 %v21, 23, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v22, metadata !30, metadata !DIExpression()), !dbg !22
  %v23 = add i32 %v22, 24, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v23, metadata !30, metadata !DIExpression()), !dbg !22
  %v24 = add i32 %v23, 25, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v24, metadata !30, metadata !DIExpression()), !dbg !22
  %v25 = add i32 %v24, 26, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v25, metadata !30, metadata !DIExpression()), !dbg !22
  %v26 = add i32 %v25, 27, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v26, metadata !30, metadata !DIExpression()), !dbg !22
  %v27 = add i32 %v26, 28, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v27, metadata !30, metadata !DIExpression()), !dbg !22
  %v28 = add i32 %v27, 29, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v28, metadata !30, metadata !DIExpression()), !dbg !22
  %v29 = add i32 %v28, 30, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v29, metadata !30, metadata !DIExpression()), !dbg !22
  %v30 = add i32 %v29, 31, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v30, metadata !30, metadata !DIExpression()), !dbg !22
  %v31 = add i32 %v30, 32, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v31, metadata !30, metadata !DIExpression()), !dbg !22
  %v32 = add i32 %v31, 33, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v32, metadata !30, metadata !DIExpression()), !dbg !22
  %v33 = add i32 %v32, 34, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v33, metadata !30, metadata !DIExpression()), !dbg !22
  %v34 = add i32 %v33, 35, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v34, metadata !30, metadata !DIExpression()), !dbg !22
  %v35 = add i32 %v34, 36, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v35, metadata !30, metadata !DIExpression()), !dbg !22
  %v36 = add i32 %v35, 37, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v36, metadata !30, metadata !DIExpression()), !dbg !22
  %v37 = add i32 %v36, 38, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v37, metadata !30, metadata !DIExpression()), !dbg !22
  %v38 = add i32 %v37, 39, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v38, metadata !30, metadata !DIExpression()), !dbg !22
  %v39 = add i32 %v38, 40, !dbg !22
  call void @llvm.dbg.value(metadata i32 %v39, metadata !30, metadata !DIExpression()), !dbg !22
  %v40 = add i32 %v39, 41, !dbg !22
  %v41 = add i32 %v40, 42, !dbg !22
  %v42 = add i32 %v41, 43, !dbg !22
  %v43 = add i32 %v42, 44, !dbg !22
  %v44 = add i32 %v43, 45, !dbg !22
  %v45 = add i32 %v44, 46, !dbg !22
  %v46 = add i32 %v45, 47, !dbg !22
  %v47 = add i32 %v46, 48, !dbg !22
  %v48 = add i32 %v47, 49, !dbg !22
  %v49 = add i32 %v48, 50, !dbg !22
  %v50 = add i32 %v49, 51, !dbg !22
  %v51 = add i32 %v50, 52, !dbg !22
  %v52 = add i32 %v51, 53, !dbg !22
  %v53 = add i32 %v52, 54, !dbg !22
  %v54 = add i32 %v53, 55, !dbg !22
  %v55 = add i32 %v54, 56, !dbg !22
  %v56 = add i32 %v55, 57, !dbg !22
  %v57 = add i32 %v56, 58, !dbg !22
  %v58 = add i32 %v57, 59, !dbg !22
  ret i32 %v58, !dbg !22
}
declare void @llvm.dbg.value(metadata, metadata, metadata)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "t.c", directory: "/")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !DISubroutineType(types: !{})
!4 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!10 = distinct !DISubprogram(name: "caller_a", scope: !1, file: !1, line: 1, type: !3, unit: !0, spFlags: DISPFlagDefinition)
!11 = distinct !DISubprogram(name: "caller_b", scope: !1, file: !1, line: 2, type: !3, unit: !0, spFlags: DISPFlagDefinition)
!12 = distinct !DISubprogram(name: "leaf", scope: !1, file: !1, line: 3, type: !3, unit: !0, spFlags: DISPFlagDefinition)
!20 = !DILocation(line: 1, scope: !10)
!21 = !DILocation(line: 2, scope: !11)
!22 = !DILocation(line: 3, scope: !12)
!30 = !DILocalVariable(name: "v", scope: !12, file: !1, line: 3, type: !4)
