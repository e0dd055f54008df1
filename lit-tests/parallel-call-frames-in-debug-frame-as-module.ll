; RUN: %opt-mtpc -passes='mtpc-parallel<O0;partitions=2;min-size=0>' %s -o %t.bc
; RUN: llvm-dis %t.bc -o - | FileCheck --check-prefix=SPLIT --implicit-check-not=define %s
; RUN: llc -filetype=obj %t.bc -o %t.o
; RUN: llvm-dwarfdump --debug-frame %t.o | FileCheck %s
; RUN: llc -filetype=obj %s -o %t.stock.o
; RUN: llvm-dwarfdump --debug-frame %t.stock.o | FileCheck %s

; With debug information and without unwind tables, a module none of whose
; functions may throw has its call frame information in .debug_frame (the
; second llc, stock's): so do its partitions, each on its own and merged,
; not in .eh_frame, which a loaded program would carry for nothing. A
; declaration that may throw (@ext, called by @other_leaf) decides nothing,
; for the code generator as for mtpc: it emits no function.
; Fails if: the partitions are made to put their entries in .eh_frame
; whatever the module's functions need (ModuleRef::needs_unwind_tables
; always true), or whatever its declarations are
; (mtpc_module_needs_unwind_tables without isDeclarationForLinker).
; SPLIT-DAG: module asm "leaf:"
; SPLIT-DAG: module asm "other_leaf:"
; CHECK: .debug_frame contents:
; CHECK: FDE
; CHECK: FDE
; CHECK-NOT: FDE
; CHECK: .eh_frame contents:
; CHECK-NOT: FDE

source_filename = "leaves.c"
target triple = "x86_64-pc-linux-gnu"

define i32 @leaf(i32 %x) nounwind !dbg !5 {
  %y = mul i32 %x, 3, !dbg !8
  ret i32 %y, !dbg !8
}

define i32 @other_leaf(i32 %x) nounwind !dbg !9 {
  call void @ext(), !dbg !10
  %y = add i32 %x, 7, !dbg !10
  ret i32 %y, !dbg !10
}

declare void @ext()

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "leaves.c", directory: "/src")
!3 = !{i32 2, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "leaf", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!8 = !DILocation(line: 1, column: 1, scope: !5)
!9 = distinct !DISubprogram(name: "other_leaf", scope: !1, file: !1, line: 2, type: !6, scopeLine: 2, spFlags: DISPFlagDefinition, unit: !0)
!10 = !DILocation(line: 2, column: 1, scope: !9)
