/* SanitizerCoverage's callbacks (compiled without instrumentation): number
 * every trace-pc-guard guard at start-up and count each guard hit once;
 * count the inline 8-bit counters and the entries of the PC table, and
 * the table's entries that are no code address (a function's table left
 * where its body is not: a block's address LLVM replaced by 1); print all
 * at exit, so that the test compares how much of the program was
 * instrumented and reached. */
#include <stdint.h>
#include <stdio.h>
static uint32_t guards, hits;
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  for (uint32_t *g = start; g < stop; g++)
    if (!*g)
      *g = ++guards;
}
void __sanitizer_cov_trace_pc_guard(uint32_t *g) {
  if (*g) {
    hits++;
    *g = 0;
  }
}
static uint32_t counters, pcs, bad_pcs;
void __sanitizer_cov_8bit_counters_init(char *start, char *stop) { counters += stop - start; }
void __sanitizer_cov_pcs_init(const uintptr_t *start, const uintptr_t *stop) {
  /* Pairs of a block's address and flags. */
  for (const uintptr_t *entry = start; entry + 1 < stop; entry += 2) {
    pcs++;
    if (entry[0] < 4096)
      bad_pcs++;
  }
}
__attribute__((destructor)) static void report(void) {
  fprintf(stderr, "guards %u hit %u counters %u pcs %u (%u not code)\n", guards, hits, counters, pcs, bad_pcs);
}
