; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; A string literal that a constant table points to is one object in every
; partition: promoted where the table is defined, and an
; available_externally copy (its contents still fold) where the table is
; copied. A private copy there would make the copied table's entry, which
; a load folds to, another address than the one the table holds, and
; `token(1) == tokens[1]` false across partitions. A literal only code
; uses keeps a private copy per partition.
; Fails if: module_facts.rs mark_addresses_in_data() marks nothing, or
; symbol_rules.rs is_local_copyable() ignores address_in_data.
; Each literal is defined once, hidden, with its first user (as the plan
; places data), and every other partition gets an available_externally copy.
; P0: @[[TABLE:tokens\.mtpc\.[0-9a-f]+]] = hidden constant [2 x ptr] [ptr @[[FIRST:\.str\.mtpc\.[0-9a-f]+]], ptr @[[SECOND:\.str\.1\.mtpc\.[0-9a-f]+]]]
; P0-DAG: @[[FIRST]] = hidden unnamed_addr constant [6 x i8] c"ab\00cd\00"
; P0-DAG: @[[SECOND]] = available_externally hidden unnamed_addr constant [6 x i8] c"ef\00gh\00"
; P0-DAG: @.str.2 = private unnamed_addr constant [5 x i8] c"none\00"
; P0: define ptr @token(
; P1: @[[TABLE:tokens\.mtpc\.[0-9a-f]+]] = available_externally hidden constant [2 x ptr] [ptr @[[FIRST:\.str\.mtpc\.[0-9a-f]+]], ptr @[[SECOND:\.str\.1\.mtpc\.[0-9a-f]+]]]
; P1-DAG: @[[FIRST]] = available_externally hidden unnamed_addr constant [6 x i8] c"ab\00cd\00"
; P1-DAG: @[[SECOND]] = hidden unnamed_addr constant [6 x i8] c"ef\00gh\00"
; P1-DAG: @.str.2 = private unnamed_addr constant [5 x i8] c"none\00"
; P1: define i1 @is_second(

@tokens = internal constant [2 x ptr] [ptr @.str, ptr @.str.1]
@.str = private unnamed_addr constant [6 x i8] c"ab\00cd\00"
@.str.1 = private unnamed_addr constant [6 x i8] c"ef\00gh\00"
@.str.2 = private unnamed_addr constant [5 x i8] c"none\00"

define ptr @token(i64 %i) {
  %p = getelementptr [2 x ptr], ptr @tokens, i64 0, i64 %i
  %t = load ptr, ptr %p
  %n = icmp eq ptr %t, null
  %r = select i1 %n, ptr @.str.2, ptr %t
  ret ptr %r
}

define i1 @is_second(ptr %t) {
  %p = getelementptr [2 x ptr], ptr @tokens, i64 0, i64 1
  %s = load ptr, ptr %p
  %e = icmp eq ptr %t, %s
  %n = icmp eq ptr %t, @.str.2
  %r = or i1 %e, %n
  ret i1 %r
}
