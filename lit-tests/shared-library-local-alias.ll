; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; Shared-library code (PIC, not PIE): the code generator binds the module's
; own references to a dso_local default-visibility definition (@foo, as
; clang makes it with -fno-semantic-interposition) through a local alias, so
; they are never interposed and never go through the PLT. A partition that
; refers to @foo where another defines it names it in its code by a hidden
; alias the owner adds (declared hidden and dso_local, for calls and for the
; address an instruction takes), which binds as locally. Data keeps the
; global name, as the whole module's code generator writes it (an
; R_X86_64_64 against foo, which the program may interpose): @table's
; initializer (a local of @user's partition) names @foo, declared not
; dso_local. @bar is not dso_local (interposable): declared as itself, not
; dso_local.
; Fails if: partition_builder.rs no longer applies SymbolPlan::local_aliases
; (P0 would call @foo, declared without dso_local; with every use renamed,
; @table would name @foo.mtpc.local).
; P0: @table = internal global ptr @foo{{$}}
; P0: declare hidden i32 @foo.mtpc.local(i32)
; P0: declare i32 @bar(i32)
; P0: define i32 @user(
; P0: call i32 @foo.mtpc.local(i32 %x)
; P0: call i32 @bar(i32 %x)
; P0: call void @use(ptr @foo.mtpc.local)
; P0: declare i32 @foo(i32)
; P1: @foo.mtpc.local = hidden alias i32 (i32), ptr @foo
; P1: define dso_local i32 @foo(
; P1: define i32 @bar(

define dso_local i32 @foo(i32 %a) noinline {
  %s = mul i32 %a, %a
  %t = add i32 %s, 1
  %u = xor i32 %t, 7
  ret i32 %u
}

define i32 @bar(i32 %a) noinline {
  %s = call i32 @foo(i32 %a)
  %t = add i32 %s, 2
  ret i32 %t
}

@foo_address = global ptr @foo
@table = internal global ptr @foo

define i32 @user(i32 %x) {
  %a = call i32 @foo(i32 %x)
  %b = call i32 @bar(i32 %x)
  %s = add i32 %a, %b
  %t = mul i32 %s, %x
  %u = xor i32 %t, 5
  %v = add i32 %u, 9
  %f = load ptr, ptr @table
  %w = call i32 %f(i32 %v)
  call void @use(ptr @foo)
  ret i32 %w
}

declare void @use(ptr)

!llvm.module.flags = !{!0}
!0 = !{i32 8, !"PIC Level", i32 2}
