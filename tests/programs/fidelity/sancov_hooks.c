/* SanitizerCoverage's trace-pc-guard callbacks (compiled without
 * instrumentation): number every guard at start-up, count each guard hit
 * once, and print both at exit, so that the test compares how much of the
 * program was instrumented and reached. */
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
__attribute__((destructor)) static void report(void) { fprintf(stderr, "guards %u hit %u\n", guards, hits); }
