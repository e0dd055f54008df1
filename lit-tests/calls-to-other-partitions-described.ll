; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0 --implicit-check-not=mtpc.function.declarations
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1 --implicit-check-not=mtpc.function.declarations
; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' %s -o %t.bc
; RUN: llc -filetype=obj %t.bc -o %t.o
; RUN: llvm-dwarfdump --debug-info %t.o | FileCheck %s --check-prefix=DWARF

; With -g at -O2 (DWARF 5), each call is described (DW_TAG_call_site, with
; its arguments' values, which debuggers use for a caller's frame) if the
; callee has a subprogram: its definition's, or a declaration's, which
; clang gives the functions a unit calls but does not define. @caller's
; partition declares @work, which the other defines, and a partition's
; declarations are read without their subprograms: each is given its
; function's declaration subprogram (from the list the module's bitcode
; carries, which no partition keeps), and the call is described, as in
; stock's object, where @work is defined.
; Fails if: the shim's FunctionDeclarationListing stops listing them, or
; partition_builder.rs stops calling describe_declared_functions.
; P0: declare !dbg ![[DECL:[0-9]+]] dso_local i32 @work(
; P0: define dso_local i32 @caller(
; P0: ![[DECL]] = !DISubprogram(name: "work", scope: !{{[0-9]+}}, file: !{{[0-9]+}}, line: 1, type: !{{[0-9]+}}, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
; P1: define dso_local i32 @work(
; P1-NOT: define
; DWARF: DW_AT_name ("caller")
; DWARF: DW_TAG_call_site
; DWARF-NEXT: DW_AT_call_origin ([[WORK:0x[0-9a-f]+]]{{( "work")?}})
; DWARF: [[WORK]]: DW_TAG_subprogram
; DWARF-NEXT: DW_AT_name ("work")
; DWARF: DW_AT_declaration (true)

source_filename = "calls.c"
target triple = "x86_64-pc-linux-gnu"

define dso_local i32 @work(i32 %a, i32 %b) #0 !dbg !9 {
  call void @llvm.dbg.value(metadata i32 %a, metadata !14, metadata !DIExpression()), !dbg !23
  call void @llvm.dbg.value(metadata i32 %b, metadata !15, metadata !DIExpression()), !dbg !23
  %m = mul nsw i32 %a, %b, !dbg !23
  %s = add nsw i32 %m, %a, !dbg !23
  %t = xor i32 %s, %b, !dbg !23
  %u = sub nsw i32 %t, 7, !dbg !23
  ret i32 %u, !dbg !23
}

define dso_local i32 @caller(i32 %x) !dbg !47 {
  call void @llvm.dbg.value(metadata i32 %x, metadata !51, metadata !DIExpression()), !dbg !56
  %add = add nsw i32 %x, 1, !dbg !56
  %call = call i32 @work(i32 %x, i32 %add), !dbg !56
  %mul = mul nsw i32 %call, 2, !dbg !56
  %r = add nsw i32 %mul, %x, !dbg !56
  ret i32 %r, !dbg !56
}

declare void @llvm.dbg.value(metadata, metadata, metadata)

attributes #0 = { noinline }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "calls.c", directory: "/tmp")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!9 = distinct !DISubprogram(name: "work", scope: !1, file: !1, line: 1, type: !10, scopeLine: 1, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !13)
!10 = !DISubroutineType(types: !11)
!11 = !{!12, !12, !12}
!12 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!13 = !{!14, !15}
!14 = !DILocalVariable(name: "a", arg: 1, scope: !9, file: !1, line: 1, type: !12)
!15 = !DILocalVariable(name: "b", arg: 2, scope: !9, file: !1, line: 1, type: !12)
!23 = !DILocation(line: 1, column: 40, scope: !9)
!47 = distinct !DISubprogram(name: "caller", scope: !1, file: !1, line: 2, type: !48, scopeLine: 2, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !50)
!48 = !DISubroutineType(types: !49)
!49 = !{!12, !12}
!50 = !{!51}
!51 = !DILocalVariable(name: "x", arg: 1, scope: !47, file: !1, line: 2, type: !12)
!56 = !DILocation(line: 2, column: 28, scope: !47)
