; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; A mutable external variable is defined by one partition and declared,
; without initializer, by the others.
; Fails if: partition_builder.rs apply() step 2 keeps the initializer of a variable the partition only declares.
; P0: @counter = global i32 42
; P1: @counter = external global i32
; P1-NOT: @counter = global

@counter = global i32 42

define void @bump_a() {
  %v = load i32, ptr @counter
  %w = add i32 %v, 1
  store i32 %w, ptr @counter
  %x = add i32 %w, 1
  %y = add i32 %x, 1
  ret void
}
define void @bump_b() {
  %v = load i32, ptr @counter
  %w = add i32 %v, 2
  store i32 %w, ptr @counter
  ret void
}
