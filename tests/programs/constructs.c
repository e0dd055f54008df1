/* Every IR construct the split must handle, in one C program whose output
 * is compared between a stock and a split build (tests/e2e_split.py).
 * Build with -fcommon so that `common_counter` has common linkage. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

/* common linkage (-fcommon) and extern_weak (never defined anywhere) */
int common_counter;
extern int weak_missing(void) __attribute__((weak));

/* thread-local variables, internal and external */
static __thread int tls_local = 7;
__thread long tls_global = 100;
/* a thread-local alias of another model than its aliasee's, which code
 * reads only through the alias: its model, not local-exec, lets the
 * object link into a shared library (tests/e2e_parallel.py) */
static __thread long tls_exec __attribute__((tls_model("local-exec"))) = 5;
extern __thread long tls_exec_alias __attribute__((alias("tls_exec")));

/* internal state shared by many functions: promoted when split */
static int state[64];
static const int primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
static const char *const words[] = {"alpha", "beta", "gamma", "delta"};

/* a constant table large enough not to be copied */
static const unsigned short big_table[8192] = {[0] = 1, [100] = 7, [8191] = 9};

/* section attribute with linker-generated bounds: order must survive */
struct reg { const char *name; int prio; };
#define REGISTER(n, p) \
  static const struct reg reg_##n __attribute__((used, section("mtpc_regs"), aligned(8))) = {#n, p}
REGISTER(first, 1);
REGISTER(second, 2);
REGISTER(third, 3);
extern const struct reg __start_mtpc_regs[], __stop_mtpc_regs[];

/* aliases: strong, weak, alias of alias, alias with an offset */
int impl_sum(int a, int b) { return a + b + common_counter; }
int strong_sum(int, int) __attribute__((alias("impl_sum")));
int weak_sum(int, int) __attribute__((weak, alias("impl_sum")));
int data_pair[2] = {40, 2};
extern int data_pair_alias[2] __attribute__((alias("data_pair")));

/* ifunc with a static resolver */
static int mul_generic(int a, int b) { return a * b; }
static void *resolve_mul(void) { return (void *)mul_generic; }
int fast_mul(int, int) __attribute__((ifunc("resolve_mul")));

/* constructors and destructors */
static int ctor_ran;
__attribute__((constructor)) static void early_init(void) { ctor_ran = 42; state[0] = 1; }
__attribute__((destructor)) static void late_fini(void) { fflush(stdout); }

/* computed goto: the function and its label table must stay together */
static int interpret(const unsigned char *code, int n) {
  static const void *const dispatch[] = {&&op_add, &&op_sub, &&op_mul, &&op_end};
  int acc = 0, pc = 0;
#define NEXT goto *dispatch[pc < n ? code[pc++] : 3]
  NEXT;
op_add: acc += 3; NEXT;
op_sub: acc -= 1; NEXT;
op_mul: acc *= 2; NEXT;
op_end: return acc;
}

/* inline asm with local labels, in a function that may be inlined */
static inline int count_bits(unsigned v) {
  int n;
  __asm__("xorl %0, %0\n"
          "1:\n\t"
          "testl %1, %1\n\t"
          "jz 2f\n\t"
          "leal -1(%1), %%ecx\n\t"
          "andl %%ecx, %1\n\t"
          "incl %0\n\t"
          "jmp 1b\n"
          "2:"
          : "=&r"(n), "+r"(v) : : "ecx", "cc");
  return n;
}

/* module-level asm that calls a local symbol by name: must not be renamed */
__attribute__((used)) static int asm_helper(int x) { return x * 3 + state[1]; }
__asm__(".text\n.globl asm_entry\n.type asm_entry,@function\nasm_entry:\n\tjmp asm_helper\n");
extern int asm_entry(int);

/* function pointers: a table of internal handlers */
static int h_inc(int x) { state[2]++; return x + 1; }
static int h_dbl(int x) { return x * 2; }
static int h_neg(int x) { return -x; }
static int (*const handlers[])(int) = {h_inc, h_dbl, h_neg};

/* mutual recursion (an SCC) */
static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

/* static locals and unnamed constants (compound literals) */
static int next_id(void) { static int id = 1000; return id++; }
static int sum_literal(void) {
  const int *p = (const int[]){4, 8, 15, 16, 23, 42};
  int s = 0;
  for (int i = 0; i < 6; i++) s += p[i];
  return s;
}

/* a static function its only caller both calls and passes on: every
 * partition that inlines `notify` must pass the one `on_event` (a private
 * copy of it per partition would give it several addresses) */
static const void *listeners[8];
static int listener_count;
static void on_event(const void *self) {
  if (listener_count < 8) listeners[listener_count++] = self;
}
void notify(void) { on_event((const void *)on_event); }
static int listeners_differ(void) {
  int differ = 0;
  for (int i = 1; i < listener_count; i++) differ += listeners[i] != listeners[0];
  return differ;
}

/* literals the linker does not merge (embedded NULs): a pointer read from
 * the table in one function must equal the same entry folded in another,
 * and the literal of a small function inlined in both must be one object,
 * whichever partitions they are in */
static const char *const tokens[] = {"ab\0cd", "ef\0gh", "ij\0kl"};
static const char *marker(void) { return "mk\0r"; }
__attribute__((noinline)) const char *token(int i) { return i < 0 ? marker() : tokens[i]; }
__attribute__((noinline)) int is_second_token(const char *t) { return t == tokens[1]; }
__attribute__((noinline)) int same_pointer(const void *a, const void *b) { return a == b; }

/* large functions that many callers share */
static unsigned long hash_words(int rounds) {
  unsigned long h = 5381;
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < 4; i++)
      for (const char *c = words[i]; *c; c++) h = h * 33 + (unsigned char)*c + (unsigned long)primes[(i + r) % 12];
  return h;
}
unsigned long work_a(int n) { unsigned long s = 0; notify(); for (int i = 0; i < n; i++) s += hash_words(i % 5) ^ (unsigned long)handlers[i % 3](i); return s; }
unsigned long work_b(int n) { unsigned long s = 0; notify(); for (int i = 0; i < n; i++) s = s * 31 + (unsigned long)count_bits((unsigned)i * 2654435761u); return s; }
unsigned long work_c(int n) { unsigned long s = 0; notify(); for (int i = 0; i < n; i++) s += (unsigned long)big_table[(i * 37) % 8192] + (unsigned long)is_even((unsigned)i % 50) + (unsigned long)tls_exec_alias; return s; }

/* a local function with a jump table, called out of line from functions
 * that other partitions compile: its sections (.text.mix, .rodata.mix with
 * -ffunction-sections) are named after it, as in stock's object */
__attribute__((noinline)) static int mix(int op, int x) {
  switch (op) {
  case 0: return x + 7;
  case 1: return x * 3 + state[3];
  case 2: return x ^ 0x55;
  case 3: return x - 9 * state[1];
  case 4: return x << 2;
  case 5: return x / 3 + ctor_ran;
  default: return x;
  }
}
unsigned long mixed_a(int n) { unsigned long s = 0; for (int i = 0; i < n; i++) s = s * 7 + (unsigned long)mix(i % 7, i); return s; }
unsigned long mixed_b(int n) { unsigned long s = 1; for (int i = 0; i < n; i++) s += (unsigned long)mix((i * 5) % 7, i ^ 3); return s; }

static void *thread_fn(void *arg) { tls_local += 1; tls_global += (long)arg; return NULL; }

int main(void) {
  printf("ctor %d, common %d, weak %s\n", ctor_ran, common_counter, weak_missing ? "present" : "absent");
  common_counter = 3;
  printf("aliases %d %d %d %d\n", strong_sum(1, 2), weak_sum(3, 4), data_pair_alias[0] + data_pair_alias[1], impl_sum(0, 0));
  printf("ifunc %d\n", fast_mul(6, 7));
  static const unsigned char program[] = {0, 0, 2, 1, 2, 0};
  printf("goto %d\n", interpret(program, (int)sizeof program));
  printf("asm %d %d\n", count_bits(0xF0F0u), asm_entry(5));
  thread_fn((void *)5);
  tls_exec_alias += 2;
  printf("tls %d %ld %ld\n", tls_local, tls_global, tls_exec_alias);
  for (const struct reg *r = __start_mtpc_regs; r < __stop_mtpc_regs; r++) printf("reg %s %d\n", r->name, r->prio);
  printf("ids %d %d literal %d\n", next_id(), next_id(), sum_literal());
  printf("work %lu %lu %lu state %d\n", work_a(300), work_b(300), work_c(300), state[2]);
  printf("parity %d %d\n", is_even(10), is_odd(7));
  printf("mixed %lu %lu\n", mixed_a(100), mixed_b(100));
  printf("listeners %d, differ %d\n", listener_count, listeners_differ());
  printf("tokens %d %d %d %d %d\n", is_second_token(token(1)), is_second_token(token(2)), same_pointer(token(0), tokens[0]),
         same_pointer(token(2), tokens[2]), same_pointer(token(-1), marker()));
  return 0;
}
