; RUN: llvm-readelf --dynamic-table %mtpc | FileCheck %s

; The hosts unload their plugins as they exit, while mtpc's worker threads
; may still be starting inside the library: libmtpc.so is linked with
; -z nodelete so that it is never unmapped under them (without it, about
; one `opt` run in 200 crashed at exit with "pure virtual method called"
; or a segfault in the threads' TLS set-up).
; Fails if: plugin/build.rs no longer links with -z nodelete.
; CHECK: FLAGS_1
; CHECK-SAME: NODELETE
