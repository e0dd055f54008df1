/* -finstrument-functions hooks (compiled without instrumentation): count
 * function entries and exits and print them at exit. */
#include <stdio.h>
static unsigned long entries, exits;
void __cyg_profile_func_enter(void *fn, void *site) { entries++; }
void __cyg_profile_func_exit(void *fn, void *site) { exits++; }
__attribute__((destructor)) static void report(void) { fprintf(stderr, "entries %lu exits %lu\n", entries, exits); }
