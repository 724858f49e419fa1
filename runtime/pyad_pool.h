/* pyad_pool.h: the runtime's private per-thread cache of large buffers (pyad_pool.c).
 * Not installed: generated code and users see only pyad_rt.h. */
#ifndef PYAD_POOL_H
#define PYAD_POOL_H

#include <stddef.h>

/* Buffers smaller than this go to malloc directly (its own caches serve them well). */
#define PYAD_POOL_MIN_BYTES ((size_t)32 * 1024)

/* A cached buffer of at least `bytes` bytes (the smallest that fits, and not more than twice
 * as large), its capacity in *cap; NULL when the thread holds none (the caller mallocs).
 * The contents are whatever the last user left. */
void *pyad_pool_take(size_t bytes, size_t *cap);

/* Give buffer `p` of capacity `cap` (from malloc or pyad_pool_take) back: the thread keeps it
 * for its next calls while its cache holds less than its budget, else frees it. */
void pyad_pool_give(void *p, size_t cap);

/* The tape buffer this thread released last (any size; its capacity in *cap), or NULL. */
void *pyad_pool_take_tape(size_t *cap);

/* Give a tape buffer back: kept if it is the thread's largest and within the budget. */
void pyad_pool_give_tape(void *p, size_t cap);

#endif
