; RUN: %opt-mtpc -passes='mtpc-parallel<O0;partitions=2;min-size=0>' %s -o %t.bc
; RUN: llc -filetype=obj %t.bc -o %t.o
; RUN: llvm-dwarfdump --debug-info %t.o | FileCheck %s

; With debug information (from: struct Point { int x, y; }; and two
; functions taking a Point *, clang++ -O0 -g): each function is in a
; partition of its own, and each partition's unit would describe Point in
; full. The class has an ODR identifier (_ZTS5Point): the partition that
; started first (the larger, first's) describes it, and the other declares
; it, as a translation unit does whose class is defined in another one.
; Fails if: parallel.rs stops calling describe_shared_class_types (the
; second unit describes Point in full too).
; CHECK: DW_TAG_compile_unit
; CHECK: DW_TAG_structure_type
; CHECK-NEXT: DW_AT_calling_convention
; CHECK-NEXT: DW_AT_name ("Point")
; CHECK-NEXT: DW_AT_byte_size (0x08)
; CHECK: DW_AT_name ("first")
; CHECK: DW_TAG_compile_unit
; CHECK-NOT: DW_AT_byte_size (0x08)
; CHECK: DW_AT_name ("second")
; CHECK-NOT: DW_AT_byte_size (0x08)
; CHECK: DW_TAG_structure_type
; CHECK-NEXT: DW_AT_name ("Point")
; CHECK-NEXT: DW_AT_declaration (true)

source_filename = "pt.cpp"
target triple = "x86_64-pc-linux-gnu"

%struct.Point = type { i32, i32 }

; Function Attrs: mustprogress noinline nounwind optnone uwtable
define dso_local noundef i32 @_Z5firstP5Point(ptr noundef %0) !dbg !10 {
  %2 = alloca ptr, align 8
  store ptr %0, ptr %2, align 8
  call void @llvm.dbg.declare(metadata ptr %2, metadata !20, metadata !DIExpression()), !dbg !21
  %3 = load ptr, ptr %2, align 8, !dbg !22
  %4 = getelementptr inbounds %struct.Point, ptr %3, i32 0, i32 0, !dbg !23
  %5 = load i32, ptr %4, align 4, !dbg !23
  %6 = mul nsw i32 %5, 3, !dbg !24
  %7 = load ptr, ptr %2, align 8, !dbg !25
  %8 = getelementptr inbounds %struct.Point, ptr %7, i32 0, i32 1, !dbg !26
  %9 = load i32, ptr %8, align 4, !dbg !26
  %10 = mul nsw i32 %9, 5, !dbg !27
  %11 = add nsw i32 %6, %10, !dbg !28
  %12 = load ptr, ptr %2, align 8, !dbg !29
  %13 = getelementptr inbounds %struct.Point, ptr %12, i32 0, i32 0, !dbg !30
  %14 = load i32, ptr %13, align 4, !dbg !30
  %15 = load ptr, ptr %2, align 8, !dbg !31
  %16 = getelementptr inbounds %struct.Point, ptr %15, i32 0, i32 1, !dbg !32
  %17 = load i32, ptr %16, align 4, !dbg !32
  %18 = xor i32 %14, %17, !dbg !33
  %19 = sub nsw i32 %11, %18, !dbg !34
  ret i32 %19, !dbg !35
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare void @llvm.dbg.declare(metadata, metadata, metadata)

; Function Attrs: mustprogress noinline nounwind optnone uwtable
define dso_local noundef i32 @_Z6secondP5Point(ptr noundef %0) !dbg !36 {
  %2 = alloca ptr, align 8
  store ptr %0, ptr %2, align 8
  call void @llvm.dbg.declare(metadata ptr %2, metadata !37, metadata !DIExpression()), !dbg !38
  %3 = load ptr, ptr %2, align 8, !dbg !39
  %4 = getelementptr inbounds %struct.Point, ptr %3, i32 0, i32 1, !dbg !40
  %5 = load i32, ptr %4, align 4, !dbg !40
  ret i32 %5, !dbg !41
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7, !8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "pt.cpp", directory: "/tmp", checksumkind: CSK_MD5, checksum: "ea3ad54d28ef334e45f99cdb80f9555e")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 8, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 2}
!8 = !{i32 7, !"frame-pointer", i32 2}
!10 = distinct !DISubprogram(name: "first", linkageName: "_Z5firstP5Point", scope: !1, file: !1, line: 2, type: !11, scopeLine: 2, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !19)
!11 = !DISubroutineType(types: !12)
!12 = !{!13, !14}
!13 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!14 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !15, size: 64)
!15 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "Point", file: !1, line: 1, size: 64, flags: DIFlagTypePassByValue, elements: !16, identifier: "_ZTS5Point")
!16 = !{!17, !18}
!17 = !DIDerivedType(tag: DW_TAG_member, name: "x", scope: !15, file: !1, line: 1, baseType: !13, size: 32)
!18 = !DIDerivedType(tag: DW_TAG_member, name: "y", scope: !15, file: !1, line: 1, baseType: !13, size: 32, offset: 32)
!19 = !{}
!20 = !DILocalVariable(name: "p", arg: 1, scope: !10, file: !1, line: 2, type: !14)
!21 = !DILocation(line: 2, column: 18, scope: !10)
!22 = !DILocation(line: 2, column: 30, scope: !10)
!23 = !DILocation(line: 2, column: 33, scope: !10)
!24 = !DILocation(line: 2, column: 35, scope: !10)
!25 = !DILocation(line: 2, column: 41, scope: !10)
!26 = !DILocation(line: 2, column: 44, scope: !10)
!27 = !DILocation(line: 2, column: 46, scope: !10)
!28 = !DILocation(line: 2, column: 39, scope: !10)
!29 = !DILocation(line: 2, column: 53, scope: !10)
!30 = !DILocation(line: 2, column: 56, scope: !10)
!31 = !DILocation(line: 2, column: 60, scope: !10)
!32 = !DILocation(line: 2, column: 63, scope: !10)
!33 = !DILocation(line: 2, column: 58, scope: !10)
!34 = !DILocation(line: 2, column: 50, scope: !10)
!35 = !DILocation(line: 2, column: 23, scope: !10)
!36 = distinct !DISubprogram(name: "second", linkageName: "_Z6secondP5Point", scope: !1, file: !1, line: 3, type: !11, scopeLine: 3, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !19)
!37 = !DILocalVariable(name: "p", arg: 1, scope: !36, file: !1, line: 3, type: !14)
!38 = !DILocation(line: 3, column: 19, scope: !36)
!39 = !DILocation(line: 3, column: 31, scope: !36)
!40 = !DILocation(line: 3, column: 34, scope: !36)
!41 = !DILocation(line: 3, column: 24, scope: !36)
