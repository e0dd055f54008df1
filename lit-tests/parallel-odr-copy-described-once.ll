; RUN: %opt-mtpc -passes='mtpc-parallel<O0;partitions=2;min-size=0>' -S %s -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: grep -c '^module asm "_Z5twicei:"$' %t.ll | FileCheck --check-prefix=ONCE %s

; With debug information (from: inline int twice(int x) { return 2 * x; }
; and two functions that call it, clang++ -O0 -g): both partitions copy the
; inline function and keep it; the one that emits it describes it, and the
; other's copy is a declaration by the time its code generator writes its
; unit. Were it compiled too, its unit would describe a copy the merge
; drops, by labels that no longer exist, and the module would fall back to
; a whole compile.
; Fails if: parallel.rs stops calling odr_copies::declare_emitted_elsewhere
; (the module is then optimized whole: no module asm).
; CHECK-NOT: define
; CHECK: module asm "_Z5twicei:"
; ONCE: {{^}}1{{$}}

source_filename = "odrg.cpp"
target triple = "x86_64-pc-linux-gnu"

$_Z5twicei = comdat any

; Function Attrs: mustprogress noinline optnone uwtable
define dso_local noundef i32 @_Z5firsti(i32 noundef %0) #0 !dbg !10 {
  %2 = alloca i32, align 4
  store i32 %0, ptr %2, align 4
  call void @llvm.dbg.declare(metadata ptr %2, metadata !16, metadata !DIExpression()), !dbg !17
  %3 = load i32, ptr %2, align 4, !dbg !18
  %4 = call noundef i32 @_Z5twicei(i32 noundef %3), !dbg !19
  %5 = add nsw i32 %4, 1, !dbg !20
  ret i32 %5, !dbg !21
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare void @llvm.dbg.declare(metadata, metadata, metadata) #1

; Function Attrs: mustprogress noinline nounwind optnone uwtable
define linkonce_odr dso_local noundef i32 @_Z5twicei(i32 noundef %0) #2 comdat !dbg !22 {
  %2 = alloca i32, align 4
  store i32 %0, ptr %2, align 4
  call void @llvm.dbg.declare(metadata ptr %2, metadata !23, metadata !DIExpression()), !dbg !24
  %3 = load i32, ptr %2, align 4, !dbg !25
  %4 = mul nsw i32 2, %3, !dbg !26
  ret i32 %4, !dbg !27
}

; Function Attrs: mustprogress noinline optnone uwtable
define dso_local noundef i32 @_Z6secondi(i32 noundef %0) #0 !dbg !28 {
  %2 = alloca i32, align 4
  store i32 %0, ptr %2, align 4
  call void @llvm.dbg.declare(metadata ptr %2, metadata !29, metadata !DIExpression()), !dbg !30
  %3 = load i32, ptr %2, align 4, !dbg !31
  %4 = call noundef i32 @_Z5twicei(i32 noundef %3), !dbg !32
  %5 = mul nsw i32 %4, 3, !dbg !33
  ret i32 %5, !dbg !34
}

attributes #0 = { mustprogress noinline optnone uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress noinline nounwind optnone uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7, !8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 16.0.6 (15~deb12u1)", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "/tmp/odrg.cpp", directory: "/tmp", checksumkind: CSK_MD5, checksum: "af40b500944b4c3223b27029fb9ce6e1")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 8, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 2}
!8 = !{i32 7, !"frame-pointer", i32 2}
!10 = distinct !DISubprogram(name: "first", linkageName: "_Z5firsti", scope: !11, file: !11, line: 2, type: !12, scopeLine: 2, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !15)
!11 = !DIFile(filename: "odrg.cpp", directory: "/tmp", checksumkind: CSK_MD5, checksum: "af40b500944b4c3223b27029fb9ce6e1")
!12 = !DISubroutineType(types: !13)
!13 = !{!14, !14}
!14 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!15 = !{}
!16 = !DILocalVariable(name: "x", arg: 1, scope: !10, file: !11, line: 2, type: !14)
!17 = !DILocation(line: 2, column: 15, scope: !10)
!18 = !DILocation(line: 2, column: 33, scope: !10)
!19 = !DILocation(line: 2, column: 27, scope: !10)
!20 = !DILocation(line: 2, column: 36, scope: !10)
!21 = !DILocation(line: 2, column: 20, scope: !10)
!22 = distinct !DISubprogram(name: "twice", linkageName: "_Z5twicei", scope: !11, file: !11, line: 1, type: !12, scopeLine: 1, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !15)
!23 = !DILocalVariable(name: "x", arg: 1, scope: !22, file: !11, line: 1, type: !14)
!24 = !DILocation(line: 1, column: 22, scope: !22)
!25 = !DILocation(line: 1, column: 38, scope: !22)
!26 = !DILocation(line: 1, column: 36, scope: !22)
!27 = !DILocation(line: 1, column: 27, scope: !22)
!28 = distinct !DISubprogram(name: "second", linkageName: "_Z6secondi", scope: !11, file: !11, line: 3, type: !12, scopeLine: 3, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !15)
!29 = !DILocalVariable(name: "x", arg: 1, scope: !28, file: !11, line: 3, type: !14)
!30 = !DILocation(line: 3, column: 16, scope: !28)
!31 = !DILocation(line: 3, column: 34, scope: !28)
!32 = !DILocation(line: 3, column: 28, scope: !28)
!33 = !DILocation(line: 3, column: 37, scope: !28)
!34 = !DILocation(line: 3, column: 21, scope: !28)
