; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1 --implicit-check-not='= alias'
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; Aliases. A weak alias stays with its aliasee in the primary partition,
; and others declare it. Strong aliases (and aliases of aliases) are
; defined with their aliasee; other partitions resolve their uses to the
; aliasee, which they can then inline (bound within the object, dso_local,
; as clang's are outside shared-library code: GlobalOpt resolves no other,
; see odr-alias-resolved-to-aliasee.ll). An alias with an offset is resolved
; to the offset expression. Partition 1 has no alias at all (anywhere in
; its output: --implicit-check-not, since aliases print after globals).
; Fails if: shim/ir_ops.cpp mtpc_resolve_alias() replaces a strong alias's uses but no longer erases it (partition 1 keeps its aliases).
; P0: @strong_sum = dso_local alias i32 (i32, i32), ptr @impl_sum
; P0: @strong_of_strong = dso_local alias i32 (i32, i32), ptr @strong_sum
; P0: @weak_sum = weak dso_local alias i32 (i32, i32), ptr @impl_sum
; P0: define dso_local i32 @impl_sum(
; P1: @data = external dso_local global [2 x i32]
; P1: define available_externally dso_local i32 @impl_sum(
; P1: call i32 @impl_sum(i32 %x, i32 1)
; P1: load i32, ptr getelementptr inbounds ([2 x i32], ptr @data, i32 0, i32 1)
; P2: @data_second = dso_local alias i32, getelementptr inbounds ([2 x i32], ptr @data, i32 0, i32 1)
; P2: call i32 @weak_sum(
; P2: declare dso_local i32 @weak_sum(i32, i32)

@data = dso_local global [2 x i32] [i32 40, i32 2]
@data_second = dso_local alias i32, getelementptr inbounds ([2 x i32], ptr @data, i32 0, i32 1)
define dso_local i32 @impl_sum(i32 %a, i32 %b) {
  %s = add i32 %a, %b
  ret i32 %s
}
@strong_sum = dso_local alias i32 (i32, i32), ptr @impl_sum
@strong_of_strong = dso_local alias i32 (i32, i32), ptr @strong_sum
@weak_sum = weak dso_local alias i32 (i32, i32), ptr @impl_sum
define i32 @user_strong(i32 %x) {
  %r = call i32 @strong_of_strong(i32 %x, i32 1)
  %v = load i32, ptr @data_second
  %s = add i32 %r, %v
  %t = add i32 %s, 1
  %u = add i32 %t, 1
  ret i32 %u
}
define i32 @user_weak(i32 %x) {
  %r = call i32 @weak_sum(i32 %x, i32 2)
  %s = add i32 %r, 1
  ret i32 %s
}
