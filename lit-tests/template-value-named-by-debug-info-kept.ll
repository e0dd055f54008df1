; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' %s -o %t.bc
; RUN: llc -filetype=obj %t.bc -o %t.o
; RUN: llvm-dwarfdump --debug-info %t.o | FileCheck %s --check-prefix=DWARF

; A C++ template parameter's value (from: template <void (*F)(int)> struct S
; { int x; }; int user(S<&f> s);) names @f in the description of S<&f>, in
; metadata no code reaches: no use of @f. @user's partition describes S
; but does not call @f, which the other partition defines: without more it
; would drop @f, or its optimizer delete the unused declaration, and the
; value with it (stock's object gives F's address; HarfBuzz's vtable_t<...>
; lost five, and with -fdebug-types-section the type unit's signature
; changed). It declares @f and keeps it in llvm.compiler.used: the value
; stays, and the object names f only there.
; Fails if: module_facts.rs collect() stops noting what metadata names
; (named_by_metadata), symbol_rules.rs declare_what_metadata_names()
; stops declaring it, or partition_builder.rs stops keeping it (step 7).
; P0-NOT: llvm.compiler.used
; P0: define void @f(
; P0-NOT: define i32 @user(
; P1: @llvm.compiler.used = appending global [1 x ptr] [ptr @f], section "llvm.metadata"
; P1: declare {{.*}}void @f(i32)
; P1: define i32 @user(
; DWARF: DW_TAG_template_value_parameter
; DWARF-NEXT: DW_AT_type ({{.*}} "void (*)(int)")
; DWARF-NEXT: DW_AT_name ("F")
; DWARF-NEXT: DW_AT_location (DW_OP_addrx 0x{{[0-9a-f]+}}, DW_OP_stack_value)

source_filename = "tv.cpp"
target triple = "x86_64-pc-linux-gnu"

@counter = global i32 0

define void @f(i32 %v) !dbg !20 {
  %old = load i32, ptr @counter, align 4, !dbg !21
  %sum = add i32 %old, %v, !dbg !21
  %twice = mul i32 %sum, 2, !dbg !21
  store i32 %twice, ptr @counter, align 4, !dbg !21
  ret void, !dbg !21
}

define i32 @user(i32 %x) !dbg !10 {
  call void @llvm.dbg.value(metadata i32 %x, metadata !13, metadata !DIExpression()), !dbg !14
  %y = mul i32 %x, 3, !dbg !14
  %z = add i32 %y, 7, !dbg !14
  %w = xor i32 %z, %x, !dbg !14
  ret i32 %w, !dbg !14
}

declare void @llvm.dbg.value(metadata, metadata, metadata)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "tv.cpp", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!7 = !DISubroutineType(types: !{!5, !30})
!10 = distinct !DISubprogram(name: "user", linkageName: "user", scope: !1, file: !1, line: 5, type: !7, scopeLine: 5, unit: !0, retainedNodes: !{}, spFlags: DISPFlagDefinition | DISPFlagOptimized)
!13 = !DILocalVariable(name: "s", arg: 1, scope: !10, file: !1, line: 5, type: !30)
!14 = !DILocation(line: 6, column: 1, scope: !10)
!19 = !DISubroutineType(types: !{null, !5})
!20 = distinct !DISubprogram(name: "f", linkageName: "f", scope: !1, file: !1, line: 1, type: !19, scopeLine: 1, unit: !0, retainedNodes: !{}, spFlags: DISPFlagDefinition | DISPFlagOptimized)
!21 = !DILocation(line: 2, column: 1, scope: !20)
!30 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "S<&f>", file: !1, line: 3, size: 32, flags: DIFlagTypePassByValue, elements: !{!33}, templateParams: !{!31}, identifier: "_ZTS1SIXadL_Z1fiEEE")
!31 = !DITemplateValueParameter(name: "F", type: !32, value: ptr @f)
!32 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !19, size: 64)
!33 = !DIDerivedType(tag: DW_TAG_member, name: "x", scope: !30, file: !1, line: 3, baseType: !5, size: 32)
