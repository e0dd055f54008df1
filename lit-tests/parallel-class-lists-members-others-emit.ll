; RUN: %opt-mtpc -passes='mtpc-parallel<O0;partitions=2;min-size=0>' %s -o %t.bc
; RUN: llc -filetype=obj %t.bc -o %t.o
; RUN: llvm-dwarfdump --debug-info %t.o | FileCheck %s

; From (clang++ -O0 -g):
;   struct Point { int x, y; template <typename T> T get() const { ... } };
;   int first(Point *p) { ... }        // larger: its partition starts first
;   long second(Point *p) { return p->get<long>(); }
; Point's elements list x and y, not get<long>: clang declares a member
; template's instance inside the class only in the unit that emits it. The
; partition of first describes Point in full, the one of second (which
; emits get<long>) declares it. Invariant: the full description of Point
; lists get<long> too, as stock's one unit does (gdb's ptype reads the
; definition); second's unit still declares it under its declaration of
; Point, where its definition points.
; Fails if: the module the partitions are built from is written without
; ClassMemberListing (shim/debug_types.cpp): first's unit describes Point
; with x and y only.
; CHECK: DW_TAG_compile_unit
; CHECK: DW_TAG_structure_type
; CHECK: DW_AT_name ("Point")
; CHECK-NEXT: DW_AT_byte_size (0x08)
; CHECK-NOT: DW_TAG_{{compile_unit|base_type|pointer_type|const_type}}
; CHECK: DW_AT_name ("y")
; CHECK-NOT: {{DW_TAG|NULL}}
; CHECK: DW_TAG_subprogram
; CHECK-NEXT: DW_AT_linkage_name ("_ZNK5Point3getIlEET_v")
; CHECK-NEXT: DW_AT_name ("get<long>")
; CHECK-NOT: DW_TAG_compile_unit
; CHECK: DW_AT_name ("first")
; CHECK: DW_TAG_compile_unit
; CHECK: DW_AT_name ("second")
; CHECK: DW_TAG_structure_type
; CHECK-NEXT: DW_AT_name ("Point")
; CHECK-NEXT: DW_AT_declaration (true)
; CHECK-EMPTY:
; CHECK-NEXT: DW_TAG_subprogram
; CHECK-NEXT: DW_AT_linkage_name ("_ZNK5Point3getIlEET_v")
; CHECK-NEXT: DW_AT_name ("get<long>")
; CHECK: DW_AT_specification ({{.*}} "_ZNK5Point3getIlEET_v")

source_filename = "mt.cpp"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.Point = type { i32, i32 }

$_ZNK5Point3getIlEET_v = comdat any

define dso_local noundef i32 @_Z5firstP5Point(ptr noundef %0) !dbg !12 {
  %2 = alloca ptr, align 8
  store ptr %0, ptr %2, align 8
  call void @llvm.dbg.declare(metadata ptr %2, metadata !22, metadata !DIExpression()), !dbg !23
  %3 = load ptr, ptr %2, align 8, !dbg !24
  %4 = getelementptr inbounds %struct.Point, ptr %3, i32 0, i32 0, !dbg !25
  %5 = load i32, ptr %4, align 4, !dbg !25
  %6 = mul nsw i32 %5, 3, !dbg !26
  %7 = load ptr, ptr %2, align 8, !dbg !27
  %8 = getelementptr inbounds %struct.Point, ptr %7, i32 0, i32 1, !dbg !28
  %9 = load i32, ptr %8, align 4, !dbg !28
  %10 = mul nsw i32 %9, 5, !dbg !29
  %11 = add nsw i32 %6, %10, !dbg !30
  %12 = load ptr, ptr %2, align 8, !dbg !31
  %13 = getelementptr inbounds %struct.Point, ptr %12, i32 0, i32 0, !dbg !32
  %14 = load i32, ptr %13, align 4, !dbg !32
  %15 = load ptr, ptr %2, align 8, !dbg !33
  %16 = getelementptr inbounds %struct.Point, ptr %15, i32 0, i32 1, !dbg !34
  %17 = load i32, ptr %16, align 4, !dbg !34
  %18 = xor i32 %14, %17, !dbg !35
  %19 = sub nsw i32 %11, %18, !dbg !36
  %20 = load ptr, ptr %2, align 8, !dbg !37
  %21 = getelementptr inbounds %struct.Point, ptr %20, i32 0, i32 0, !dbg !38
  %22 = load i32, ptr %21, align 4, !dbg !38
  %23 = load ptr, ptr %2, align 8, !dbg !39
  %24 = getelementptr inbounds %struct.Point, ptr %23, i32 0, i32 1, !dbg !40
  %25 = load i32, ptr %24, align 4, !dbg !40
  %26 = mul nsw i32 %22, %25, !dbg !41
  %27 = add nsw i32 %19, %26, !dbg !42
  %28 = load ptr, ptr %2, align 8, !dbg !43
  %29 = getelementptr inbounds %struct.Point, ptr %28, i32 0, i32 0, !dbg !44
  %30 = load i32, ptr %29, align 4, !dbg !44
  %31 = or i32 %30, 7, !dbg !45
  %32 = sub nsw i32 %27, %31, !dbg !46
  %33 = load ptr, ptr %2, align 8, !dbg !47
  %34 = getelementptr inbounds %struct.Point, ptr %33, i32 0, i32 1, !dbg !48
  %35 = load i32, ptr %34, align 4, !dbg !48
  %36 = and i32 %35, 9, !dbg !49
  %37 = add nsw i32 %32, %36, !dbg !50
  ret i32 %37, !dbg !51
}

declare void @llvm.dbg.declare(metadata, metadata, metadata)

define dso_local noundef i64 @_Z6secondP5Point(ptr noundef %0) !dbg !52 {
  %2 = alloca ptr, align 8
  store ptr %0, ptr %2, align 8
  call void @llvm.dbg.declare(metadata ptr %2, metadata !55, metadata !DIExpression()), !dbg !56
  %3 = load ptr, ptr %2, align 8, !dbg !57
  %4 = call noundef i64 @_ZNK5Point3getIlEET_v(ptr noundef nonnull align 4 dereferenceable(8) %3), !dbg !58
  ret i64 %4, !dbg !59
}

define linkonce_odr dso_local noundef i64 @_ZNK5Point3getIlEET_v(ptr noundef nonnull align 4 dereferenceable(8) %0) comdat align 2 !dbg !60 {
  %2 = alloca ptr, align 8
  store ptr %0, ptr %2, align 8
  call void @llvm.dbg.declare(metadata ptr %2, metadata !68, metadata !DIExpression()), !dbg !70
  %3 = load ptr, ptr %2, align 8
  %4 = getelementptr inbounds %struct.Point, ptr %3, i32 0, i32 0, !dbg !71
  %5 = load i32, ptr %4, align 4, !dbg !71
  %6 = sext i32 %5 to i64, !dbg !71
  %7 = mul nsw i64 %6, 2, !dbg !72
  %8 = getelementptr inbounds %struct.Point, ptr %3, i32 0, i32 1, !dbg !73
  %9 = load i32, ptr %8, align 4, !dbg !73
  %10 = sext i32 %9 to i64, !dbg !73
  %11 = add nsw i64 %7, %10, !dbg !74
  ret i64 %11, !dbg !75
}


!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!4, !5, !6, !7, !8, !10}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, retainedTypes: !2, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "mt.cpp", directory: "/tmp/lt", checksumkind: CSK_MD5, checksum: "8fb8d1f05d2cf225e55790812949074e")
!2 = !{!3}
!3 = !DIBasicType(name: "long", size: 64, encoding: DW_ATE_signed)
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = !{i32 2, !"Debug Info Version", i32 3}
!6 = !{i32 1, !"wchar_size", i32 4}
!7 = !{i32 8, !"PIC Level", i32 2}
!8 = !{i32 7, !"PIE Level", i32 2}
!10 = !{i32 7, !"frame-pointer", i32 2}
!12 = distinct !DISubprogram(name: "first", linkageName: "_Z5firstP5Point", scope: !1, file: !1, line: 5, type: !13, scopeLine: 5, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !21)
!13 = !DISubroutineType(types: !14)
!14 = !{!15, !16}
!15 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!16 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !17, size: 64)
!17 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "Point", file: !1, line: 1, size: 64, flags: DIFlagTypePassByValue, elements: !18, identifier: "_ZTS5Point")
!18 = !{!19, !20}
!19 = !DIDerivedType(tag: DW_TAG_member, name: "x", scope: !17, file: !1, line: 2, baseType: !15, size: 32)
!20 = !DIDerivedType(tag: DW_TAG_member, name: "y", scope: !17, file: !1, line: 2, baseType: !15, size: 32, offset: 32)
!21 = !{}
!22 = !DILocalVariable(name: "p", arg: 1, scope: !12, file: !1, line: 5, type: !16)
!23 = !DILocation(line: 5, column: 18, scope: !12)
!24 = !DILocation(line: 5, column: 30, scope: !12)
!25 = !DILocation(line: 5, column: 33, scope: !12)
!26 = !DILocation(line: 5, column: 35, scope: !12)
!27 = !DILocation(line: 5, column: 41, scope: !12)
!28 = !DILocation(line: 5, column: 44, scope: !12)
!29 = !DILocation(line: 5, column: 46, scope: !12)
!30 = !DILocation(line: 5, column: 39, scope: !12)
!31 = !DILocation(line: 5, column: 53, scope: !12)
!32 = !DILocation(line: 5, column: 56, scope: !12)
!33 = !DILocation(line: 5, column: 60, scope: !12)
!34 = !DILocation(line: 5, column: 63, scope: !12)
!35 = !DILocation(line: 5, column: 58, scope: !12)
!36 = !DILocation(line: 5, column: 50, scope: !12)
!37 = !DILocation(line: 5, column: 68, scope: !12)
!38 = !DILocation(line: 5, column: 71, scope: !12)
!39 = !DILocation(line: 5, column: 75, scope: !12)
!40 = !DILocation(line: 5, column: 78, scope: !12)
!41 = !DILocation(line: 5, column: 73, scope: !12)
!42 = !DILocation(line: 5, column: 66, scope: !12)
!43 = !DILocation(line: 5, column: 83, scope: !12)
!44 = !DILocation(line: 5, column: 86, scope: !12)
!45 = !DILocation(line: 5, column: 88, scope: !12)
!46 = !DILocation(line: 5, column: 80, scope: !12)
!47 = !DILocation(line: 5, column: 96, scope: !12)
!48 = !DILocation(line: 5, column: 99, scope: !12)
!49 = !DILocation(line: 5, column: 101, scope: !12)
!50 = !DILocation(line: 5, column: 93, scope: !12)
!51 = !DILocation(line: 5, column: 23, scope: !12)
!52 = distinct !DISubprogram(name: "second", linkageName: "_Z6secondP5Point", scope: !1, file: !1, line: 6, type: !53, scopeLine: 6, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !21)
!53 = !DISubroutineType(types: !54)
!54 = !{!3, !16}
!55 = !DILocalVariable(name: "p", arg: 1, scope: !52, file: !1, line: 6, type: !16)
!56 = !DILocation(line: 6, column: 20, scope: !52)
!57 = !DILocation(line: 6, column: 32, scope: !52)
!58 = !DILocation(line: 6, column: 35, scope: !52)
!59 = !DILocation(line: 6, column: 25, scope: !52)
!60 = distinct !DISubprogram(name: "get<long>", linkageName: "_ZNK5Point3getIlEET_v", scope: !17, file: !1, line: 3, type: !61, scopeLine: 3, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, templateParams: !66, declaration: !65, retainedNodes: !21)
!61 = !DISubroutineType(types: !62)
!62 = !{!3, !63}
!63 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !64, size: 64, flags: DIFlagArtificial | DIFlagObjectPointer)
!64 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !17)
!65 = !DISubprogram(name: "get<long>", linkageName: "_ZNK5Point3getIlEET_v", scope: !17, file: !1, line: 3, type: !61, scopeLine: 3, flags: DIFlagPrototyped, spFlags: 0, templateParams: !66)
!66 = !{!67}
!67 = !DITemplateTypeParameter(name: "T", type: !3)
!68 = !DILocalVariable(name: "this", arg: 1, scope: !60, type: !69, flags: DIFlagArtificial | DIFlagObjectPointer)
!69 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !64, size: 64)
!70 = !DILocation(line: 0, scope: !60)
!71 = !DILocation(line: 3, column: 50, scope: !60)
!72 = !DILocation(line: 3, column: 53, scope: !60)
!73 = !DILocation(line: 3, column: 61, scope: !60)
!74 = !DILocation(line: 3, column: 57, scope: !60)
!75 = !DILocation(line: 3, column: 41, scope: !60)
