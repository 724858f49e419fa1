/* pyad_pool.c: a per-thread cache of the large buffers calls allocate (arena arrays, tapes).
 *
 * A call's arrays and tape live until the call returns; the next call of the same function
 * asks for the same sizes again. Handing those buffers back to malloc made glibc return the
 * pages to the kernel (heap trimming, munmap) and fault fresh zero pages in on the next call:
 * on a 2-core VM that was half the time of an array-style MLP gradient. Each thread keeps up
 * to POOL_BUDGET bytes of released arrays (at most POOL_SLOTS of them), reusing the smallest
 * that fits, and its largest released tape (up to POOL_BUDGET more). A thread's cache is freed when the thread exits (a pthread key
 * destructor); the main thread's lives until the process ends.
 */
#include "pyad_pool.h"

#include <pthread.h>
#include <stdlib.h>

#define POOL_SLOTS 128
#define POOL_BUDGET ((size_t)64 << 20)

typedef struct pool {
    void *buf[POOL_SLOTS];
    size_t cap[POOL_SLOTS];
    int n;
    size_t bytes;
    void *tape;
    size_t tape_cap;
} pool;

static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static int pool_key_ok;
static _Thread_local pool *thread_pool;

static void pool_destroy(void *arg) {
    pool *p = arg;
    for (int i = 0; i < p->n; i++) free(p->buf[i]);
    free(p->tape);
    free(p);
    thread_pool = NULL;
}

static void pool_key_make(void) { pool_key_ok = pthread_key_create(&pool_key, pool_destroy) == 0; }

/* This thread's pool, created on first use; NULL if it cannot be (then nothing is cached). */
static pool *this_pool(void) {
    if (thread_pool) return thread_pool;
    pthread_once(&pool_once, pool_key_make);
    if (!pool_key_ok) return NULL;
    thread_pool = calloc(1, sizeof *thread_pool);
    if (thread_pool && pthread_setspecific(pool_key, thread_pool) != 0) {
        free(thread_pool);
        thread_pool = NULL;
    }
    return thread_pool;
}

void *pyad_pool_take(size_t bytes, size_t *cap) {
    pool *p = thread_pool;
    int best = -1;
    void *buf;
    if (!p || bytes < PYAD_POOL_MIN_BYTES) return NULL;
    for (int i = 0; i < p->n; i++)
        if (p->cap[i] >= bytes && p->cap[i] / 2 <= bytes && (best < 0 || p->cap[i] < p->cap[best]))
            best = i;
    if (best < 0) return NULL;
    buf = p->buf[best];
    *cap = p->cap[best];
    p->bytes -= p->cap[best];
    p->n--;
    p->buf[best] = p->buf[p->n];
    p->cap[best] = p->cap[p->n];
    return buf;
}

void pyad_pool_give(void *buf, size_t cap) {
    pool *p;
    if (!buf) return;
    p = cap >= PYAD_POOL_MIN_BYTES ? this_pool() : NULL;
    if (!p || p->n == POOL_SLOTS || cap > POOL_BUDGET - p->bytes) {
        free(buf);
        return;
    }
    p->buf[p->n] = buf;
    p->cap[p->n] = cap;
    p->n++;
    p->bytes += cap;
}

void *pyad_pool_take_tape(size_t *cap) {
    pool *p = thread_pool;
    void *buf;
    if (!p || !p->tape) return NULL;
    buf = p->tape;
    *cap = p->tape_cap;
    p->tape = NULL;
    p->tape_cap = 0;
    return buf;
}

void pyad_pool_give_tape(void *buf, size_t cap) {
    pool *p;
    if (!buf) return;
    p = cap >= PYAD_POOL_MIN_BYTES && cap <= POOL_BUDGET ? this_pool() : NULL;
    if (!p || cap <= p->tape_cap) {
        free(buf);
        return;
    }
    free(p->tape);
    p->tape = buf;
    p->tape_cap = cap;
}
