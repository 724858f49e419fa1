/* W1 Rosenbrock: primal and hand-written reverse-mode value-and-gradient. */

double w1_primal(const double *x, long n) {
    double s = 0.0;
    for (long i = 0; i < n - 1; i++) {
        double t = x[i + 1] - x[i] * x[i];
        double u = 1.0 - x[i];
        s += 100.0 * t * t + u * u;
    }
    return s;
}

/* Writes d f / d x into gx (n doubles) and returns f. */
double w1_vgrad(const double *x, long n, double *gx) {
    double s = 0.0;
    for (long i = 0; i < n; i++) gx[i] = 0.0;
    for (long i = 0; i < n - 1; i++) {
        double t = x[i + 1] - x[i] * x[i];
        double u = 1.0 - x[i];
        s += 100.0 * t * t + u * u;
        gx[i] += -400.0 * t * x[i] - 2.0 * u;
        gx[i + 1] += 200.0 * t;
    }
    return s;
}
