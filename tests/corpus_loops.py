"""A corpus of small, realistic functions with control flow: `for ... in range(...)`,
`while`, `break`, `continue`, `return` from anywhere, nesting and loop-carried variables.

The functions are plain Python (not decorated): tests/frontend/test_loops.py compiles each one with
`pyad.jit_grad` and compares values and gradients with CPython, the reference interpreter
(primal and fused value-and-gradient IR) and finite differences. Samples include negative
values and stay away from kinks: no branch decision, `break`, early `return` or while-loop
trip count flips within a finite-difference step of a sample (checked by the one-sided slope
test in tests/frontend/test_loops.py::test_corpus_samples_are_away_from_kinks), except for the
functions listed in NO_FINITE_DIFFERENCES, whose value is piecewise constant in some float
parameter (their gradients are still compared with the interpreter).

Trip counts are Python ints and stay small (the interpreter is the oracle and it is slow).

CASES = [(function, [argument tuple, ...]), ...]
"""
import math

TOL = 1e-13          # relative tolerance of the Newton iterations
MAX_ITER = 100       # iteration cap of the while loops
FIXED_POINT_TOL = 1e-14


# ----------------------------------------------------------------- Newton / iterations
def newton_sqrt(a):
    """sqrt(a) by Newton's method: `while abs(step) > tol`, capped by a counter + break."""
    x = a if a > 1.0 else 1.0
    step = 1.0
    it = 0
    while abs(step) > TOL * x:
        step = 0.5 * (x - a / x)
        x -= step
        it += 1
        if it >= MAX_ITER:
            break
    return x


def newton_cbrt(a):
    """Real cube root (negative a too) by Newton's method."""
    x = a if abs(a) > 1.0 else math.copysign(1.0, a)
    step = x
    n = 0
    while abs(step) > TOL * abs(x):
        step = (x * x * x - a) / (3.0 * x * x)
        x = x - step
        n = n + 1
        if n == MAX_ITER:
            break
    return x


def kepler_solve(mean_anomaly, ecc):
    """Kepler's equation E - e sin E = M by Newton's method, while loop with a tolerance."""
    e_anom = mean_anomaly
    delta = 1.0
    it = 0
    while abs(delta) > 1e-14 and it < MAX_ITER:
        delta = (e_anom - ecc * math.sin(e_anom) - mean_anomaly) / (1.0 - ecc * math.cos(e_anom))
        e_anom -= delta
        it += 1
    return e_anom


def fixed_point_cos(a):
    """x = cos(a x) by fixed-point iteration until two iterates agree."""
    x = 0.0
    x_new = 1.0
    it = 0
    while abs(x_new - x) > FIXED_POINT_TOL and it < 500:
        x = x_new
        x_new = math.cos(a * x)
        it += 1
    return x_new


def bisect_cbrt(c, lo, hi):
    """Root of t**3 - c in [lo, hi] by 60 bisection steps. Piecewise constant in c; linear in
    lo and hi for fixed branch decisions (finite differences are meaningless)."""
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid * mid * mid > c:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def bisect_while(c):
    """Bisection with a width tolerance in a while loop (trip count depends on nothing but
    the bracket; the branch decisions depend on c)."""
    lo = -10.0
    hi = 10.0
    mid = 0.0
    n = 0
    while hi - lo > 1e-9:
        mid = (lo + hi) / 2.0
        if math.tanh(mid) - c > 0.0:
            hi = mid
        else:
            lo = mid
        n += 1
    return mid + 0.0 * n


# ----------------------------------------------------------------- losses / finance
def huber_sum(r0, dr, delta, n):
    """Sum of Huber losses of r0 + i*dr over range(n): if/else inside a range loop."""
    total = 0.0
    for i in range(n):
        r = r0 + i * dr
        if abs(r) <= delta:
            total += 0.5 * r * r
        else:
            total += delta * (abs(r) - 0.5 * delta)
    return total / n


def compound_interest(principal, rate, years, fee):
    """Monthly compounding in a nested loop; a fee is charged in years the balance is high."""
    bal = principal
    for year in range(years):
        for month in range(12):
            bal *= 1.0 + rate / 12.0
        if bal > 1500.0:
            bal -= fee
    return bal


def loan_payoff_months(principal, rate, payment):
    """Months until a loan is paid off (while loop with a float condition), plus the final
    negative balance: the trip count depends on the parameters."""
    bal = principal
    months = 0
    while bal > 0.0 and months < 600:
        bal = bal * (1.0 + rate / 12.0) - payment
        months += 1
    return months + bal / payment


# ----------------------------------------------------------------- break / continue
def sum_until_exceeds(x, limit):
    """for + break: the trip count depends on x."""
    s = 0.0
    for i in range(100):
        s += x * x + i * 0.1
        if s > limit:
            break
    return s


def skip_multiples_of_three(x, n):
    """for + continue."""
    s = 0.0
    for i in range(n):
        if i % 3 == 0:
            continue
        s += math.sin(x * i)
    return s


def while_continue_break(x):
    """while with both continue and break."""
    k = 0
    acc = 0.0
    while k < 20:
        k += 1
        if k % 2 == 0:
            continue
        acc = acc * 0.5 + x * k
        if acc > 30.0:
            break
    return acc + k


def while_true_break(x):
    """`while True` + break."""
    y = x * x + 1.0
    n = 0
    while True:
        y = y / 2.0 + 0.1 * x
        n += 1
        if abs(y) < 0.5 or n >= 40:
            break
    return y * n


def inner_break(x, n):
    """break leaves only the inner loop; the outer one goes on."""
    s = 0.0
    for i in range(n):
        for j in range(10):
            if j * x > i:
                break
            s += math.sin(x + i * j)
        s *= 0.9
    return s


def break_and_continue_mixed(x, y):
    s = 0.0
    for i in range(25):
        t = math.sin(x * i + y)
        if t < -0.5:
            continue
        if s > 4.0:
            break
        s += t * y
    return s


# ----------------------------------------------------------------- nesting
def nested_accumulate(x, y, n, m):
    """2 nested loops; both levels carry values (row, col, total)."""
    total = 0.0
    row = 1.0
    for i in range(n):
        row = row * 0.5 + x
        col = y
        for j in range(m):
            col = col * row + 0.1 * j
            total += col
        total -= 0.25 * row
    return total


def triple_loop(a, b, n):
    """3 nested loops with triangular ranges; each level carries a value."""
    s = 0.0
    u = a
    for i in range(n):
        v = b
        for j in range(i + 1):
            w = u * v
            for k in range(j, 3):
                w = math.sin(w + 0.1 * k)
                s += w
            v = v + w * 0.5
        u = u * 0.9 + v * 0.1
    return s + u


def nested_while_for(x, n):
    """A for loop inside a while loop inside a for loop."""
    s = x
    for i in range(n):
        k = 0
        while k < i:
            for j in range(2):
                s = math.cos(s) + 0.1 * x * j
            k += 1
        s = s + 0.01 * i
    return s


# ----------------------------------------------------------------- early return
def five_deep(x, n):
    """Five nested loops (for, for, for, while, for) with branches between them."""
    s = x
    for a in range(n):
        for b in range(2):
            if (a + b) % 2 == 0:
                for c in range(2):
                    k = 0
                    while k < 2:
                        for d in range(c, 2):
                            s = math.sin(s + 0.1 * (a - b + c - d)) * 1.5
                        k += 1
            else:
                s = s * 0.9 + x * 0.1
    return s


def chained_while_condition(x):
    """while with a chained comparison and `and`/`or` in its condition."""
    k = 0
    s = x
    while 0 <= k < 30 and (s < 5.0 or k < 2):
        s = s + 0.3 * math.cos(s) + 0.05 * k
        k += 1
    return s * k


# ----------------------------------------------------------------- early return
def first_crossing(x, c):
    """return from inside a loop (in a branch), or after it."""
    y = x
    for i in range(50):
        y = y * 1.1 + 0.3
        if y > c:
            return y - c + i
    return -y


def early_returns(x, y):
    """Several returns with different expressions: before, inside and after a loop."""
    if x < -1.0:
        return x * y
    s = 0.0
    for i in range(10):
        s += math.cos(x * i) * y
        if s > 2.0:
            return s * s
        elif s < -2.0:
            return math.exp(s) + i
    if y > 0.0:
        return s + 1.0
    return s - x


def return_from_nested(x, n):
    """return from the inner of two loops leaves both."""
    for i in range(n):
        for j in range(n):
            v = x * i - j
            if v > 2.5:
                return v * 10.0 + i * j
    return x * 0.5


def return_from_while(x):
    """return inside `while True`."""
    y = x
    k = 0
    while True:
        y = math.sin(y) + 0.5 * x
        k += 1
        if k > 8:
            return y * k
        if y > 1.2:
            return y - k


def return_in_branch(x, y):
    """Returns from branches, no loop."""
    if x > y:
        if x > 0.0:
            return x - y
        return (x - y) * x
    elif x < -2.0:
        return math.exp(x) * y
    return y * y


# ----------------------------------------------------------------- per-iteration branches
def alternating_updates(x, n):
    """The branch taken changes with i % 3."""
    s = x
    for i in range(n):
        if i % 3 == 0:
            s = s * 0.5 + 1.0
        elif i % 3 == 1:
            s = math.sin(s) * 2.0
        else:
            s = s - x * 0.25
    return s


def threshold_switching(x):
    """The branch depends on the carried value, and flips between iterations."""
    s = x
    for i in range(30):
        if s > 0.5:
            s = s * s * 0.5 - 0.4
        else:
            s = s + 0.3
    return s


def branch_local(x, n):
    """Variables first assigned inside a branch, used only inside it."""
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            t = x * i
            s += t * t
        else:
            u = math.cos(x + i)
            s -= u
    return s


# ----------------------------------------------------------------- range forms
def zero_trip_loops(x, n):
    """range(0), range(5, 2), range(n) with n <= 0, a while whose condition is false."""
    s = x
    for i in range(0):
        s = s * 100.0
    for i in range(5, 2):
        s = s + 100.0
    for i in range(n):
        s = s * 2.0
    k = 10
    while k < 5:
        s = s - 1.0
        k += 1
    while x > 100.0:
        x = x - 1.0
        s = s * x
    return s * 3.0 + k


def negative_step(x):
    """range(10, 0, -3): 10, 7, 4, 1."""
    s = 0.0
    for i in range(10, 0, -3):
        s = s * x + i
    return s


def range_params(x, start, stop, step):
    """range with start, stop and step int parameters (empty ranges too)."""
    s = 1.0
    for i in range(start, stop, step):
        s = s * 0.9 + x * i
    return s


def range_evaluated_once(x, n):
    """range(n) is evaluated once (reassigning n does not change the trip count), and
    reassigning the loop variable does not affect the next iteration."""
    s = 0.0
    for i in range(n):
        n = n - 1
        i = i * 2
        s += x * n + i
    return s + n


def last_index(x, n):
    """The loop variable keeps its last value after the loop (and after a break)."""
    i = -1
    for i in range(n):
        if x * i > 3.0:
            break
    return x * i + i


def loop_var_after_loop(x):
    j = 0
    for j in range(2, 9, 3):
        x = x * 1.5 - j
    return x + j


# ----------------------------------------------------------------- accumulators / types
def int_init_accumulate(x, n):
    """s starts as int 0 and accumulates floats (zero-trip: CPython returns the int 0,
    pyad the float 0.0, see LOOP_PROMOTION)."""
    s = 0
    for i in range(n):
        s += x * i
    return s


def aug_all_kinds(x, y, n):
    """Every augmented assignment, on floats and ints, inside a loop."""
    a = x
    b = y
    c = 1.0 + x * x
    k = 7
    for i in range(n):
        a += b * 0.5
        a -= 0.1 * i
        b *= 0.9
        b /= 1.0 + 0.01 * i
        c **= 0.9
        c += 0.5
        c %= 1.75
        k += i
        k *= 3
        k -= 1
        k //= 2
        k %= 1000
        k **= 1
    d = a * 10.0
    d //= 3.0
    return a + b + c + k + 0.001 * d


def int_loop_sum_squares(n):
    """All-int loop."""
    s = 0
    for i in range(n):
        s += i * i - 3
    return s


def collatz_steps(n):
    """All-int while loop with a data-dependent trip count."""
    steps = 0
    while n != 1 and steps < 1000:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def count_doublings(x):
    """Trip count of a while loop depends on a float parameter; returns a float."""
    y = 1.0 + x * x
    n = 0
    while y < 100.0:
        y = y * 1.7 + 0.01 * x
        n += 1
    return y / (n + 1)


def running_stats(x, dx, n):
    """Tuple result: mean and variance of x + i*dx*sin(i), and the count."""
    mean = 0.0
    m2 = 0.0
    count = 0
    for i in range(n):
        v = x + i * dx * math.sin(i)
        count += 1
        delta = v - mean
        mean += delta / count
        m2 += delta * (v - mean)
    return mean, m2 / count, count


# ----------------------------------------------------------------- series / recurrences
def taylor_exp(x):
    term = 1.0
    s = 1.0
    for k in range(1, 40):
        term *= x / k
        s += term
    return s


def taylor_sin(x):
    """sin by its Taylor series, summed in a while loop until the term is negligible."""
    term = x
    s = x
    k = 1
    while abs(term) > 1e-17 and k < 60:
        term = -term * x * x / ((k + 1) * (k + 2))
        s += term
        k += 2
    return s


def logistic_map(r, x0):
    x = x0
    for _ in range(20):
        x = r * x * (1.0 - x)
    return x


def fibonacci_like(a, b, n):
    """Tuple assignment of two loop-carried values."""
    for i in range(n):
        a, b = b, a + b * 0.5
    return a - b


def lorenz_euler(sigma, rho, beta, x, y, z, steps, dt):
    """The Lorenz system integrated by forward Euler."""
    for _ in range(steps):
        dx = sigma * (y - x)
        dy = x * (rho - z) - y
        dz = x * y - beta * z
        x, y, z = x + dt * dx, y + dt * dy, z + dt * dz
    return x * x + y * y + z * z


def lorenz_rk4(sigma, rho, beta, x, y, z, steps, dt):
    """W3 (../shared/bench/WORKLOADS.md): Lorenz-63 integrated with `steps` RK4 steps; the sum
    of squares of the final state."""
    for _ in range(steps):
        k1x = sigma * (y - x)
        k1y = x * (rho - z) - y
        k1z = x * y - beta * z
        x2, y2, z2 = x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, z + 0.5 * dt * k1z
        k2x = sigma * (y2 - x2)
        k2y = x2 * (rho - z2) - y2
        k2z = x2 * y2 - beta * z2
        x3, y3, z3 = x + 0.5 * dt * k2x, y + 0.5 * dt * k2y, z + 0.5 * dt * k2z
        k3x = sigma * (y3 - x3)
        k3y = x3 * (rho - z3) - y3
        k3z = x3 * y3 - beta * z3
        x4, y4, z4 = x + dt * k3x, y + dt * k3y, z + dt * k3z
        k4x = sigma * (y4 - x4)
        k4y = x4 * (rho - z4) - y4
        k4z = x4 * y4 - beta * z4
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
        z = z + dt / 6.0 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z)
    return x * x + y * y + z * z


def damped_pendulum(theta, omega, damping, steps):
    """Semi-implicit Euler for a damped pendulum; energy at the end."""
    dt = 0.05
    for _ in range(steps):
        omega = omega - dt * (math.sin(theta) + damping * omega)
        theta = theta + dt * omega
    return 0.5 * omega * omega + 1.0 - math.cos(theta)


LOOP_PROMOTION = {"int_init_accumulate"}  # int on the zero-trip path: pyad returns a float
NO_FINITE_DIFFERENCES = {"bisect_cbrt", "bisect_while"}

CASES = [
    (newton_sqrt, [(2.0,), (0.3,), (123.0,), (0.01,)]),
    (newton_cbrt, [(27.5,), (-8.3,), (0.2,), (-0.05,)]),
    (kepler_solve, [(0.5, 0.1), (-1.2, 0.3), (2.5, 0.6)]),
    (fixed_point_cos, [(1.0,), (0.5,), (-0.8,)]),
    (bisect_cbrt, [(2.0, 0.0, 2.0), (-5.0, -3.0, 1.0), (0.125, -1.0, 1.0)]),
    (bisect_while, [(0.3,), (-0.75,)]),
    (huber_sum, [(-2.0, 0.37, 1.0, 12), (1.7, -0.45, 0.8, 9), (-0.3, 0.05, 2.0, 5)]),
    (compound_interest, [(1000.0, 0.05, 10, 20.0), (1200.0, -0.03, 5, 10.0),
                         (500.0, 0.2, 0, 5.0)]),
    (loan_payoff_months, [(1000.0, 0.05, 90.0), (5000.0, 0.12, 260.0), (-10.0, 0.1, 5.0)]),
    (sum_until_exceeds, [(1.3, 10.0), (-0.7, 25.0), (0.2, -1.0), (0.1, 1000.0)]),
    (skip_multiples_of_three, [(0.3, 10), (-1.1, 7), (0.5, 0), (2.0, 1)]),
    (while_continue_break, [(0.4,), (-1.5,), (3.3,)]),
    (while_true_break, [(0.5,), (-1.3,), (3.0,)]),
    (inner_break, [(0.35, 5), (-0.6, 4), (1.7, 3)]),
    (break_and_continue_mixed, [(0.3, 1.5), (-0.7, 2.2), (1.1, -0.4)]),
    (nested_accumulate, [(0.3, 0.8, 4, 3), (-0.45, 1.2, 3, 4), (0.2, -0.5, 0, 3),
                         (0.6, 0.5, 3, 0)]),
    (triple_loop, [(0.4, 0.7, 3), (-0.8, 0.3, 4), (1.2, -0.5, 1)]),
    (nested_while_for, [(0.3, 4), (-1.2, 3), (2.0, 0)]),
    (five_deep, [(0.3, 3), (-1.1, 2), (0.8, 0)]),
    (chained_while_condition, [(0.5,), (-2.0,), (6.0,)]),
    (first_crossing, [(0.5, 3.0), (-0.8, 10.0), (-3.0, 1e6), (2.0, 1.0)]),
    (early_returns, [(-2.0, 1.5), (0.1, 0.5), (0.05, 1.3), (0.02, -1.1), (0.9, -0.3),
                     (0.8, 0.1)]),
    (return_from_nested, [(1.3, 4), (-0.5, 3), (0.45, 8), (2.0, 0)]),
    (return_from_while, [(0.3,), (-0.4,), (1.5,)]),
    (return_in_branch, [(2.0, 1.0), (-0.5, -1.0), (-3.0, 2.0), (0.5, 1.5)]),
    (alternating_updates, [(0.7, 10), (-1.3, 7), (2.1, 2)]),
    (threshold_switching, [(0.1,), (-0.65,), (1.9,)]),
    (branch_local, [(0.3, 6), (-0.9, 5), (1.4, 1)]),
    (zero_trip_loops, [(1.5, 0), (-2.0, 3), (0.5, -2)]),
    (negative_step, [(0.5,), (-1.5,), (2.0,)]),
    (range_params, [(0.7, 0, 10, 1), (-1.3, 10, -5, -4), (0.5, -3, 8, 3), (2.0, 5, 5, 1),
                    (1.5, 3, 10, -1), (0.25, -10, -2, 7), (-0.4, 6, 0, -1)]),
    (range_evaluated_once, [(0.5, 4), (-1.5, 3), (2.0, 0)]),
    (last_index, [(0.7, 10), (-0.5, 6), (0.25, 0), (2.0, 5)]),
    (loop_var_after_loop, [(0.5,), (-2.0,)]),
    (int_init_accumulate, [(0.5, 4), (-1.5, 3), (2.0, 0)]),
    (aug_all_kinds, [(0.3, 1.2, 5), (-0.6, -0.4, 3), (0.95, 0.2, 0)]),
    (int_loop_sum_squares, [(0,), (5,), (-3,), (12,)]),
    (collatz_steps, [(1,), (6,), (27,), (97,)]),
    (count_doublings, [(0.5,), (-3.0,), (9.5,)]),
    (running_stats, [(0.5, 0.3, 6), (-1.5, 1.1, 4)]),
    (taylor_exp, [(-2.5,), (0.0,), (1.3,), (4.0,)]),
    (taylor_sin, [(-2.5,), (0.0,), (0.7,), (3.0,)]),
    (logistic_map, [(2.8, 0.3), (3.2, 0.6), (-0.8, 0.4), (0.5, -0.3), (3.5, 0.25)]),
    (fibonacci_like, [(1.0, 0.5, 10), (-0.5, 2.0, 7), (0.25, -1.0, 0)]),
    (lorenz_euler, [(10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, 50, 0.01),
                    (10.0, 28.0, 8.0 / 3.0, -1.5, 0.5, 2.0, 30, 0.005),
                    (10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, 0, 0.01)]),
    (lorenz_rk4, [(10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, 30, 0.01),
                  (10.0, 28.0, 8.0 / 3.0, -1.5, 0.5, 2.0, 25, 0.005),
                  (8.0, 20.0, 2.5, 0.5, -1.0, 0.25, 10, 0.02),
                  (10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, -3, 0.01)]),
    (damped_pendulum, [(0.5, 0.0, 0.1, 40), (-2.0, 1.5, 0.3, 25), (1.0, -0.5, -0.05, 10)]),
]
