; RUN: %opt-mtpc -passes='mtpc-parallel<O0;partitions=2;min-size=0>' %s -o %t.bc
; RUN: llvm-dis %t.bc -o - | FileCheck --check-prefix=SPLIT --implicit-check-not=define %s
; RUN: llc -filetype=obj %t.bc -o %t.o
; RUN: llvm-dwarfdump --debug-frame %t.o | FileCheck %s
; RUN: llc -filetype=obj %s -o %t.stock.o
; RUN: llvm-dwarfdump --debug-frame %t.stock.o | FileCheck %s

; With debug information and without unwind tables (clang -g
; -fno-asynchronous-unwind-tables), the code generator puts every function's
; call frame information in .eh_frame when one function of the module may
; throw (@may_throw_through), in .debug_frame when none does. @leaf's
; partition has none that may throw, yet it puts @leaf's entry in .eh_frame
; as the whole module does (the second llc, stock's): both entries in
; .eh_frame, none in .debug_frame.
; Fails if: partition_compile.cpp stops lending @leaf's partition a throwing
; function while its asm printer decides: the merge's check of the parts'
; frame sections (asm_merge.rs same_frame_sections) then makes the module
; compile whole (SPLIT), and without that check the partition's
; `.cfi_sections .debug_frame` takes both entries out of .eh_frame.
; SPLIT-DAG: module asm "leaf:"
; SPLIT-DAG: module asm "may_throw_through:"
; CHECK: .debug_frame contents:
; CHECK-NOT: FDE
; CHECK: .eh_frame contents:
; CHECK: FDE
; CHECK: FDE
; CHECK-NOT: FDE

source_filename = "unwind.cpp"
target triple = "x86_64-pc-linux-gnu"

define i32 @leaf(i32 %x) nounwind !dbg !5 {
  %y = mul i32 %x, 3, !dbg !8
  ret i32 %y, !dbg !8
}

define void @may_throw_through() !dbg !9 {
  call void @may_throw(), !dbg !10
  ret void, !dbg !10
}

declare void @may_throw()

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "unwind.cpp", directory: "/src")
!3 = !{i32 2, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "leaf", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!8 = !DILocation(line: 1, column: 1, scope: !5)
!9 = distinct !DISubprogram(name: "may_throw_through", scope: !1, file: !1, line: 2, type: !6, scopeLine: 2, spFlags: DISPFlagDefinition, unit: !0)
!10 = !DILocation(line: 2, column: 1, scope: !9)
