/* shuffle.c - see shuffle.h. */
#include "util/shuffle.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void shuffle_round_order(uint64_t seed, size_t round, size_t n, size_t *order)
{
    uint64_t state = seed ^ ((uint64_t)round * 0xd1b54a32d192ed03ULL);
    splitmix64(&state);
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = n; i > 1; i--) {
        /* j uniform in [0, i): the modulo bias of a 64-bit draw is nil here */
        size_t j = (size_t)(splitmix64(&state) % (uint64_t)i);
        size_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

uint64_t shuffle_new_seed(void)
{
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed)
        seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
    return seed & ((1ULL << 53) - 1);
}
