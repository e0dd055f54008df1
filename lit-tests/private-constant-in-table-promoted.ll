; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o %t.0.ll
; RUN: llvm-dis %t.1.bc -o %t.1.ll
; RUN: cat %t.0.ll %t.1.ll | FileCheck %s

; A string literal that a constant table points to is one object in every
; partition, even a C string: promoted (one partition defines it, hidden),
; and an available_externally copy (its contents still fold) in the other,
; under the same name. A private copy there would make the copied table's
; entry, which a load folds to, another address than the one the table
; holds, and `token(1) == tokens[1]` false across partitions. A literal
; only code names ("none") keeps a private copy per partition.
; Fails if: module_facts.rs mark_addresses_in_data() marks nothing, or
; symbol_rules.rs is_local_copyable() ignores address_in_data.
; CHECK: @[[TABLE:tokens\.mtpc\.[0-9a-f]+]] = hidden constant [2 x ptr] [ptr @[[FIRST:\.str\.mtpc\.[0-9a-f]+]], ptr @[[SECOND:\.str\.1\.mtpc\.[0-9a-f]+]]]
; CHECK-DAG: @[[FIRST]] = {{(available_externally )?}}hidden unnamed_addr constant [3 x i8] c"ab\00"
; CHECK-DAG: @[[SECOND]] = {{(available_externally )?}}hidden unnamed_addr constant [3 x i8] c"ef\00"
; CHECK-DAG: @.str.2 = private unnamed_addr constant [5 x i8] c"none\00"
; CHECK: define ptr @token(
; CHECK: @[[TABLE]] = available_externally hidden constant [2 x ptr] [ptr @[[FIRST]], ptr @[[SECOND]]]
; CHECK-DAG: @[[FIRST]] = {{(available_externally )?}}hidden unnamed_addr constant [3 x i8] c"ab\00"
; CHECK-DAG: @[[SECOND]] = {{(available_externally )?}}hidden unnamed_addr constant [3 x i8] c"ef\00"
; CHECK-DAG: @.str.2 = private unnamed_addr constant [5 x i8] c"none\00"
; CHECK: define i1 @is_second(
; Each literal is defined in one partition only.
; RUN: cat %t.0.ll %t.1.ll | FileCheck %s --check-prefix=ONCE
; ONCE-COUNT-1: @.str.mtpc.{{[0-9a-f]+}} = hidden unnamed_addr constant
; ONCE-NOT: @.str.mtpc.{{[0-9a-f]+}} = hidden unnamed_addr constant
; RUN: cat %t.0.ll %t.1.ll | FileCheck %s --check-prefix=ONCE1
; ONCE1-COUNT-1: @.str.1.mtpc.{{[0-9a-f]+}} = hidden unnamed_addr constant
; ONCE1-NOT: @.str.1.mtpc.{{[0-9a-f]+}} = hidden unnamed_addr constant

@tokens = internal constant [2 x ptr] [ptr @.str, ptr @.str.1]
@.str = private unnamed_addr constant [3 x i8] c"ab\00"
@.str.1 = private unnamed_addr constant [3 x i8] c"ef\00"
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
