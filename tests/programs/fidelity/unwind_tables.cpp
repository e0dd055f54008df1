// Exceptions in a program built without asynchronous unwind tables
// (-fno-asynchronous-unwind-tables): the functions that neither throw nor
// ask for tables (the leaves, noexcept, reached through a table so that no
// partition copies them) and those that throw and catch share the
// module's choice of where call frame information goes. Prints what it
// caught and a sum.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#define LEAF(name, k)                                                                                                  \
  __attribute__((noinline)) unsigned name(unsigned x) noexcept {                                                       \
    unsigned h = x * 2654435761u + k;                                                                                  \
    for (unsigned i = 0; i < (x % 7) + 3; ++i)                                                                         \
      h = (h ^ (h >> 13)) * (0x9e3779b1u + k * i);                                                                    \
    return h % 1000;                                                                                                   \
  }

LEAF(leaf0, 1)
LEAF(leaf1, 2)
LEAF(leaf2, 3)
LEAF(leaf3, 4)
LEAF(leaf4, 5)
LEAF(leaf5, 6)
LEAF(leaf6, 7)
LEAF(leaf7, 8)

unsigned (*const leaves[])(unsigned) noexcept = {leaf0, leaf1, leaf2, leaf3, leaf4, leaf5, leaf6, leaf7};

__attribute__((noinline)) unsigned checked(unsigned x) {
  if (x % 5 == 4)
    throw std::runtime_error("a multiple of five, less one");
  return x;
}

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? unsigned(std::atoi(argv[1])) : 20;
  unsigned sum = 0;
  for (unsigned i = 0; i < n; ++i) {
    try {
      sum += leaves[i % 8](checked(i));
    } catch (const std::exception &e) {
      std::printf("caught at %u: %s\n", i, e.what());
    }
  }
  std::printf("sum %u\n", sum);
  return 0;
}
