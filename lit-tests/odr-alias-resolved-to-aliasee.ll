; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefixes=P1,P1-LLVM%llvm-major

; An ODR alias (`weak_odr`, `linkonce_odr`) cannot be replaced by another
; definition at link time, and LLVM 16's GlobalOpt resolves its uses to its
; aliasee in the whole module: `template struct Counter<long>;` defines the
; complete-object constructor C1 as a weak_odr alias of the base-object one,
; C2, and a caller of C1 inlines C2. A partition that only calls C1 resolves
; it too, and gets the copy of C2 it can inline (declared as itself, as
; until 2026-12-07, the call stayed out of line). From LLVM 17 GlobalOpt
; keeps the alias, and so does the partition: it declares C1, as the whole
; module calls it. A `linkonce` alias, which the linker may bind to another
; object's definition, is always declared, and so is one that is not
; dso_local (-fPIC: another library's may interpose it).
; Fails if: ModuleFacts::mark_bound_aliases binds strong aliases only
; (P1-LLVM16 calls @_ZN7CounterIlEC1El), or binds ODR ones whatever the
; major (P1-LLVM19 and P1-LLVM22 call @_ZN7CounterIlEC2El).
; P0: @_ZN7CounterIlEC1El = weak_odr dso_local unnamed_addr alias void (ptr, i64), ptr @_ZN7CounterIlEC2El
; P0: define weak_odr dso_local void @_ZN7CounterIlEC2El(
; P1-LLVM16: define available_externally dso_local void @_ZN7CounterIlEC2El(
; P1: define i64 @main_like(
; P1-NEXT: %c = alloca
; P1-LLVM16-NEXT: call void @_ZN7CounterIlEC2El(ptr %c, i64 %x)
; P1-LLVM19-NEXT: call void @_ZN7CounterIlEC1El(ptr %c, i64 %x)
; P1-LLVM22-NEXT: call void @_ZN7CounterIlEC1El(ptr %c, i64 %x)
; P1-NEXT: call void @any_alias(ptr %c, i64 %x)
; P1-NEXT: call void @preemptible_alias(ptr %c, i64 %x)
; P1-DAG: declare dso_local void @any_alias(ptr, i64)
; P1-DAG: declare void @preemptible_alias(ptr, i64)

target triple = "x86_64-pc-linux-gnu"

$_ZN7CounterIlEC5El = comdat any
@_ZN7CounterIlEC1El = weak_odr dso_local unnamed_addr alias void (ptr, i64), ptr @_ZN7CounterIlEC2El
@any_alias = linkonce dso_local unnamed_addr alias void (ptr, i64), ptr @_ZN7CounterIlEC2El
@preemptible_alias = weak_odr unnamed_addr alias void (ptr, i64), ptr @_ZN7CounterIlEC2El

define weak_odr dso_local void @_ZN7CounterIlEC2El(ptr %this, i64 %start) unnamed_addr comdat($_ZN7CounterIlEC5El) {
  store i64 %start, ptr %this, align 8
  ret void
}

define i64 @owner(i64 %x) {
  %c = alloca i64
  call void @_ZN7CounterIlEC2El(ptr %c, i64 %x)
  %v = load i64, ptr %c
  %w = add i64 %v, 1
  ret i64 %w
}

define i64 @main_like(i64 %x) {
  %c = alloca i64
  call void @_ZN7CounterIlEC1El(ptr %c, i64 %x)
  call void @any_alias(ptr %c, i64 %x)
  call void @preemptible_alias(ptr %c, i64 %x)
  %v = load i64, ptr %c
  %y = mul i64 %v, 3
  %z = add i64 %y, 7
  %a0 = mul i64 %z, 3
  %z0 = add i64 %a0, 1
  %a1 = mul i64 %z0, 4
  %z1 = add i64 %a1, 1
  %a2 = mul i64 %z1, 5
  %z2 = add i64 %a2, 1
  %a3 = mul i64 %z2, 6
  %z3 = add i64 %a3, 1
  %a4 = mul i64 %z3, 7
  %z4 = add i64 %a4, 1
  %a5 = mul i64 %z4, 8
  %z5 = add i64 %a5, 1
  %a6 = mul i64 %z5, 9
  %z6 = add i64 %a6, 1
  %a7 = mul i64 %z6, 10
  %z7 = add i64 %a7, 1
  %a8 = mul i64 %z7, 11
  %z8 = add i64 %a8, 1
  %a9 = mul i64 %z8, 12
  %z9 = add i64 %a9, 1
  %a10 = mul i64 %z9, 13
  %z10 = add i64 %a10, 1
  %a11 = mul i64 %z10, 14
  %z11 = add i64 %a11, 1
  ret i64 %z11
}
