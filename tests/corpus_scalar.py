"""A corpus of small, realistic scalar functions in pyad's supported subset.

The functions are plain Python (not decorated): tests/frontend/test_corpus.py compiles each one with
`pyad.jit_grad` and compares values and gradients with CPython, the reference interpreter and
finite differences. Sample arguments stay inside each function's domain and away from kinks
(branch boundaries, |x| at 0, ...) unless the function is smooth across the kink, so finite
differences are meaningful; ties of min/max are only sampled where the result is smooth.

CASES = [(function, [argument tuple, ...]), ...]
"""
import math
from math import erf, exp, log, sqrt

# module-level constants (resolved at compile time)
G = 9.81            # m/s^2
R_GAS = 8.314462618  # J/(mol K)
ROSEN_A = 1.0
ROSEN_B = 100.0
LOG_2PI = math.log(2.0 * math.pi)
COEFFS = (1.0, -0.5, 0.25)


# ----------------------------------------------------------------- losses / statistics
def logistic_loss(z, y):
    return math.log1p(math.exp(-y * z))


def softplus(x):
    if x > 20.0:
        r = x
    elif x < -20.0:
        r = math.exp(x)
    else:
        r = math.log1p(math.exp(x))
    return r


def stable_sigmoid(x):
    if x >= 0:
        z = math.exp(-x)
        s = 1.0 / (1.0 + z)
    else:
        z = math.exp(x)
        s = z / (1.0 + z)
    return s


def bce_with_logits(z, y):
    return max(z, 0.0) - z * y + math.log1p(math.exp(-abs(z)))


def huber(r, delta):
    if abs(r) <= delta:
        loss = 0.5 * r * r
    else:
        loss = delta * (abs(r) - 0.5 * delta)
    return loss


def normal_logpdf(x, mu, sigma):
    z = (x - mu) / sigma
    return -0.5 * z ** 2 - math.log(sigma) - 0.5 * LOG_2PI


def normal_tail(x):
    return 0.5 * math.erfc(x / math.sqrt(2.0))


def poisson_logpmf(k, lam):
    # k is an int: mixes ints and floats
    return k * math.log(lam) - lam - math.lgamma(k + 1)


def log_binomial(n, k):
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


def log_sum_exp2(a, b):
    # smooth even where a == b (the max tie): both picks give the same gradient
    m = max(a, b)
    return m + log(exp(a - m) + exp(b - m))


def mean_var3(a, b, c):
    mean = (a + b + c) / 3
    var = ((a - mean) ** 2 + (b - mean) ** 2 + (c - mean) ** 2) / 2
    return mean, var


# ----------------------------------------------------------------- finance / optimisation
def black_scholes_call(S, K, T, r, sigma):
    sq = sigma * sqrt(T)
    d1 = (log(S / K) + (r + 0.5 * sigma * sigma) * T) / sq
    d2 = d1 - sq
    n1 = 0.5 * (1.0 + erf(d1 / math.sqrt(2.0)))
    n2 = 0.5 * (1.0 + erf(d2 / math.sqrt(2.0)))
    return S * n1 - K * exp(-r * T) * n2


def rosenbrock(x, y):
    return (ROSEN_A - x) ** 2 + ROSEN_B * (y - x * x) ** 2


def compound_growth(r, t):
    # continuously compounded relative growth, accurate for small r*t
    return math.expm1(r * t) / r


def clip_grad_step(x, g, lr, limit):
    step = lr * g
    step = min(max(step, -limit), limit)
    x -= step
    return x


# ----------------------------------------------------------------- physics
def projectile_range(v, theta, h):
    vx = v * math.cos(theta)
    vy = v * math.sin(theta)
    return vx / G * (vy + math.sqrt(vy * vy + 2 * G * h))


def lennard_jones(r, eps, sigma):
    s6 = (sigma / r) ** 6
    return 4 * eps * (s6 * s6 - s6)


def relativistic_kinetic(m, v):
    gamma = 1.0 / math.sqrt(1.0 - v ** 2)
    return (gamma - 1) * m


def damped_oscillator(t, amp, zeta, omega):
    wd = omega * math.sqrt(1.0 - zeta * zeta)
    return amp * math.exp(-zeta * omega * t) * math.cos(wd * t)


def arrhenius(T, A, Ea):
    return A * math.exp(-Ea / (R_GAS * T))


def van_der_waals(V, T, a, b):
    return R_GAS * T / (V - b) - a / V ** 2


def catenary(x, a):
    return a * math.cosh(x / a) - a


def polar_to_cart(r, t):
    return r * math.cos(t), r * math.sin(t)


def spherical_angles(x, y, z):
    rho = math.hypot(x, y, z)
    return math.acos(z / rho), math.atan2(y, x), rho


def quadratic_roots(a, b, c):
    disc = math.sqrt(b * b - 4.0 * a * c)
    q = -0.5 * (b + math.copysign(disc, b))
    return q / a, c / q


# ----------------------------------------------------------------- approximations / piecewise
def pade_exp(x):
    # (2, 2) Padé approximant of exp
    num = 1.0 + x / 2 + x * x / 12
    den = 1.0 - x / 2 + x * x / 12
    return num / den


def piecewise_cubic(x):
    if x < -1.0:
        y = -2.0 * x - 1.0
    elif x < 0.0:
        y = x ** 3 + x * x
    elif x <= 1.0:
        y = 3 * x * x - 2 * x ** 3
    else:
        y = 1.0 + math.log(x)
    return y


def smoothstep_band(x, lo, hi):
    t = (x - lo) / (hi - lo)
    return 0.0 if t <= 0.0 else (1.0 if t >= 1.0 else t * t * (3.0 - 2.0 * t))


def trapezoid_membership(x, a, b, c, d):
    if a < x <= b:
        mu = (x - a) / (b - a)
    elif b < x < c:
        mu = 1.0
    elif c <= x < d:
        mu = (d - x) / (d - c)
    else:
        mu = 0.0
    return mu


def linear_interp_sin(x):
    i = math.floor(x)
    frac = x - i
    return (1 - frac) * math.sin(i) + frac * math.sin(i + 1)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def horner_poly(x):
    c0, c1, c2 = COEFFS
    return c0 + x * (c1 + x * (c2 + x * -0.125))


def signed_sqrt(x):
    return math.copysign(math.sqrt(math.fabs(x)), x)


def inverse_trig_mix(x, y):
    return math.asin(x) * math.acos(y) + math.atan(x / y) + math.atanh(0.5 * x) - math.asinh(y)


def hyperbolic_mix(x):
    return math.sinh(x) / math.cosh(x) - math.tanh(x) + math.acosh(1.0 + x * x)


def log_bases(x):
    return math.log(x, 2) - math.log2(x) + 3 * math.log10(x) + math.log(x, 10.0)


def power_mix(x, y, n):
    # float bases with float and int exponents (y, n may be negative), builtin and math pow
    return pow(x, 2.5) + math.pow(y * y, -1.5) + x ** n + (-y) ** 3 + x ** -2


# ----------------------------------------------------------------- ints, bools, operators
def mixed_int_float(x, n):
    return x * n + n // 3 - n % 4 * x + float(n) / 7


def floor_mod_neg(x, y):
    # float // and % with negative operands (Python rounds toward -inf)
    q = x // y
    return x % y + 0.5 * q * y


def int_div_mod(n, m):
    return n // m, n % m, -n // m, n % -m, (n // m) * m + n % m == n


def int_pow(n, k):
    return n ** k + k ** 2 - pow(n, 3) + (-2) ** k


def digit_sum3(n):
    # Python's % of a negative number is non-negative
    return n % 10 + n // 10 % 10 + n // 100 % 10


def collatz_step(n):
    return n // 2 if n % 2 == 0 else 3 * n + 1


def quantize(x, step):
    return int(x / step) * step, math.ceil(x) - math.floor(x), int(-x)


def in_band(x, lo, hi):
    return lo < x <= hi < 10.0


def and_or_numbers(x, y, n, flag):
    # Python's value-returning and/or; with nonzero floats every result here is a float
    first = (n and x) or y
    second = (flag and x) or (not flag and y) or 0.5
    both = x > 0 and y > 0 or n > 5
    return first + 2.0 * second + (x or y) * (y and x) + float(both)


def and_or_zero_floats(a, b, c):
    # float truthiness: the samples put operands at 0.0, where the result jumps
    return ((a and b) or c) + 0.5 * ((a or b) and c) + (a and b and c)


def gated(x, flag):
    # flag is a bool parameter
    r = x * 2.0 if flag and not x < 0 else -x
    if not flag or x > 3.0:
        r += 1.0
    return r


def truthiness(x, n):
    return bool(x) + bool(n) + (not n) + int(x > 0) * 2


def argmax3(a, b, c):
    # ties resolve to the first maximum, like Python's max
    m = max(a, b, c)
    return 0 if m == a else (1 if m == b else 2)


def minmax_ties(a, b):
    # values at ties; the result itself is smooth in (a, b) away from the samples' kinks
    hi = max(a, b, a)
    lo = min(b, a, b)
    return hi + lo - (a + b) + a * b


# ----------------------------------------------------------------- structure
def unused_params(x, y, z):
    return x * x + 1.0


def many_uses(x, y):
    t = x * y
    t = t + x * x - y / x + x * (y + x) * x
    t *= x
    t -= y * x
    t /= x + y * y
    return t + x - -y + +x


def deeply_nested(x, y):
    return ((((x + 1.0) * y - 2.0) / (1.0 + x * x)) ** 2
            + math.sin(math.cos(math.tan(0.1 * x) + y * (1.0 - y / (3.0 + x * x))))
            - math.exp(-((x - y) ** 2) / (2.0 + math.sqrt(1.0 + (x * y) ** 2))))


def cosine_similarity(a1, a2, b1, b2):
    return (a1 * b1 + a2 * b2) / (math.hypot(a1, a2) * math.hypot(b1, b2))


def tuple_unpack_swap(x, y):
    a, b = x, y
    a, b = b, a * b
    (p, q), r = (a + b, a - b), a / b
    return p * q + r


def nested_tuple_result(x, n):
    return (x * n, (x ** 2, n - 1)), x - n


def capped(x):
    return min(max(x, -math.inf), 1e6) + math.e * math.pi


# ----------------------------------------------------------------- control flow
def tax_owed(income):
    # progressive brackets: augmented assignments and a reassigned parameter in branches
    tax = 0.0
    if income > 100000.0:
        tax += 0.4 * (income - 100000.0)
        income = 100000.0
    if income > 40000.0:
        tax += 0.3 * (income - 40000.0)
        income = 40000.0
    if income > 10000.0:
        tax += 0.2 * (income - 10000.0)
    return tax


def reflect_into_box(x, lo, hi):
    # reassigns a parameter inside branches
    if x < lo:
        x = 2.0 * lo - x
    elif x > hi:
        x = 2.0 * hi - x
    return x * x


def sort3(a, b, c):
    # tuple swaps inside if statements
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return a, b, c


def kepler_newton(M, e):
    # eccentric anomaly: three unrolled Newton steps on E - e sin E = M
    E = M + e * math.sin(M)
    E = E - (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
    E = E - (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
    E = E - (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
    return E


def sign_magnitude(x):
    if x < 0:
        s = -1
        m = -x
    elif x > 0:
        s = 1
        m = x
    else:
        s = 0
        m = 0.0
    return s, m * m


def safe_log_ratio(a, b):
    if a > 0 and b > 0:
        r = math.log(a / b)
    else:
        r = 0.0
    return r * (1.0 + a * b) if a != b else r


def nested_branches(x, y, n):
    # nested if statements, an if-expression inside a branch, int/float promotion
    if x > 0:
        if y > x:
            r = y - x
        else:
            r = (x - y) * n
        r += 1.0 if n > 2 else 0.5 * x
    else:
        r = n if y > 0 else x * y
    return r * x + y


# sample points deliberately on a discontinuity: finite differences do not apply there (the
# compiled gradient is still compared with the interpreter on the fused gradient IR)
NO_FINITE_DIFFERENCES = {"and_or_zero_floats"}

CASES = [
    (logistic_loss, [(0.3, 1.0), (-2.0, 1.0), (1.5, -1.0), (-0.7, -1.0)]),
    (softplus, [(-25.0,), (-3.0,), (0.5,), (30.0,)]),
    (stable_sigmoid, [(-4.0,), (-0.25,), (0.25,), (6.0,)]),
    (bce_with_logits, [(0.8, 1.0), (-1.3, 0.0), (-2.5, 1.0), (3.0, 0.3)]),
    (huber, [(0.3, 1.0), (-0.5, 1.0), (2.5, 1.0), (-3.0, 0.5)]),
    (normal_logpdf, [(0.0, 0.0, 1.0), (-1.5, 0.5, 2.0), (2.3, -1.0, 0.7)]),
    (normal_tail, [(-1.5,), (0.0,), (2.2,)]),
    (poisson_logpmf, [(0, 0.5), (3, 2.5), (12, 7.0)]),
    (log_binomial, [(10.0, 3.0), (7.5, 2.25), (4.0, -0.5)]),
    (log_sum_exp2, [(0.5, -1.0), (-3.0, 2.0), (1.25, 1.25), (-0.5, -0.5)]),
    (mean_var3, [(1.0, 2.0, 4.0), (-1.5, 0.5, -3.0)]),
    (black_scholes_call, [(100.0, 95.0, 0.5, 0.03, 0.2), (80.0, 100.0, 2.0, -0.01, 0.35),
                          (100.0, 90.0, 2.0, -0.02, 0.8)]),
    (rosenbrock, [(-1.2, 1.0), (0.5, -0.3), (1.5, 2.0)]),
    (compound_growth, [(0.05, 10.0), (-0.02, 3.0), (1e-9, 2.0), (1.0, -2.0)]),
    (clip_grad_step, [(1.0, 0.5, 0.1, 1.0), (-2.0, 30.0, 0.1, 1.0), (0.5, -40.0, 0.1, 1.0)]),
    (projectile_range, [(20.0, 0.6, 0.0), (15.0, 1.1, 10.0), (30.0, -0.2, 50.0)]),
    (lennard_jones, [(1.0, 1.0, 1.0), (1.5, 0.5, 1.2), (0.95, 2.0, 0.9)]),
    (relativistic_kinetic, [(1.0, 0.1), (2.0, -0.6), (0.5, 0.9)]),
    (damped_oscillator, [(0.0, 1.0, 0.1, 2.0), (1.5, -2.0, 0.3, 4.0), (3.0, 0.5, 0.05, -1.0)]),
    (arrhenius, [(300.0, 1e6, 5e4), (550.0, 2.5e3, 1.2e4)]),
    (van_der_waals, [(0.025, 300.0, 0.1, 3e-5), (1.0, 250.0, 0.36, 4.3e-5)]),
    (catenary, [(0.0, 2.0), (-1.5, 1.0), (2.0, -3.0)]),
    (polar_to_cart, [(2.0, 0.5), (1.0, -2.5), (-0.5, 4.0)]),
    (spherical_angles, [(1.0, 2.0, 3.0), (-1.0, 0.5, -2.0), (0.3, -0.4, 0.1)]),
    (quadratic_roots, [(1.0, -3.0, 2.0), (2.0, 5.0, -3.0), (-1.0, 0.5, 4.0)]),
    (pade_exp, [(-1.5,), (0.0,), (0.7,), (2.0,)]),
    (piecewise_cubic, [(-2.5,), (-0.5,), (0.4,), (3.0,)]),
    (smoothstep_band, [(-1.0, 0.0, 1.0), (0.3, 0.0, 1.0), (2.0, -1.0, 1.5), (-0.75, -1.0, -0.5)]),
    (trapezoid_membership, [(0.5, 0.0, 1.0, 2.0, 3.0), (1.5, 0.0, 1.0, 2.0, 3.0),
                            (2.5, 0.0, 1.0, 2.0, 3.0), (-1.0, 0.0, 1.0, 2.0, 3.0),
                            (-2.2, -3.0, -2.0, -1.0, 0.0)]),
    (linear_interp_sin, [(0.3,), (-1.6,), (2.75,), (-3.2,)]),
    (gelu_tanh, [(-2.0,), (-0.3,), (0.0,), (1.7,)]),
    (horner_poly, [(-2.0,), (0.5,), (3.0,)]),
    (signed_sqrt, [(-4.0,), (0.25,), (9.5,)]),
    (inverse_trig_mix, [(0.3, 0.6), (-0.8, 0.1), (0.5, -0.4)]),
    (hyperbolic_mix, [(-1.3,), (0.4,), (2.0,)]),
    (log_bases, [(0.3,), (8.0,), (1000.0,)]),
    (power_mix, [(1.5, 0.8, 3), (2.0, -1.2, -2), (0.7, 2.0, 0)]),
    (mixed_int_float, [(1.5, 7), (-2.25, -5), (0.5, 0), (3.0, -13)]),
    (floor_mod_neg, [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-7.3, -2.0), (0.3, 0.7)]),
    (int_div_mod, [(7, 3), (-7, 3), (7, -3), (-7, -3), (0, 5), (6, -2)]),
    (int_pow, [(2, 5), (-3, 3), (0, 0), (7, 1), (-1, 10)]),
    (digit_sum3, [(123,), (-123,), (5,), (-7,), (9080,)]),
    (collatz_step, [(6,), (7,), (-3,), (-4,), (0,)]),
    (quantize, [(2.7, 0.5), (-2.7, 0.5), (7.3, -2.0), (-0.4, 0.25)]),
    (in_band, [(0.5, 0.0, 1.0), (1.0, 0.0, 1.0), (0.0, 0.0, 1.0), (-2.0, -3.0, 12.0),
               (3, 1, 5)]),
    (and_or_numbers, [(1.5, -2.0, 0, True), (-0.5, 3.0, 4, False), (2.5, 0.75, -2, True),
                      (-1.25, -0.5, 7, False)]),
    (and_or_zero_floats, [(0.0, 2.0, 3.0), (1.5, 0.0, -2.0), (-1.0, 2.5, 0.0), (0.5, -0.5, 4.0),
                          (0.0, 0.0, 0.0)]),
    (gated, [(1.5, True), (-2.0, True), (4.0, True), (1.5, False), (-2.0, False)]),
    (truthiness, [(0.0, 0), (-1.5, 3), (2.0, -1), (0.5, 0)]),
    (argmax3, [(1.0, 2.0, 3.0), (3.0, 3.0, 1.0), (-1.0, -1.0, -1.0), (0.5, 2.0, 2.0),
               (-4.0, -2.0, -3.0)]),
    (minmax_ties, [(1.0, 2.0), (2.0, -1.0), (1.5, 1.5), (-0.5, -0.5)]),
    (unused_params, [(1.5, 2.0, -3.0), (-0.5, 0.0, 1.0)]),
    (many_uses, [(1.5, -0.5), (-2.0, 3.0), (0.7, 0.2)]),
    (deeply_nested, [(0.5, -0.3), (-1.2, 1.7), (2.0, 0.1)]),
    (cosine_similarity, [(1.0, 2.0, -0.5, 3.0), (-1.0, -0.2, 0.4, -2.0)]),
    (tuple_unpack_swap, [(1.5, 2.0), (-0.5, 3.0), (2.0, -0.25)]),
    (nested_tuple_result, [(1.5, 2), (-0.5, -3)]),
    (capped, [(-5.0,), (2.0e6,), (3.25,)]),
    (tax_owed, [(5000.0,), (25000.0,), (60000.0,), (250000.0,), (-1000.0,)]),
    (reflect_into_box, [(-1.5, -1.0, 2.0), (0.5, -1.0, 2.0), (2.75, -1.0, 2.0), (-4.0, -3.5, -2.0)]),
    (sort3, [(3.0, 1.0, 2.0), (-1.0, -2.0, -3.0), (0.5, 1.5, -0.5), (1.0, 2.0, 3.0)]),
    (kepler_newton, [(0.5, 0.1), (-1.2, 0.3), (2.5, 0.6)]),
    (sign_magnitude, [(-2.5,), (1.5,), (-0.125,)]),
    (safe_log_ratio, [(2.0, 0.5), (-1.0, 3.0), (0.75, 1.25), (1.5, -2.0)]),
    (nested_branches, [(2.0, 3.0, 4), (2.0, 1.0, 3), (2.0, 1.0, 1), (-1.0, 2.0, 5), (-1.5, -0.5, 2)]),
]
