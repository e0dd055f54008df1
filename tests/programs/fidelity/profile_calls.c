/* A chain of functions that call the next, each of which main calls too,
 * for the profile tests: split for its code generation, a partition that
 * emits main declares every function of the chain, and would write the
 * call graph profile's edges between them that another partition emits.
 * `profile_calls N` prints one number. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) unsigned leaf(unsigned x) { return x * 3 + 1; }

#define STEP(name, next)                                                                                      \
  __attribute__((noinline)) unsigned name(unsigned x) {                                                      \
    unsigned s = 0;                                                                                          \
    for (unsigned i = 0; i < x % 64 + 8; i++)                                                                \
      s += (i * 2654435761u) ^ (s >> 3);                                                                     \
    return s + (x % 4 ? next(x / 2 + 1) : 0);                                                                \
  }

STEP(f7, leaf)
STEP(f6, f7)
STEP(f5, f6)
STEP(f4, f5)
STEP(f3, f4)
STEP(f2, f3)
STEP(f1, f2)
STEP(f0, f1)

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000, t = 0;
  for (unsigned i = 0; i < n; i++)
    t += f0(i) + (i % 7 == 0 ? f1(i) + f2(i) + f3(i) + f4(i) + f5(i) + f6(i) + f7(i) + leaf(i) : 0);
  printf("%u\n", t);
  return 0;
}
