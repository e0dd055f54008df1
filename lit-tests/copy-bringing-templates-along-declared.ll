; RUN: rm -f %t.*.bc
; RUN: env MTPC_TEST_COPY_LIMITS=60,150,150,4096,4294967295,5 \
; RUN:   %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2 --implicit-check-not=_Z4tmpl
; A small function copied where it is called brings along the C++ inline
; and template groups it calls (a partition holding a body holds what the
; body calls). It is copied only if what it brings that the partition does
; not hold already is within CopyLimits.brought_along (lowered here to 5
; instructions; the template has 7): in C++ one small out-of-line member can
; call thousands of instructions of templates.
; Fails if: symbol_rules.rs copies by size whatever they bring along.
; The three callers are too large to share a partition; the member goes
; with a caller that uses the template too (they share its copy).
; P0: define i32 @caller_b(
; P0: define i32 @_ZN1S6memberEi(
; P0: define linkonce_odr i32 @_Z4tmplIiEii(
; caller_c calls the template itself: the member's copy brings nothing new.
; P1: define i32 @caller_c(
; P1: define available_externally i32 @_ZN1S6memberEi(
; P1: define linkonce_odr i32 @_Z4tmplIiEii(
; caller_a does not: the member is declared, the template not there at all.
; P2: define i32 @caller_a(
; P2: declare i32 @_ZN1S6memberEi(

$_Z4tmplIiEii = comdat any

define i32 @caller_a(i32 %x) {
  %r = call i32 @_ZN1S6memberEi(i32 %x)
  %s = add i32 %r, 1
  %t = mul i32 %s, %r
  %u = xor i32 %t, 7
  %v = add i32 %u, %t
  %w = mul i32 %v, %u
  %a = add i32 %w, %v
  %b = mul i32 %a, %w
  %c = xor i32 %b, %a
  %d = add i32 %c, %b
  ret i32 %d
}
define i32 @caller_b(i32 %x) {
  %r = call i32 @_ZN1S6memberEi(i32 %x)
  %t = call i32 @_Z4tmplIiEii(i32 %r)
  %u = xor i32 %t, 7
  %v = add i32 %u, %t
  %w = mul i32 %v, %u
  %a = add i32 %w, %v
  %b = mul i32 %a, %w
  %c = xor i32 %b, %a
  %d = add i32 %c, %b
  ret i32 %d
}
define i32 @caller_c(i32 %x) {
  %r = call i32 @_ZN1S6memberEi(i32 %x)
  %t = call i32 @_Z4tmplIiEii(i32 %r)
  %u = xor i32 %t, 9
  %v = add i32 %u, %t
  %w = mul i32 %v, %u
  %a = add i32 %w, %v
  %b = mul i32 %a, %w
  %c = xor i32 %b, %a
  %d = add i32 %c, %b
  ret i32 %d
}
define i32 @_ZN1S6memberEi(i32 %x) {
  %r = call i32 @_Z4tmplIiEii(i32 %x)
  ret i32 %r
}
define linkonce_odr i32 @_Z4tmplIiEii(i32 %x) comdat {
  %a = mul i32 %x, 3
  %b = add i32 %a, 5
  %c = xor i32 %b, %x
  %d = mul i32 %c, %b
  %e = add i32 %d, %a
  %f = xor i32 %e, %c
  ret i32 %f
}
