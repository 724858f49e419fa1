/* Calls the gradient library that `pyad compile` made from springs.py and checks it against
 * derivatives worked out by hand below (nothing here comes from pyad).
 *
 *   cd examples/c
 *   pyad compile springs.py:energy,prefix_energy,stretch --sig "f64(f64[:], f64)" \
 *       --sig "f64[:](f64[:])" --sig "f64(f64[:], i64)" --name springs --vmap -o build
 *   cc -std=c11 -Wall -Ibuild main.c -Lbuild -lsprings -Wl,-rpath,"$PWD/build" -lm -pthread -o main
 *   ./main            # prints the checks, exit status 0 when all pass
 *
 * CMakeLists.txt builds and runs it with ctest; tests/test_aot.py does the same by hand.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "springs.h"

#define N 5

static int failures = 0;

static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

static int close_to(double a, double b) {
    return fabs(a - b) <= 1e-12 * (1.0 + fabs(b));
}

/* springs.py:energy and its gradient, by hand. */
static double energy_ref(const double *x, int n, double k, double *gx, double *gk) {
    double e = 0.0;
    int i;
    for (i = 0; i < n; i++) gx[i] = -0.1 * sin(x[i]);
    *gk = 0.0;
    for (i = 0; i + 1 < n; i++) {
        double d = x[i + 1] - x[i] - 1.0;
        e += 0.5 * k * d * d;
        *gk += 0.5 * d * d;
        gx[i + 1] += k * d;
        gx[i] -= k * d;
    }
    for (i = 0; i < n; i++) e += 0.1 * cos(x[i]);
    return e;
}

static void *fail_in_thread(void *arg) {
    const double *x = arg;
    double out;
    int st = springs_stretch(x, N, 99, &out);
    return (void *)(st == SPRINGS_ERR_INDEX && strstr(springs_last_error(), "IndexError") ? x : NULL);
}

int main(void) {
    const double x[N] = {0.3, 1.1, 2.4, 3.0, 4.2};
    const double k = 2.5;
    double value, gx[N], gk, ref_gx[N], ref_gk, ref;
    int i, all;

    /* value and gradient of a loop with array indexing */
    ref = energy_ref(x, N, k, ref_gx, &ref_gk);
    check(springs_energy(x, N, k, &value) == SPRINGS_OK && close_to(value, ref), "energy value");
    check(springs_energy_grad(x, N, k, &value, gx, &gk) == SPRINGS_OK, "energy_grad status");
    all = close_to(value, ref) && close_to(gk, ref_gk);
    for (i = 0; i < N; i++) all = all && close_to(gx[i], ref_gx[i]);
    check(all, "energy_grad value and gradient (d/dx, d/dk)");

    /* an array result: primal and vector-Jacobian product */
    {
        double *y = NULL, ct[N] = {1.0, -2.0, 0.5, 0.25, 3.0}, g[N], tail = 0.0;
        int64_t n = -1;
        check(springs_prefix_energy(x, N, &y, &n) == SPRINGS_OK && n == N, "prefix_energy shape");
        all = y != NULL;
        for (i = 0; all && i < N; i++) {
            tail += x[i] * x[i];
            all = close_to(y[i], tail);
        }
        check(all, "prefix_energy values");
        springs_free(y);
        check(springs_prefix_energy_vjp(x, N, ct, N, NULL, NULL, g) == SPRINGS_OK, "prefix_energy_vjp status");
        all = 1;
        tail = 0.0;
        for (i = N - 1; i >= 0; i--) { /* d<ct, y>/dx_j = 2 x_j (ct_j + ... + ct_{n-1}) */
            tail += ct[i];
            all = all && close_to(g[i], 2.0 * x[i] * tail);
        }
        check(all, "prefix_energy_vjp gradient");
        check(springs_prefix_energy_vjp(x, N, ct, N - 1, NULL, NULL, g) == SPRINGS_ERR_VALUE
                  && strstr(springs_last_error(), "cotangent") != NULL,
              "a cotangent of the wrong shape is refused");
    }

    /* a branch, and errors */
    check(springs_stretch(x, N, 1, &value) == SPRINGS_OK && close_to(value, x[2] - x[1] - 1.0),
          "stretch value");
    check(springs_stretch_grad(x, N, 1, &value, gx) == SPRINGS_OK && gx[1] == -1.0 && gx[2] == 1.0
              && gx[0] == 0.0 && gx[3] == 0.0 && gx[4] == 0.0,
          "stretch gradient");
    check(springs_stretch(x, N, -1, &value) == SPRINGS_OK && value == 0.0, "stretch other branch");
    check(springs_stretch(x, N, 4, &value) == SPRINGS_ERR_INDEX
              && strstr(springs_last_error(), "index 5 is out of bounds for axis 0 with size 5") != NULL,
          "index error status and message");
    printf("     last error: %s\n", springs_last_error());

    /* batches (--vmap): 3 chains on 2 threads, k shared by all (batch step 0) */
    {
        double xs[3][N], e[3], ge[N], gke, esum, want[N] = {0}, want_k = 0.0, want_e = 0.0;
        const int64_t items[3] = {1, 4, 2};
        int j;
        for (j = 0; j < 3; j++)
            for (i = 0; i < N; i++) xs[j][i] = x[i] + 0.1 * j * i;
        all = springs_energy_vmap(3, 2, &xs[0][0], N, N, &k, 0, e) == SPRINGS_OK;
        for (j = 0; j < 3; j++) {
            ref = energy_ref(xs[j], N, k, ref_gx, &ref_gk);
            all = all && close_to(e[j], ref);
            want_e += ref;
            want_k += ref_gk;
            for (i = 0; i < N; i++) want[i] += ref_gx[i];
        }
        check(all, "energy_vmap: the energy of each chain");
        all = springs_energy_vmap_grad_sum(3, 2, &xs[0][0], N, N, &k, 0, &esum, ge, &gke)
                  == SPRINGS_OK && close_to(esum, want_e) && close_to(gke, want_k);
        for (i = 0; i < N; i++) all = all && close_to(ge[i], want[i]);
        check(all, "energy_vmap_grad_sum: value and gradient summed over the chains");
        check(springs_stretch_vmap(3, 2, x, N, 0, items, 1, e) == SPRINGS_ERR_INDEX
                  && strstr(springs_last_error(), "(batch element 1)") != NULL,
              "an error in a batch names its item");
    }

    /* the last error is per thread */
    {
        pthread_t t;
        void *res = NULL;
        char before[256];
        snprintf(before, sizeof before, "%s", springs_last_error());
        check(springs_stretch(x, N, 1, &value) == SPRINGS_OK, "a later successful call");
        check(pthread_create(&t, NULL, fail_in_thread, (void *)x) == 0 && pthread_join(t, &res) == 0
                  && res != NULL && strcmp(before, springs_last_error()) == 0,
              "an error in another thread leaves this thread's last error alone");
    }

    printf(failures ? "%d check(s) FAILED\n" : "all checks passed\n", failures);
    return failures ? 1 : 0;
}
