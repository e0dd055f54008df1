/* Links two split sources that both have a static `helper` and `table`. */
#include <stdio.h>
int first_a(int), second_a(int), first_b(int), second_b(int);
int main(void) {
  long s = 0;
  for (int i = 0; i < 100; i++) s = s * 3 + first_a(i) + second_a(i) - first_b(i) + second_b(i);
  printf("%ld\n", s);
  return 0;
}
