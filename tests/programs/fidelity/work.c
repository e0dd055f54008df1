/* A small program whose functions sit in several "files" (#line): loops,
 * branches, a static helper the inliner takes, recursion and a call
 * through a pointer. The fidelity test builds it with coverage, profiling,
 * debug-info and code-generation options, stock and split, and compares
 * what each option promises. `work N` prints one number. */
#include <stdio.h>
#include <stdlib.h>
#line 1 "alpha.h"
__attribute__((noinline)) int alpha(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0)
      s += i;
    else
      s -= 1;
  }
  return s;
}
#line 1 "beta.h"
static int helper(int x) { return x * 2 + 1; }
__attribute__((noinline)) int beta(int n) {
  int s = 0;
  while (n > 0) {
    s += helper(n);
    n /= 2;
  }
  return s;
}
#line 1 "gamma.h"
__attribute__((noinline)) int gamma_(int n) {
  if (n > 100)
    return alpha(n) + beta(n);
  return beta(n) - alpha(n);
}
__attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int (*const pick[2])(int) = {alpha, beta};
#line 40 "work.c"
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  int t = 0;
  for (int i = 0; i < 4; i++)
    t += gamma_(n * i) + pick[i & 1](i);
#ifdef WORK_CHANGED /* main as changed since a profile was taken */
  if (t % 5 == 0)
    t ^= 1;
#endif
  printf("%d %d\n", t, fib(15));
  return 0;
}
