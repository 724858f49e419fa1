"""Every array op of docs/arrays.md alone (tests/arrays/ops_table.py) through the
differential harness: values against NumPy; gradients by the pullback's dot-product test for
array results, by the interpreter and finite differences for float results."""
from __future__ import annotations

import pytest

from .harness import check_function
from .ops_table import OPS, op_id


@pytest.mark.parametrize("case", OPS, ids=op_id)
def test_array_op(case):
    fn, args = case
    check_function(fn, args)


def test_every_documented_op_is_in_the_op_table():
    names = {fn.__name__ for fn, _ in OPS}
    for needed in ["op_add", "op_sub_arrays", "op_mul", "op_div", "op_pow", "op_floordiv",
                   "op_neg", "op_compare", "op_exp", "op_log", "op_sqrt", "op_sin", "op_cos",
                   "op_tanh", "op_abs", "op_maximum", "op_minimum", "op_where", "op_sum",
                   "op_mean", "op_max", "op_min", "op_methods", "op_dot_vv", "op_dot_mv",
                   "op_dot_vm", "op_dot_mm", "op_matmul_vv", "op_matmul_mv", "op_matmul_vm",
                   "op_matmul_mm", "op_transpose", "op_outer", "op_norm_vec", "op_norm_mat",
                   "op_bc_scalar", "op_bc_row", "op_bc_col", "op_bc_col_row", "op_bc_3d"]:
        assert needed in names
