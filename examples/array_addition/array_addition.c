/* array_addition.c - the program of the FMV article ("Function multi-versioning
 * in GCC 6", 2016), the first example of `fmvgen demo`.
 *
 * The article's foo() recomputed a[i] = b[i] + c[i] MAX times from the same
 * inputs; modern GCC sees that every pass but the last is dead and deletes
 * the outer loop, so its timing table can no longer be reproduced. Here each
 * pass feeds its result back into c (c[i] = a[i] >> 1), so pass x+1 depends
 * on pass x and the loop must run, and main prints a checksum of a[] so that
 * the builds compared by the demo can be checked to compute the same thing.
 * The shift keeps every value below 2^9: no overflow, whatever MAX is.
 *
 * foo() carries no attribute: `fmvgen patch` adds target_clones to it.
 * Usage: array_addition [PASSES]   (default MAX; the demo's --quick uses fewer) */
#include <stdio.h>
#include <stdlib.h>

#define MAX 10000000
int a[256], b[256], c[256];

void foo(int passes){
    int i,x;

    for (x=0; x<passes; x++){
        for (i=0; i<256; i++){
            a[i] = b[i] + c[i];
        }
        for (i=0; i<256; i++){
            c[i] = a[i] >> 1;
        }
    }
}

int main(int argc, char **argv) {
    int passes = argc > 1 ? atoi(argv[1]) : MAX;
    unsigned long checksum = 0;
    int i;

    if (passes <= 0) {
        fprintf(stderr, "usage: array_addition [PASSES>0]\n");
        return 2;
    }
    for (i=0; i<256; i++){
        b[i] = i;
        c[i] = 255 - i;
    }
    foo(passes);
    for (i=0; i<256; i++)
        checksum = checksum * 31 + a[i];
    printf("array_addition checksum %lu\n", checksum);
    return 0;
}
