; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o %t.0.ll
; RUN: llvm-dis %t.1.bc -o %t.1.ll
; RUN: cat %t.0.ll %t.1.ll | FileCheck %s --check-prefix=SPLIT
; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' %s -o %t.bc
; RUN: llc -filetype=obj %t.bc -o %t.o
; RUN: llvm-dwarfdump --debug-info %t.o | grep -A1 DW_AT_decl_line | grep -v '^--' | paste - - | sort \
; RUN:   | FileCheck %s --check-prefix=DWARF

; With -g, clang describes each string literal by an unnamed global
; variable entry (DW_TAG_variable with the literal's line and address).
; What looks an address up in the debug information finds it there:
; AddressSanitizer's report of an overflow of a literal names its file and
; line ("defined in 'str.c:3'") from it. A C string two partitions use gets
; a private copy in each, an object of its own: each partition describes
; its copy, as the owner describes its own, so that the report of an
; overflow of either copy names the line. A copy the optimizer folded away
; (@.folded's in @read_const's partition, which loads a constant index) is
; no longer described. The owner's entry stays whatever its optimizer did,
; as in stock's object: here the owner is @read_index's partition (a
; literal goes with its first user), which keeps its copy.
; Fails if: partition_builder.rs leaves Decision::LocalCopy out of what a
; partition describes (the copy's entry is trimmed from its unit), or the
; shim's mtpc_copies_debug_info_apply stops taking the folded copy's entry
; out (a second, location-less DW_TAG_variable of line 4).
; SPLIT: @.str = private unnamed_addr constant [6 x i8] c"hello\00", align 1, !dbg ![[E0:[0-9]+]]
; SPLIT: define {{.*}}@read_
; SPLIT-DAG: !DICompileUnit({{.*}}globals: ![[G0:[0-9]+]]
; SPLIT-DAG: ![[G0]] = !{{.*}}![[E0]]{{[,}]}}
; SPLIT: @.str = private unnamed_addr constant [6 x i8] c"hello\00", align 1, !dbg ![[E1:[0-9]+]]
; SPLIT: define {{.*}}@read_
; SPLIT-DAG: !DICompileUnit({{.*}}globals: ![[G1:[0-9]+]]
; SPLIT-DAG: ![[G1]] = !{{.*}}![[E1]]{{[,}]}}
; The object's declared lines, each with what follows it, sorted: two
; copies of line 3's literal, each with its address, and one entry of line
; 4's, the owner's, then the functions'.
; DWARF: DW_AT_decl_line (3) DW_AT_location (DW_OP_addrx
; DWARF-NEXT: DW_AT_decl_line (3) DW_AT_location (DW_OP_addrx
; DWARF-NEXT: DW_AT_decl_line (4) DW_AT_location (DW_OP_addrx
; DWARF-NEXT: DW_AT_decl_line (5)
; DWARF-NEXT: DW_AT_decl_line (6)
; DWARF-NOT: DW_AT_decl_line

source_filename = "str.c"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [6 x i8] c"hello\00", align 1, !dbg !5
@.folded = private unnamed_addr constant [6 x i8] c"world\00", align 1, !dbg !10

define dso_local i8 @read_index(i64 %i, i64 %j) #0 !dbg !20 {
  %p = getelementptr inbounds [6 x i8], ptr @.str, i64 0, i64 %i, !dbg !24
  %c = load i8, ptr %p, align 1, !dbg !24
  %q = getelementptr inbounds [6 x i8], ptr @.folded, i64 0, i64 %j, !dbg !24
  %d = load i8, ptr %q, align 1, !dbg !24
  %r = add i8 %c, %d, !dbg !24
  ret i8 %r, !dbg !24
}

define dso_local i8 @read_const(i64 %i) #0 !dbg !21 {
  %p = getelementptr inbounds [6 x i8], ptr @.str, i64 0, i64 %i, !dbg !25
  %c = load i8, ptr %p, align 1, !dbg !25
  %q = getelementptr inbounds [6 x i8], ptr @.folded, i64 0, i64 2, !dbg !25
  %d = load i8, ptr %q, align 1, !dbg !25
  %r = add i8 %c, %d, !dbg !25
  ret i8 %r, !dbg !25
}

attributes #0 = { noinline nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, globals: !4)
!1 = !DIFile(filename: "str.c", directory: "/tmp")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{!5, !10}
!5 = !DIGlobalVariableExpression(var: !6, expr: !DIExpression())
!6 = distinct !DIGlobalVariable(scope: null, file: !1, line: 3, type: !7, isLocal: true, isDefinition: true)
!7 = !DICompositeType(tag: DW_TAG_array_type, baseType: !8, size: 48, elements: !14)
!8 = !DIBasicType(name: "char", size: 8, encoding: DW_ATE_signed_char)
!10 = !DIGlobalVariableExpression(var: !11, expr: !DIExpression())
!11 = distinct !DIGlobalVariable(scope: null, file: !1, line: 4, type: !7, isLocal: true, isDefinition: true)
!14 = !{!15}
!15 = !DISubrange(count: 6)
!20 = distinct !DISubprogram(name: "read_index", scope: !1, file: !1, line: 5, type: !22, scopeLine: 5, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!21 = distinct !DISubprogram(name: "read_const", scope: !1, file: !1, line: 6, type: !22, scopeLine: 6, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!22 = !DISubroutineType(types: !23)
!23 = !{!8}
!24 = !DILocation(line: 5, column: 1, scope: !20)
!25 = !DILocation(line: 6, column: 1, scope: !21)
