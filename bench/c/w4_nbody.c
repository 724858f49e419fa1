/* W4 n-body potential: primal and hand-written reverse-mode value-and-gradient.
   pos is (n, 3) row-major, m has n entries. */
#include <math.h>

double w4_primal(const double *pos, const double *m, long n) {
    double e = 0.0;
    for (long i = 0; i < n; i++) {
        for (long j = i + 1; j < n; j++) {
            double dx = pos[3 * i] - pos[3 * j];
            double dy = pos[3 * i + 1] - pos[3 * j + 1];
            double dz = pos[3 * i + 2] - pos[3 * j + 2];
            e -= m[i] * m[j] / sqrt(dx * dx + dy * dy + dz * dz + 0.01);
        }
    }
    return e;
}

/* Writes d E / d pos into gpos (3n doubles) and returns E. */
double w4_vgrad(const double *pos, const double *m, long n, double *gpos) {
    double e = 0.0;
    for (long i = 0; i < 3 * n; i++) gpos[i] = 0.0;
    for (long i = 0; i < n; i++) {
        double gx = 0.0, gy = 0.0, gz = 0.0;
        for (long j = i + 1; j < n; j++) {
            double dx = pos[3 * i] - pos[3 * j];
            double dy = pos[3 * i + 1] - pos[3 * j + 1];
            double dz = pos[3 * i + 2] - pos[3 * j + 2];
            double inv = 1.0 / sqrt(dx * dx + dy * dy + dz * dz + 0.01);
            double mm = m[i] * m[j];
            e -= mm * inv;
            /* d(-mm / r)/d(p_i) = mm (p_i - p_j) / r^3 */
            double c = mm * inv * inv * inv;
            gx += c * dx; gy += c * dy; gz += c * dz;
            gpos[3 * j] -= c * dx; gpos[3 * j + 1] -= c * dy; gpos[3 * j + 2] -= c * dz;
        }
        gpos[3 * i] += gx; gpos[3 * i + 1] += gy; gpos[3 * i + 2] += gz;
    }
    return e;
}
