; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0 --implicit-check-not=@impl
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; A strong alias always stands for this object's definition, even where the
; linker binds its aliasee (weak here) to another object's: a partition that
; calls @api declares @api, never resolves it to @impl (then a program that
; overrides impl would see its own impl called through api). The same for
; @api2, a strong alias of that alias. (The strong alias of a strong
; definition is resolved: aliases.ll; the verifier refuses an alias of an
; interposable alias.)
; Fails if: GlobalFacts::resolves_to_aliasee ignores bound_to_aliasee (P0
; would call @impl).
; P0: define i32 @user(
; P0: call i32 @api(i32 %x)
; P0: call i32 @api2(i32 %x)
; P0: declare i32 @api(i32)
; P0: declare i32 @api2(i32)
; P1: @api = alias i32 (i32), ptr @impl
; P1: @api2 = alias i32 (i32), ptr @api
; P1: define weak i32 @impl(

define weak i32 @impl(i32 %a) noinline {
  %s = add i32 %a, 1
  ret i32 %s
}
@api = alias i32 (i32), ptr @impl
@api2 = alias i32 (i32), ptr @api

define i32 @user(i32 %x) {
  %a = call i32 @api(i32 %x)
  %b = call i32 @api2(i32 %x)
  %s = add i32 %a, %b
  %t = add i32 %s, 3
  %u = mul i32 %t, %x
  %v = xor i32 %u, 5
  ret i32 %v
}
