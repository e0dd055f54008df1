; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; A partition that reads a thread-local variable through a strong alias
; defined elsewhere declares the alias itself, with the alias's own
; thread-local model (here the default, general-dynamic): resolved to the
; aliasee, its accesses would take @tls's local-exec model, which code in a
; shared library cannot use. The internal alias is promoted (hidden) for
; that. A direct use of @tls keeps @tls's model. The module is shared-library
; code (PIC, not PIE), so the declaration of the default-visibility alias is
; not dso_local, though its definition is. (A strong alias that is not
; thread-local is still resolved: aliases.ll.)
; Fails if: GlobalFacts::resolves_to_aliasee resolves thread-local aliases
; (P0 would load both aliases from @tls).
; P0: @tls.mtpc.[[HASH:[0-9a-f]+]] = external hidden thread_local(localexec) global i64
; P0-NEXT: @tls_external = external thread_local global i64
; P0-NEXT: @tls_internal.mtpc.[[HASH]] = external hidden thread_local global i64
; P0: define i64 @uses_all_three()
; P0: load i64, ptr @tls.mtpc.[[HASH]]
; P0: load i64, ptr @tls_external
; P0-NEXT: load i64, ptr @tls_internal.mtpc.[[HASH]]
; P1: @tls.mtpc.[[HASH:[0-9a-f]+]] = hidden thread_local(localexec) global i64 7
; P1: @tls_external = dso_local thread_local alias i64, ptr @tls.mtpc.[[HASH]]
; P1-NEXT: @tls_internal.mtpc.[[HASH]] = hidden thread_local alias i64, ptr @tls.mtpc.[[HASH]]

@tls = internal thread_local(localexec) global i64 7, align 8
@tls_external = dso_local thread_local alias i64, ptr @tls
@tls_internal = internal thread_local alias i64, ptr @tls

define i64 @reader() {
  %a = load i64, ptr @tls_external
  %b = load i64, ptr @tls_internal
  %s = add i64 %a, %b
  ret i64 %s
}

define i64 @uses_all_three() {
  %v = load i64, ptr @tls
  %w = add i64 %v, 1
  %a = load i64, ptr @tls_external
  %b = load i64, ptr @tls_internal
  %x = add i64 %w, %a
  %y = add i64 %x, %b
  ret i64 %y
}

!llvm.module.flags = !{!0}
!0 = !{i32 8, !"PIC Level", i32 2}
