; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=READER
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=OWNER
; RUN: opt -O1 %t.0.bc -o /dev/null

; A small constant that names a function through `no_cfi` is not copied
; into the partition that reads it (its table is only declared there), and
; it is defined where that function is. A copy would die once its loads
; fold, and LLVM 16's GlobalDCE crashes erasing a function that a dead
; `no_cfi` still names (found by the stress test, seed 1368); the last RUN
; line is that optimization of the reading partition.
; Fails if: symbol_rules.rs refs_reachable_from stops refusing globals
; with no_cfi_of (the reader's partition then holds an available_externally
; @table, and opt crashes).
; OWNER: @table = constant { ptr, i32 } { ptr no_cfi @target, i32 7 }
; OWNER: define void @target(
; READER: @table = external constant { ptr, i32 }
; READER-NOT: define {{.*}} @target(
; READER: define i32 @reader(
; READER-NOT: define {{.*}} @target(

@table = constant { ptr, i32 } { ptr no_cfi @target, i32 7 }
define void @target() {
  ret void
}
define i32 @reader() {
  %p = getelementptr { ptr, i32 }, ptr @table, i32 0, i32 1
  %v = load i32, ptr %p
  %a = add i32 %v, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  ret i32 %d
}
