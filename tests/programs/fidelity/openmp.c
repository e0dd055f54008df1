/* OpenMP through the LLVM runtime (libomp): clang outlines each parallel
 * region, task and section into a function that the runtime calls back
 * (__kmpc_fork_call, __kmpc_omp_task_alloc), names shared and private data
 * through its arguments, keeps a named critical section's lock in a
 * common global of its own, and (on Linux) a threadprivate variable in
 * thread-local storage. Each function here may be in a
 * partition of its own: two share one named critical section's lock and
 * two one threadprivate variable. Output is deterministic for any number
 * of threads. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int tp_counter;
#pragma omp threadprivate(tp_counter)

long squares(int n) {
    long sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(dynamic, 7)
    for (int i = 0; i < n; i++)
        sum += (long)i * i;
    return sum;
}

unsigned long mix(int n) {
    unsigned long h = 0;
#pragma omp parallel for reduction(^ : h) schedule(static)
    for (int i = 1; i <= n; i++)
        h ^= (unsigned long)i * 0x9e3779b97f4a7c15ul >> (i & 7);
    return h;
}

long fib(int n) {
    if (n < 16)
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    long a, b;
#pragma omp task shared(a)
    a = fib(n - 1);
#pragma omp task shared(b)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

long tasks(int n) {
    long r = 0;
#pragma omp parallel
#pragma omp single
    r = fib(n);
    return r;
}

int histogram_max(const int *data, int n) {
    int bins[16] = {0};
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
#pragma omp atomic
        bins[data[i] & 15]++;
    }
    int best = 0;
    for (int i = 1; i < 16; i++)
        if (bins[i] > bins[best])
            best = i;
    return best * 1000000 + bins[best];
}

long critical_sum(int n) {
    long total = 0;
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        long v = (long)(i % 97) * 3;
#pragma omp critical(total_lock)
        total += v;
    }
    return total;
}

long sections(int n) {
    long left = 0, right = 0;
#pragma omp parallel sections
    {
#pragma omp section
        for (int i = 0; i < n; i++)
            left += i & 3;
#pragma omp section
        for (int i = 0; i < n; i++)
            right += i % 5;
    }
    return left * 10 + right;
}

/* The same named critical section as critical_sum's: one lock. */
long critical_max(int n) {
    long best = 0;
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        long v = (long)(i * 7919 % 10007);
#pragma omp critical(total_lock)
        if (v > best)
            best = v;
    }
    return best;
}

int threadprivate_total(int n) {
    int total = 0;
#pragma omp parallel reduction(+ : total)
    {
        tp_counter = 0;
#pragma omp for
        for (int i = 0; i < n; i++)
            tp_counter += i % 3;
        total += tp_counter;
    }
    return total;
}

/* Each thread's own counter as threadprivate_total's loop left it (the
 * same team of threads, no dynamic adjustment: each keeps its copy), read
 * by a function in another partition: their sum is that total. */
int threadprivate_again(void) {
    int total = 0;
#pragma omp parallel reduction(+ : total)
    total += tp_counter;
    return total;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    int *data = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++)
        data[i] = (i * 2654435761u) >> 7;
    printf("squares %ld\n", squares(n));
    printf("mix %lx\n", mix(n));
    printf("tasks %ld\n", tasks(24));
    printf("histogram %d\n", histogram_max(data, n));
    printf("critical %ld\n", critical_sum(n));
    printf("sections %ld\n", sections(n));
    printf("critical max %ld\n", critical_max(n));
    int counted = threadprivate_total(n);
    printf("threadprivate %d %d\n", counted, threadprivate_again());
    free(data);
    return 0;
}
