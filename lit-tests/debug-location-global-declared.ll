; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; In optimized input (ThinLTO and full LTO backends), a debug variable's
; location can name a global that no code of its function uses
; (`llvm.dbg.value(metadata ptr @g, ...)`, or its debug record). That is no
; use: without more, the partition holding @look would drop such a global,
; and the location with it. It declares those whose symbol stock's object
; surely defines (@ext_var) and declarations (@ext_fn): the locations stay,
; as in the input. Not a local (a declaration would need a promoted name)
; nor a discardable definition (stock's object may not define it): their
; locations go, as before.
; Fails if: module_facts.rs collect() misses a debug location's global, or
; symbol_rules.rs Rules::partition() declares one it should not.
; P0: define void @set(
; P1: @ext_var = external global i32
; P1-NOT: @local_var
; P1-NOT: @odr_var
; P1: declare void @ext_fn()
; P1-NOT: define void @set(
; P1: define void @look(
; P1: dbg{{[._]}}value({{(metadata )?}}ptr @ext_var,
; P1-NOT: @local_var
; P1-NOT: @odr_var
; P1: dbg{{[._]}}value({{(metadata )?}}ptr @ext_fn,

@ext_var = global i32 0
@local_var = internal global i32 0
@odr_var = linkonce_odr global i32 0

declare void @ext_fn()

define void @set(i32 %v) {
  store i32 %v, ptr @ext_var
  store i32 %v, ptr @local_var
  store i32 %v, ptr @odr_var
  call void @ext_fn()
  %w = add i32 %v, 1
  %x = mul i32 %w, %v
  store i32 %x, ptr @ext_var
  ret void
}

define void @look(i32 %v) !dbg !10 {
  call void @llvm.dbg.value(metadata ptr @ext_var, metadata !13, metadata !DIExpression()), !dbg !17
  call void @llvm.dbg.value(metadata ptr @local_var, metadata !14, metadata !DIExpression()), !dbg !17
  call void @llvm.dbg.value(metadata ptr @odr_var, metadata !15, metadata !DIExpression()), !dbg !17
  call void @llvm.dbg.value(metadata ptr @ext_fn, metadata !16, metadata !DIExpression()), !dbg !17
  %w = add i32 %v, 2
  ret void, !dbg !17
}

declare void @llvm.dbg.value(metadata, metadata, metadata)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "look.c", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!6 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !5, size: 64)
!7 = !DISubroutineType(types: !{null, !5})
!10 = distinct !DISubprogram(name: "look", scope: !1, file: !1, line: 1, type: !7, scopeLine: 1, unit: !0, retainedNodes: !{}, spFlags: DISPFlagDefinition | DISPFlagOptimized)
!13 = !DILocalVariable(name: "at_ext", scope: !10, file: !1, line: 2, type: !6)
!14 = !DILocalVariable(name: "at_local", scope: !10, file: !1, line: 3, type: !6)
!15 = !DILocalVariable(name: "at_odr", scope: !10, file: !1, line: 4, type: !6)
!16 = !DILocalVariable(name: "at_fn", scope: !10, file: !1, line: 5, type: !6)
!17 = !DILocation(line: 2, column: 1, scope: !10)
