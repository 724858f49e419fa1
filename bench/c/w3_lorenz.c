/* W3 Lorenz-63 with RK4: primal and hand-written reverse-mode value-and-gradient.
   The gradient stores the state at the start of every step (24 bytes a step) and recomputes
   the four stages of a step in the reverse sweep. */
#include <stdlib.h>

typedef struct { double x, y, z; } vec3;

static inline vec3 deriv(double s, double r, double b, vec3 p) {
    vec3 k = { s * (p.y - p.x), p.x * (r - p.z) - p.y, p.x * p.y - b * p.z };
    return k;
}

static inline vec3 axpy(vec3 p, double a, vec3 k) {
    vec3 q = { p.x + a * k.x, p.y + a * k.y, p.z + a * k.z };
    return q;
}

static inline vec3 rk4_step(double s, double r, double b, vec3 p, double dt) {
    vec3 k1 = deriv(s, r, b, p);
    vec3 k2 = deriv(s, r, b, axpy(p, 0.5 * dt, k1));
    vec3 k3 = deriv(s, r, b, axpy(p, 0.5 * dt, k2));
    vec3 k4 = deriv(s, r, b, axpy(p, dt, k3));
    double c = dt / 6.0;
    vec3 q = { p.x + c * (k1.x + 2.0 * k2.x + 2.0 * k3.x + k4.x),
               p.y + c * (k1.y + 2.0 * k2.y + 2.0 * k3.y + k4.y),
               p.z + c * (k1.z + 2.0 * k2.z + 2.0 * k3.z + k4.z) };
    return q;
}

double w3_primal(double sigma, double rho, double beta, double x, double y, double z,
                 long steps, double dt) {
    vec3 p = { x, y, z };
    for (long t = 0; t < steps; t++) p = rk4_step(sigma, rho, beta, p, dt);
    return p.x * p.x + p.y * p.y + p.z * p.z;
}

/* Adjoint of k = deriv(p) for the cotangent u of k: returns the cotangent of p and adds the
   parameter cotangents into g[0..2] (sigma, rho, beta). */
static inline vec3 deriv_adj(double s, double r, double b, vec3 p, vec3 u, double *g) {
    g[0] += (p.y - p.x) * u.x;
    g[1] += p.x * u.y;
    g[2] -= p.z * u.z;
    vec3 a = { -s * u.x + (r - p.z) * u.y + p.y * u.z,
               s * u.x - u.y + p.x * u.z,
               -p.x * u.y - b * u.z };
    return a;
}

/* Writes the six partial derivatives into gs, gr, gb, gx, gy, gz (one double each) and
   returns f; returns NaN if the state buffer cannot be allocated. */
double w3_vgrad(double sigma, double rho, double beta, double x, double y, double z,
                long steps, double dt, double *gs, double *gr, double *gb,
                double *gx, double *gy, double *gz) {
    long n = steps > 0 ? steps : 0;
    vec3 *saved = malloc((size_t)(n > 0 ? n : 1) * sizeof(vec3));
    if (!saved) return 0.0 / 0.0;
    vec3 p = { x, y, z };
    for (long t = 0; t < n; t++) {
        saved[t] = p;
        p = rk4_step(sigma, rho, beta, p, dt);
    }
    double f = p.x * p.x + p.y * p.y + p.z * p.z;
    double g[3] = { 0.0, 0.0, 0.0 };
    vec3 a = { 2.0 * p.x, 2.0 * p.y, 2.0 * p.z };  /* cotangent of the state */
    double c = dt / 6.0;
    for (long t = n - 1; t >= 0; t--) {
        vec3 s0 = saved[t];
        vec3 k1 = deriv(sigma, rho, beta, s0);
        vec3 p2 = axpy(s0, 0.5 * dt, k1);
        vec3 k2 = deriv(sigma, rho, beta, p2);
        vec3 p3 = axpy(s0, 0.5 * dt, k2);
        vec3 k3 = deriv(sigma, rho, beta, p3);
        vec3 p4 = axpy(s0, dt, k3);
        /* stage cotangents from the update s' = s + c (k1 + 2 k2 + 2 k3 + k4) */
        vec3 a4 = { c * a.x, c * a.y, c * a.z };
        vec3 a3 = { 2.0 * c * a.x, 2.0 * c * a.y, 2.0 * c * a.z };
        vec3 a2 = a3;
        vec3 a1 = a4;
        vec3 ap = deriv_adj(sigma, rho, beta, p4, a4, g);   /* p4 = s + dt k3 */
        a = axpy(a, 1.0, ap);
        a3 = axpy(a3, dt, ap);
        ap = deriv_adj(sigma, rho, beta, p3, a3, g);        /* p3 = s + dt/2 k2 */
        a = axpy(a, 1.0, ap);
        a2 = axpy(a2, 0.5 * dt, ap);
        ap = deriv_adj(sigma, rho, beta, p2, a2, g);        /* p2 = s + dt/2 k1 */
        a = axpy(a, 1.0, ap);
        a1 = axpy(a1, 0.5 * dt, ap);
        a = axpy(a, 1.0, deriv_adj(sigma, rho, beta, s0, a1, g));
    }
    free(saved);
    *gs = g[0]; *gr = g[1]; *gb = g[2];
    *gx = a.x; *gy = a.y; *gz = a.z;
    return f;
}
