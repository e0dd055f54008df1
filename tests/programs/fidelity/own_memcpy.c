/* A program with a memcpy of its own, a static function: in stock's object
   it takes every call to memcpy, those the code generator makes for a
   structure's copy included. It counts them. No headers: the declarations
   it needs are its own. */
typedef unsigned long size_t;
int printf(const char *, ...);

static int copies;

__attribute__((noinline)) static void *memcpy(void *to, const void *from, size_t n) {
  char *d = to;
  const char *s = from;
  copies++;
  while (n--)
    *d++ = *s++;
  return to;
}

struct block { int words[1024]; }; /* 4 KiB: a copy the code generator calls memcpy for, with any vector width */

__attribute__((noinline)) void copy_block(struct block *to, const struct block *from) { *to = *from; }
__attribute__((noinline)) void copy_bytes(void *to, const void *from, size_t n) { memcpy(to, from, n); }
__attribute__((noinline)) void copy_halves(void *to, const void *from, size_t n) {
  memcpy(to, from, n / 2);
  memcpy((char *)to + n / 2, (const char *)from + n / 2, n - n / 2);
}

int main(void) {
  static struct block a, b;
  char text[8];
  a.words[3] = 7;
  copy_block(&b, &a);
  copy_bytes(text, "abcdefg", 8);
  copy_halves(text, "gfedcba", 8);
  printf("%d copies, %d, %s\n", copies, b.words[3], text);
  return 0;
}
