/* Calls to a function marked warning(...): one of them in a helper that is
 * inlined into two functions, which the code generator reports as two
 * calls, and one more of its own. */
#include <stdio.h>
volatile int slow_calls; /* the calls are not merged: each is one of its own */
__attribute__((noinline, warning("slow_path is slow"))) int slow_path(int n) { return n - ++slow_calls; }
static inline __attribute__((always_inline)) int careful(int n) { return n > 1000 ? slow_path(n) : n; }
__attribute__((noinline)) int first(int n) { return careful(n) * 3; }
__attribute__((noinline)) int second(int n) { return careful(n + 7) + slow_path(n); }
int main(int argc, char **argv) {
  printf("%d %d\n", first(argc), second(argc));
  return 0;
}
