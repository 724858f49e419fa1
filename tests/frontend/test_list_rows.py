"""Rows of a list of run-time length are read as copies (pyad/frontend/lists.py, `item`): a
write into such a row would change the list in CPython and not in compiled code, so every
spelling of it is refused at the write, naming the line the row was read at (it once
compiled and returned the list unchanged: 3.0 where CPython gives 150.0). Reading rows, and
writing into rows of a list of fixed length, still compile."""
import numpy as np
import pytest

import pyad
from ..gradients import check_against_python


def _grown(x, n):
    rows = []
    for k in range(n):
        rows.append(x * (k + 1.0))
    return rows


def element_store(x, n):
    rows = _grown(x, n)
    rows[1][0] = 100.0
    return rows[1][0] + rows[1][1]


def store_through_a_name(x, n):
    rows = _grown(x, n)
    r = rows[1]
    r[1] = 50.0
    return np.sum(rows[1])


def in_place_add(x, n):
    rows = _grown(x, n)
    r = rows[1]
    r += 1.0
    return np.sum(rows[1])


def in_place_sort(x, n):
    rows = _grown(x, n)
    r = rows[1]
    r.sort()
    return np.sum(rows[1] * x)


def write_in_a_helper(x, n):
    rows = _grown(x, n)
    _zero_first(rows[1])
    return np.sum(rows[1])


def _zero_first(a):
    a[0] = 0.0
    return 0.0


def loop_over_rows(x, n):
    rows = _grown(x, n)
    for r in rows:
        r[0] = 1.0
    return np.sum(rows[0])


@pytest.mark.parametrize("fn", [element_store, store_through_a_name, in_place_add,
                                in_place_sort, write_in_a_helper, loop_over_rows])
def test_writes_into_rows_of_a_run_time_list_are_refused(fn):
    x = np.array([3.0, 1.0, 2.0])
    with pytest.raises(pyad.PyadTypeError, match="cannot write into a row of a list") as info:
        pyad.jit_grad(fn)(x, 3)
    assert "the row read at line" in str(info.value)
    assert info.value.line is not None


def reads_rows(x, n):
    rows = _grown(x, n)
    t = 0.0
    for r in rows:
        t += np.sum(r * r) * r[0]
    c = rows[1].copy()
    c[0] = 5.0             # a copy the user made: theirs to write
    return t + np.sum(c * x) + rows[-1][2]


def fixed_list_rows(x):
    rows = [x * 1.0, x * 2.0]
    rows[1][0] = 100.0     # a list of fixed length holds the arrays themselves
    r = rows[0]
    r[1] = 50.0
    return rows[1][0] + rows[0][1] + np.sum(rows[1] * x)


def test_reading_rows_and_fixed_lists_still_compile():
    x = np.array([3.0, 1.0, 2.0])
    check_against_python(reads_rows, x, 3)
    check_against_python(fixed_list_rows, x)


# An array appended to a list of run-time length is stored as a copy, where CPython's list
# holds the array itself: a write into the array that a later read of the list would see
# (or the reverse) is refused at the write (pyad/ir/sharing.py).

def appended_then_stepped_in_place(x):
    traj = []
    u = x * 1.0
    for t in range(3):
        u[:] = u + 0.1 * np.sin(u)     # CPython: every row of traj is u, the last state
        traj.append(u)
    return np.sum(np.array(traj))


def appended_then_written_in_a_while(x):
    rows = []
    n = 0
    u = x * 1.0
    while n < 3:
        rows.append(u)
        u[0] += 1.0
        n += 1
    return np.sum(np.array(rows))


def written_after_the_append_in_its_trip(x):
    rows = []
    for t in range(3):
        v = x * t
        rows.append(v)
        v[0] = 0.0
    return np.sum(np.array(rows))


@pytest.mark.parametrize("fn", [appended_then_stepped_in_place,
                                appended_then_written_in_a_while,
                                written_after_the_append_in_its_trip])
def test_a_write_into_an_appended_array_is_refused(fn):
    with pytest.raises(pyad.PyadTypeError, match="would be seen through the list in CPython"
                       ) as info:
        pyad.jit_grad(fn)(np.array([3.0, 1.0, 2.0]))
    assert "xs.append(a.copy())" in str(info.value)


def new_state_each_step(x):
    traj = []
    u = x * 1.0
    for t in range(3):
        u = u + 0.1 * np.sin(u)
        traj.append(u)
    return np.sum(np.array(traj) ** 2)


def copies_appended(x):
    traj = []
    u = x * 1.0
    for t in range(3):
        u[:] = u + 0.1 * np.sin(u)
        traj.append(u.copy())
    return np.sum(np.array(traj) ** 2)


def written_before_the_append(x):
    rows = []
    for t in range(3):
        v = x * t
        v[0] = 0.5 * x[1]
        rows.append(v)
    return np.sum(np.array(rows) ** 2)


@pytest.mark.parametrize("fn", [new_state_each_step, copies_appended,
                                written_before_the_append])
def test_appends_cpython_agrees_with_compile(fn):
    check_against_python(fn, np.array([3.0, 1.0, 2.0]))


@pytest.mark.parametrize("fn", [appended_then_stepped_in_place, copies_appended,
                                written_before_the_append, reads_rows])
def test_the_ids_the_write_checks_use_are_of_live_statements(fn, monkeypatch):
    """The write checks hold statements by id; statements lowered and dropped (probes) are
    kept alive (context.pinned), so no later statement can take one of their ids and be
    mistaken for a list's own store (an intermittent missed refusal under xdist)."""
    from pyad.frontend import lower
    seen = []
    original = lower.Lowering.refuse_writes

    def spy(self, block):
        ctx = self.ctx
        recorded = set(ctx.list_stores) | {i for own, *_ in ctx.shared_copies for i in own} \
            | {i for own, _ in ctx.row_copies.values() for i in own}
        seen.append(recorded <= {id(s) for s in ctx.pinned})
        return original(self, block)
    monkeypatch.setattr(lower.Lowering, "refuse_writes", spy)
    try:
        pyad.jit_grad(fn, cache=False)(np.array([3.0, 1.0, 2.0]), *((2,) if fn is reads_rows
                                                                       else ()))
    except pyad.PyadTypeError:
        pass
    assert seen and all(seen)
