/* W3 Lorenz-63 with RK4: primal and hand-written reverse-mode value-and-gradient.
   The gradient saves the four stage points of every step (96 bytes a step): the reverse sweep
   reads them instead of recomputing the stages. */
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
   returns f; returns NaN if the buffer of saved stage points cannot be allocated. */
double w3_vgrad(double sigma, double rho, double beta, double x, double y, double z,
                long steps, double dt, double *gs, double *gr, double *gb,
                double *gx, double *gy, double *gz) {
    long n = steps > 0 ? steps : 0;
    vec3 *saved = malloc((size_t)(n > 0 ? n : 1) * 4 * sizeof(vec3));
    if (!saved) return 0.0 / 0.0;
    double c = dt / 6.0;
    vec3 p = { x, y, z };
    for (long t = 0; t < n; t++) {  /* the RK4 step of rk4_step, keeping its stage points */
        vec3 *st = saved + 4 * t;
        vec3 k1 = deriv(sigma, rho, beta, st[0] = p);
        vec3 k2 = deriv(sigma, rho, beta, st[1] = axpy(p, 0.5 * dt, k1));
        vec3 k3 = deriv(sigma, rho, beta, st[2] = axpy(p, 0.5 * dt, k2));
        vec3 k4 = deriv(sigma, rho, beta, st[3] = axpy(p, dt, k3));
        vec3 q = { p.x + c * (k1.x + 2.0 * k2.x + 2.0 * k3.x + k4.x),
                   p.y + c * (k1.y + 2.0 * k2.y + 2.0 * k3.y + k4.y),
                   p.z + c * (k1.z + 2.0 * k2.z + 2.0 * k3.z + k4.z) };
        p = q;
    }
    double f = p.x * p.x + p.y * p.y + p.z * p.z;
    double g[3] = { 0.0, 0.0, 0.0 };
    vec3 a = { 2.0 * p.x, 2.0 * p.y, 2.0 * p.z };  /* cotangent of the state */
    for (long t = n - 1; t >= 0; t--) {
        const vec3 *st = saved + 4 * t;  /* s, p2 = s + dt/2 k1, p3 = s + dt/2 k2, p4 = s + dt k3 */
        /* stage cotangents from the update s' = s + c (k1 + 2 k2 + 2 k3 + k4) */
        vec3 a1 = { c * a.x, c * a.y, c * a.z };
        vec3 a2 = { 2.0 * c * a.x, 2.0 * c * a.y, 2.0 * c * a.z };
        vec3 a3 = a2;
        vec3 ap = deriv_adj(sigma, rho, beta, st[3], a1, g);  /* k4 = F(p4) */
        a = axpy(a, 1.0, ap);
        a3 = axpy(a3, dt, ap);
        ap = deriv_adj(sigma, rho, beta, st[2], a3, g);        /* k3 = F(p3) */
        a = axpy(a, 1.0, ap);
        a2 = axpy(a2, 0.5 * dt, ap);
        ap = deriv_adj(sigma, rho, beta, st[1], a2, g);        /* k2 = F(p2) */
        a = axpy(a, 1.0, ap);
        a1 = axpy(a1, 0.5 * dt, ap);
        a = axpy(a, 1.0, deriv_adj(sigma, rho, beta, st[0], a1, g));  /* k1 = F(s) */
    }
    free(saved);
    *gs = g[0]; *gr = g[1]; *gb = g[2];
    *gx = a.x; *gy = a.y; *gz = a.z;
    return f;
}
