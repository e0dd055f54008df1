; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s
; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' %s -o %t.bc
; RUN: llc -filetype=obj %t.bc -o %t.o

; -fsanitize=function: clang names in each checked function's !func_sanitize
; metadata a private proxy of the function type's type info, and lists the
; proxy in llvm.compiler.used. A partition with a copy of such a function
; (a template's, here @tmpl in both) needs the proxy: metadata does not keep
; a global alive, and the code generator reads the proxy through it for the
; function's prologue (a null operand crashed LLVM 16's AsmPrinter, found on
; 2026-12-07 with a C++ program at -fsanitize=undefined). Each partition
; gets its own private copy, kept in its llvm.compiler.used.
; Fails if: module_facts.rs mark_addresses_in_data counts llvm.compiler.used
; as data holding the proxy's address (the proxy is then promoted, the other
; partition's copy is an unused available_externally copy, erased, and its
; metadata names null).
; CHECK-DAG: @__llvm_rtti_proxy = private unnamed_addr constant ptr @_ZTIFivE
; CHECK-DAG: @llvm.compiler.used = appending global [1 x ptr] [ptr @__llvm_rtti_proxy], section "llvm.metadata"
; CHECK-DAG: define linkonce_odr i32 @tmpl() {{.*}}!func_sanitize ![[M:[0-9]+]]
; CHECK-DAG: ![[M]] = !{i32 846595819, ptr @__llvm_rtti_proxy}
target triple = "x86_64-pc-linux-gnu"

$tmpl = comdat any

@_ZTIFivE = external constant ptr
@__llvm_rtti_proxy = private unnamed_addr constant ptr @_ZTIFivE
@llvm.compiler.used = appending global [1 x ptr] [ptr @__llvm_rtti_proxy], section "llvm.metadata"

define linkonce_odr i32 @tmpl() noinline comdat !func_sanitize !0 {
  ret i32 7
}

define i32 @a(i32 %n) noinline {
  %r = call i32 @tmpl()
  %s = add i32 %r, %n
  ret i32 %s
}

define i32 @b(i32 %n) noinline {
  %r = call i32 @tmpl()
  %s = mul i32 %r, %n
  ret i32 %s
}

!0 = !{i32 846595819, ptr @__llvm_rtti_proxy}
