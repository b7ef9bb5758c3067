"""Host kernels of the mask and position-id ops against PyTorch (torch 1.13).

iota, compare, select, logical_not / logical_and / logical_or, tril / triu,
pad and gather run one at a time through ckpt-opt and ckpt-run
(python/tests/op_check.py); every result must equal PyTorch's bit for bit:
these ops copy, compare or count, so there is no rounding to tolerate (iota
reproduces the rounding of torch.arange's CPU kernel). The reference
interpreter's semantics (ckpt_export/interp.py) are checked against the same
PyTorch expressions. Skipped when ckpt-opt, ckpt-run or a C++ compiler is
missing.
"""

import pytest
import torch

import op_check
from ckpt_export import interp


@pytest.fixture
def tools():
    """Skips a test that runs ops unless the tools are available."""
    op_check.require_tools()


def _randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _interp(op, inputs, out_shape, out_dtype, attrs):
    """The reference interpreter's result of one node."""
    graph = {"inputs": [{"id": f"in{i}", "role": "input"} for i in range(len(inputs))],
             "nodes": [{"id": op, "op": op, "inputs": [f"in{i}" for i in range(len(inputs))],
                        "attrs": attrs,
                        "outputs": [{"id": "out", "shape": list(out_shape), "dtype": out_dtype}]}]}
    env = interp.run(graph, {f"in{i}": t for i, t in enumerate(inputs)})
    return env["out"]


def _check(op, inputs, expected, attrs=None):
    """Runs `op` on the host and through the interpreter; both must give
    `expected` (PyTorch's result) bit for bit."""
    dtype = op_check._dtype_name(expected.dtype)
    (got,) = op_check.run_op(op, inputs, [(expected.shape, dtype)], attrs)
    op_check.assert_bitwise_equal(got, expected, f"{op} host kernel")
    op_check.assert_bitwise_equal(_interp(op, inputs, expected.shape, dtype, attrs or {}),
                                  expected, f"{op} interp")


# ---- iota -------------------------------------------------------------------

# (start, step, n, dtype): position ids; fractional f32 sequences of lengths
# below, at and past the 16-element blocks of torch's vectorized kernel,
# where rounding start + i * step once in f64 differs from torch's result.
IOTA_CASES = [
    (0, 1, 37, torch.int64),
    (-5, 3, 9, torch.int32),
    (7, -2, 6, torch.int64),
    (0.1, 0.1, 15, torch.float32),
    (-3.7, 0.3, 48, torch.float32),
    (2.5, -1.0 / 3.0, 70, torch.float32),
    (1, 0.7, 33, torch.float32),
]


def _arange(start, step, n, dtype):
    # Integer sequences end exactly at start + n * step; float ones half a
    # step past the last element: the length is n whatever the rounding of
    # (end - start) / step.
    end = start + (n - 0.5 if dtype.is_floating_point else n) * step
    return torch.arange(start, end, step, dtype=dtype)


def test_iota_rounding_differs_from_one_rounding():
    """The f32 cases above are not all `float(start + i * step)` rounded once:
    the vectorized rounding rule (docs/dialect.md) matters for them."""
    differs = 0
    for start, step, n, dtype in IOTA_CASES:
        if dtype != torch.float32:
            continue
        once = torch.tensor([start + i * step for i in range(n)], dtype=torch.float64).float()
        differs += not torch.equal(once, _arange(start, step, n, dtype))
    assert differs > 0


@pytest.mark.parametrize("start,step,n,dtype", IOTA_CASES)
def test_iota(tools, start, step, n, dtype):
    expected = _arange(start, step, n, dtype)
    assert expected.numel() == n
    _check("iota", [], expected, {"start": start, "step": step})


# ---- compare, select, logical ops -------------------------------------------

def _special_floats():
    """Rows with NaN, infinities, signed zeros and equal values."""
    v = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.5, -2.0, 1.5])
    return v.reshape(1, 8), v.flip(0).reshape(8, 1)


@pytest.mark.parametrize("predicate", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_compare_floats_broadcast(tools, predicate):
    """IEEE semantics (NaN, -0 == +0, infinities) with [1, 8] against [8, 1]."""
    a, b = _special_floats()
    expected = getattr(torch, predicate)(a, b)
    _check("compare", [a, b], expected, {"predicate": predicate})


def test_compare_integers_with_scalar(tools):
    """Position ids against a rank-0 bound (i64), and i32 / i1 operands."""
    pos = torch.arange(10).reshape(2, 5)
    bound = torch.tensor(3)
    _check("compare", [pos, bound], torch.lt(pos, bound), {"predicate": "lt"})
    a = torch.tensor([[-2, 7, 2**31 - 1]], dtype=torch.int32)
    b = torch.tensor([[7], [-2], [-2**31]], dtype=torch.int32)
    _check("compare", [a, b], torch.ge(a, b), {"predicate": "ge"})
    m = torch.tensor([True, False, True, False])
    n = torch.tensor([True, True, False, False])
    _check("compare", [m, n], torch.gt(m, n), {"predicate": "gt"})


def test_select_masked_fill(tools):
    """masked_fill with a causal mask: cond [1, 8, 8], a rank-0 value and
    x [2, 8, 8]; NaN and -0 in x pass through bit for bit."""
    x = _randn(2, 8, 8)
    x[0, 0, 0], x[1, 3, 2] = float("nan"), -0.0
    mask = torch.ones(8, 8, dtype=torch.bool).triu(1).reshape(1, 8, 8)
    value = torch.tensor(float("-inf"))
    expected = x.masked_fill(mask, float("-inf"))
    assert torch.equal(torch.where(mask, value, x).isnan(), expected.isnan())
    _check("select", [mask, value, x], expected)


def test_select_integers(tools):
    """where on i64 values with all three operands broadcast."""
    cond = torch.tensor([[True], [False], [True]])
    a = torch.tensor([10, 20, 30, 40])
    b = torch.tensor([[-1], [-2], [-3]])
    _check("select", [cond, a, b], torch.where(cond, a, b))


def test_logical_ops(tools):
    g = torch.Generator().manual_seed(3)
    a = torch.rand(4, 6, generator=g) > 0.5
    b = torch.rand(1, 6, generator=g) > 0.5
    _check("logical_not", [a], torch.logical_not(a))
    _check("logical_and", [a, b], torch.logical_and(a, b))
    _check("logical_or", [b, a], torch.logical_or(b, a))


# ---- tril, triu, pad, gather ------------------------------------------------

@pytest.mark.parametrize("diagonal", [-2, 0, 3])
def test_triangles(tools, diagonal):
    """Batched f32 (with NaN kept inside the triangle) and i1 rectangles."""
    x = _randn(2, 5, 7)
    x[0, 4, 0] = float("nan")
    _check("tril", [x], torch.tril(x, diagonal), {"diagonal": diagonal})
    m = torch.ones(6, 4, dtype=torch.bool)
    _check("triu", [m], torch.triu(m, diagonal), {"diagonal": diagonal})


def test_pad(tools):
    """aten.constant_pad_nd on f32, i64 and i1."""
    x = _randn(3, 4)
    # JSON has no infinities: -1e30 stands for a large negative pad.
    expected = torch.constant_pad_nd(x, [1, 2, 0, 1], -1e30)
    _check("pad", [x], expected, {"low": [0, 1], "high": [1, 2], "value": -1e30})
    ids = torch.arange(5)
    _check("pad", [ids], torch.constant_pad_nd(ids, [2, 1], -1), {"low": [2], "high": [1], "value": -1})
    m = torch.tensor([[True, False]])
    _check("pad", [m], torch.constant_pad_nd(m, [0, 3], 1.0), {"low": [0, 0], "high": [0, 3], "value": 1})


def test_gather(tools):
    """torch.gather along each dim of [3, 5], with an index smaller than the
    input off `dim`; and a gather of i64 values."""
    x = _randn(3, 5)
    g = torch.Generator().manual_seed(4)
    idx1 = torch.randint(0, 5, (2, 7), generator=g)
    _check("gather", [x, idx1], torch.gather(x, 1, idx1), {"dim": 1})
    idx0 = torch.randint(0, 3, (4, 5), generator=g)
    _check("gather", [x, idx0], torch.gather(x, 0, idx0), {"dim": 0})
    v = torch.arange(12).reshape(3, 4)
    idx = torch.tensor([[3, 0], [1, 1], [2, 3]])
    _check("gather", [v, idx], torch.gather(v, 1, idx), {"dim": 1})


def test_gather_out_of_range_index_is_an_error(tools):
    """An index outside the dimension is an error, as PyTorch raises one."""
    x = _randn(2, 4)
    idx = torch.tensor([[0, 4], [1, 2]])
    with pytest.raises(RuntimeError):
        torch.gather(x, 1, idx)
    with pytest.raises(op_check.OpCheckError, match="index 4 at position 1 is out of bounds"):
        op_check.run_op("gather", [x, idx], [(idx.shape, "f32")], {"dim": 1})
