/* Trivial functions for the call-overhead micro-benchmark (bench/overhead.py). */

double ov_scalar(double a, double b) { return a / (a + b * b); }

double ov_array(const double *x, long n) { return n > 0 ? x[0] : 0.0; }
