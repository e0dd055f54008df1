/* Indirect calls in functions with a counter each: with -mretpoline every
 * partition's code generator adds the same thunk (a COMDAT group) and
 * writes its static variables after it. `thunks N` prints one number. */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int inc(int x) { return x + 1; }
__attribute__((noinline)) int dbl(int x) { return x * 2; }
int (*volatile ops[2])(int) = {inc, dbl};
/* A function and its own zero-initialized counter (a local common). */
#define COUNTED(name, k)                                                      \
  static int name##_calls;                                                    \
  __attribute__((noinline)) int name(int n) {                                 \
    name##_calls += k;                                                        \
    return ops[n & 1](n) + name##_calls;                                      \
  }
COUNTED(one, 1)
COUNTED(two, 2)
COUNTED(three, 3)
COUNTED(four, 4)
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 5;
  int t = 0;
  for (int i = 0; i < n; i++)
    t += one(i) + 3 * two(i) + (i % 2 ? three(i) : four(i));
  printf("%d\n", t);
  return 0;
}
