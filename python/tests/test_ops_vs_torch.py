"""Host kernels against PyTorch (torch 1.13, fp32), one op at a time.

Each test runs one op through ckpt-opt and ckpt-run (python/tests/op_check.py)
and compares its results with PyTorch's: bit for bit where the kernel
evaluates PyTorch's expression in PyTorch's order, otherwise within the
tolerance stated at the test. Skipped when ckpt-opt, ckpt-run or a C++
compiler is missing.
"""

import pytest
import torch

import op_check

aten = torch.ops.aten


@pytest.fixture
def tools():
    """Skips a test that runs ops unless ckpt-opt, ckpt-run and a C++
    compiler are available."""
    op_check.require_tools()


def _randn(*shape, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g) * scale


def _canonical_nans(t):
    """`t` with every NaN replaced by the default quiet NaN: a NaN's payload
    and sign are not part of an op's semantics (PyTorch's AVX2 maximum, for
    one, returns the all-ones NaN where the host kernel keeps the input's),
    so bit-exact comparisons first agree on them. Everything else, -0
    included, still compares bit for bit."""
    return torch.where(torch.isnan(t), torch.full_like(t, float("nan")), t)


# ---- The harness itself -----------------------------------------------------


def test_harness_reports_differences():
    """The comparisons fail on one flipped bit, a NaN against a number, -0
    against +0 and an error beyond the tolerance (so the tests below bite)."""
    a = torch.tensor([1.0, 2.0, 0.0, float("nan")])
    op_check.assert_bitwise_equal(a, a.clone())
    for i, v in ((1, 2.0000002), (2, -0.0), (3, 4.0)):
        b = a.clone()
        b[i] = v
        with pytest.raises(AssertionError, match="1 of 4 elements differ"):
            op_check.assert_bitwise_equal(b, a)
    op_check.assert_close(a + 1e-7, a, rtol=1e-6, atol=1e-6)
    with pytest.raises(AssertionError, match="out of tolerance"):
        op_check.assert_close(a + 1e-3, a, rtol=1e-6, atol=1e-6)
    with pytest.raises(AssertionError, match="dtype"):
        op_check.assert_close(a.double(), a, rtol=1.0, atol=1.0)


def test_harness_runs_an_existing_op(tools):
    """clamp (hardtanh), already bit-exact: the harness's own round trip."""
    x = _randn(4, 16, scale=4.0)
    (y,) = op_check.run_op("clamp", [x], [(x.shape, "f32")], {"min": 0.0, "max": 6.0})
    op_check.assert_bitwise_equal(y, aten.hardtanh(x, 0.0, 6.0))
    g = _randn(4, 16, seed=1)
    (dx,) = op_check.run_op("clamp_grad", [g, x], [(x.shape, torch.float32)],
                            {"min": 0.0, "max": 6.0})
    op_check.assert_bitwise_equal(dx, aten.hardtanh_backward(g, x, 0.0, 6.0))


def test_harness_reports_a_refused_step(tools):
    """A node the verifier rejects comes back as OpCheckError with the
    diagnostic."""
    x = _randn(4)
    with pytest.raises(op_check.OpCheckError, match="min <= max"):
        op_check.run_op("clamp", [x], [(x.shape, "f32")], {"min": 1.0, "max": 0.0})


# ---- Activations: hardswish, hardsigmoid and their gradients ----------------

#: Values at and next to the kinks of the hard activations, zeros of both
#: signs, infinities and NaN; the rest of each tensor is random.
_SPECIAL = [-3.0, 3.0, -3.0000002, -2.9999998, 2.9999998, 3.0000002, 0.0, -0.0,
            -6.0, 6.0, float("inf"), float("-inf"), float("nan"), 1e-30, -1e-30]


def _activation_input(seed):
    # 1024 elements, a multiple of every vector width: PyTorch's vectorized
    # CPU loop computes each element (its scalar remainder loop differs from
    # it for hardswish_backward at x = 3 and NaN; CkptOps.td).
    x = _randn(1024, seed=seed, scale=4.0)
    x[:len(_SPECIAL)] = torch.tensor(_SPECIAL)
    return x


@pytest.mark.parametrize("op,reference", [
    ("hardswish", aten.hardswish),
    ("hardsigmoid", aten.hardsigmoid),
])
def test_hard_activation_bit_exact(tools, op, reference):
    """Same expression, same order: bit-identical, NaN and -0 included."""
    x = _activation_input(2)
    (y,) = op_check.run_op(op, [x], [(x.shape, "f32")])
    op_check.assert_bitwise_equal(_canonical_nans(y), _canonical_nans(reference(x)), op)


@pytest.mark.parametrize("op,reference", [
    ("hardswish_grad", aten.hardswish_backward),
    ("hardsigmoid_grad", aten.hardsigmoid_backward),
])
def test_hard_activation_grad_bit_exact(tools, op, reference):
    """The gradients from the saved input, at -3 and 3 exactly too."""
    x = _activation_input(3)
    dy = _randn(1024, seed=4)
    (dx,) = op_check.run_op(op, [dy, x], [(x.shape, "f32")])
    op_check.assert_bitwise_equal(_canonical_nans(dx), _canonical_nans(reference(dy, x)), op)


def test_hard_activation_grads_at_the_bounds(tools):
    """The values the op definitions promise at the bounds, independently of
    PyTorch: hardswish_grad is -dy/2 at -3 and dy at 3; hardsigmoid_grad is
    zero at both."""
    x = torch.tensor([-3.0, 3.0] * 32)
    dy = torch.full((64,), 2.0)
    (dswish,) = op_check.run_op("hardswish_grad", [dy, x], [(x.shape, "f32")])
    (dsig,) = op_check.run_op("hardsigmoid_grad", [dy, x], [(x.shape, "f32")])
    op_check.assert_bitwise_equal(dswish, torch.tensor([-1.0, 2.0] * 32))
    op_check.assert_bitwise_equal(dsig, torch.zeros(64))


# ---- sin and cos -------------------------------------------------------------


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_sin_cos(tools, op):
    """The host kernel is the C library's sinf/cosf, PyTorch's CPU kernel
    SLEEF's (1 ulp): the two may differ by a few ulp of the result, so the
    tolerance is 4 ulp relative plus 2^-24 absolute (near the zeros of the
    function, where a result's ulp is tiny). Rotary arguments up to 2048
    radians are included; NaN and infinities give NaN in both."""
    x = torch.cat([_randn(960, seed=5, scale=3.0), torch.arange(0.0, 2048.0, 32.0)])
    x[:4] = torch.tensor([0.0, -0.0, float("inf"), float("nan")])
    (y,) = op_check.run_op(op, [x], [(x.shape, "f32")])
    expected = getattr(torch, op)(x)
    op_check.assert_close(y, expected, rtol=4 * 2.0 ** -23, atol=2.0 ** -24, what=op)
    # Exact where both are exact: sin(+-0) = +-0, cos(0) = 1.
    op_check.assert_bitwise_equal(y[:2], expected[:2], op)


# ---- abs, neg on integers, minimum, maximum (T5 relative-position buckets) ---

_INT_TYPES = [torch.int32, torch.int64]


def _ints(dtype, n, seed, span=1000):
    """`n` random integers in [-span, span) with the type's extremes first:
    its minimum (whose negation and absolute value wrap to itself), maximum,
    0 and -1."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-span, span, (n,), generator=g, dtype=dtype)
    info = torch.iinfo(dtype)
    x[:4] = torch.tensor([info.min, info.max, 0, -1], dtype=dtype)
    return x


@pytest.mark.parametrize("op", ["abs", "neg"])
@pytest.mark.parametrize("dtype", _INT_TYPES, ids=["i32", "i64"])
def test_abs_neg_integers_bit_exact(tools, op, dtype):
    """torch.abs / torch.neg of integers wrap: the minimum maps to itself."""
    x = _ints(dtype, 1024, seed=20).reshape(4, 256)
    (y,) = op_check.run_op(op, [x], [(x.shape, dtype)])
    op_check.assert_bitwise_equal(y, getattr(torch, op)(x), op)
    assert y[0, 0] == torch.iinfo(dtype).min


def test_abs_float_bit_exact(tools):
    """Floats: the sign bit cleared (-0 gives +0, -inf gives inf); NaN stays
    NaN. neg of floats is unchanged by the integer support."""
    x = _activation_input(21)
    (y,) = op_check.run_op("abs", [x], [(x.shape, "f32")])
    op_check.assert_bitwise_equal(_canonical_nans(y), _canonical_nans(torch.abs(x)), "abs")
    (n,) = op_check.run_op("neg", [x], [(x.shape, "f32")])
    op_check.assert_bitwise_equal(_canonical_nans(n), _canonical_nans(torch.neg(x)), "neg")


@pytest.mark.parametrize("op", ["minimum", "maximum"])
def test_minimum_maximum_float_bit_exact(tools, op):
    """Same shapes, 1024 elements (PyTorch's vectorized loop covers each):
    NaN on either side gives NaN, zeros of opposite signs give rhs, and
    infinities and ties compare as numbers."""
    a, b = _randn(1024, seed=22), _randn(1024, seed=23)
    special = [(float("nan"), 1.0), (1.0, float("nan")), (float("nan"), float("nan")),
               (-0.0, 0.0), (0.0, -0.0), (float("inf"), 3.0), (float("-inf"), 3.0),
               (2.5, 2.5), (-1e-30, 1e-30)]
    a[:len(special)] = torch.tensor([p[0] for p in special])
    b[:len(special)] = torch.tensor([p[1] for p in special])
    (z,) = op_check.run_op(op, [a, b], [(a.shape, "f32")])
    expected = getattr(torch, op)(a, b)
    op_check.assert_bitwise_equal(_canonical_nans(z), _canonical_nans(expected), op)
    assert torch.isnan(z[:3]).all()


@pytest.mark.parametrize("op", ["minimum", "maximum"])
@pytest.mark.parametrize("dtype", _INT_TYPES, ids=["i32", "i64"])
def test_minimum_maximum_integers_broadcast(tools, op, dtype):
    """Integers with numpy broadcasting ([4, 1, 64] against [3, 64]) and
    against a rank-0 bound (T5's min(bucket, num_buckets - 1))."""
    a = _ints(dtype, 256, seed=24).reshape(4, 1, 64)
    b = _ints(dtype, 192, seed=25, span=50).reshape(3, 64)
    (z,) = op_check.run_op(op, [a, b], [((4, 3, 64), dtype)])
    op_check.assert_bitwise_equal(z, getattr(torch, op)(a, b), op)
    cap = torch.tensor(31, dtype=dtype)
    (c,) = op_check.run_op(op, [a, cap], [(a.shape, dtype)])
    op_check.assert_bitwise_equal(c, getattr(torch, op)(a, cap), op)


def test_minimum_maximum_float_broadcast(tools):
    """f32 with broadcasting on both sides ([8, 1, 32] against [5, 32])."""
    a, b = _randn(8, 1, 32, seed=26), _randn(5, 32, seed=27)
    for op in ("minimum", "maximum"):
        (z,) = op_check.run_op(op, [a, b], [((8, 5, 32), "f32")])
        op_check.assert_bitwise_equal(z, getattr(torch, op)(a, b), op)


# ---- mse_loss ----------------------------------------------------------------

_REDUCTION = {"mean": 1, "sum": 2}  # at::Reduction


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_mse_loss(tools, reduction):
    """The squares are PyTorch's; their sum runs in double here and in
    PyTorch's own (vectorized, pairwise) order there, so the loss agrees to
    a few f32 ulp: relative tolerance 2^-21 (4 ulp)."""
    x, t = _randn(3, 37, 11, seed=6), _randn(3, 37, 11, seed=7)
    (loss,) = op_check.run_op("mse_loss", [x, t], [((), "f32")], {"reduction": reduction})
    expected = aten.mse_loss(x, t, _REDUCTION[reduction])
    op_check.assert_close(loss, expected, rtol=2.0 ** -21, atol=0.0, what=reduction)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_mse_loss_grad_bit_exact(tools, reduction):
    """(alpha * (x - t)) * dloss with alpha = float(2/N) or 2: bit-identical."""
    x, t = _randn(3, 37, 11, seed=8), _randn(3, 37, 11, seed=9)
    dloss = torch.tensor(0.37)
    (dx,) = op_check.run_op("mse_loss_grad", [dloss, x, t], [(x.shape, "f32")],
                            {"reduction": reduction})
    op_check.assert_bitwise_equal(dx, aten.mse_loss_backward(dloss, x, t, _REDUCTION[reduction]),
                                  reduction)


def test_mse_loss_grad_matches_autograd(tools):
    """The op pair is a loss and its gradient: autograd through F.mse_loss
    gives the same input gradient bit for bit."""
    x, t = _randn(64, seed=10).requires_grad_(), _randn(64, seed=11)
    torch.nn.functional.mse_loss(x, t).backward()
    (dx,) = op_check.run_op("mse_loss_grad", [torch.tensor(1.0), x.detach(), t],
                            [(x.shape, "f32")], {"reduction": "mean"})
    op_check.assert_bitwise_equal(dx, x.grad)


# ---- convert -------------------------------------------------------------------


def _convert_sources():
    """One tensor of every host element type, with the hard cases: halves
    and negative fractions (truncation), NaN, infinities, values beyond the
    integer ranges (PyTorch on x86 gives the minimum integer), -0, integers
    above 2^24 (rounded to nearest even in f32) and above 2^32 (i64 -> i32
    keeps the low bits)."""
    f = torch.cat([torch.tensor([2.5, -2.5, 0.7, -0.7, -0.0, float("nan"), float("inf"),
                                 float("-inf"), 3.0e9, -3.0e9, 2147483520.0, -2147483648.0,
                                 1e20, 16777217.0]),
                   _randn(50, seed=12, scale=1e3)])
    i64 = torch.cat([torch.tensor([2 ** 24 + 1, 2 ** 24 + 3, -(2 ** 53) - 1, 2 ** 62 + 1, 2 ** 33 + 5,
                                   -(2 ** 31) - 1, 0, -1]),
                     torch.randint(-2 ** 40, 2 ** 40, (56,), generator=torch.Generator().manual_seed(13))])
    i32 = torch.cat([torch.tensor([2 ** 31 - 1, -(2 ** 31), 2 ** 24 + 1, 0], dtype=torch.int32),
                     torch.randint(-2 ** 31, 2 ** 31 - 1, (60,), dtype=torch.int32,
                                   generator=torch.Generator().manual_seed(14))])
    mask = torch.rand(64, generator=torch.Generator().manual_seed(15)) > 0.5
    return {torch.float32: f, torch.int64: i64, torch.int32: i32, torch.bool: mask}


_HOST_TYPES = [torch.float32, torch.int64, torch.int32, torch.bool]


@pytest.mark.parametrize("src", _HOST_TYPES, ids=lambda d: str(d).split(".")[1])
@pytest.mark.parametrize("dst", _HOST_TYPES, ids=lambda d: str(d).split(".")[1])
def test_convert_bit_exact(tools, src, dst):
    """Every pair of host element types: bit-identical to Tensor.to."""
    if src == dst:
        pytest.skip("same type: a copy")
    x = _convert_sources()[src]
    (y,) = op_check.run_op("convert", [x], [(x.shape, dst)])
    op_check.assert_bitwise_equal(y, x.to(dst), f"{src} -> {dst}")


# ---- embedding_grad with padding_idx ----------------------------------------------


@pytest.mark.parametrize("padding_idx", [None, 0, 7])
def test_embedding_grad_padding_bit_exact(tools, padding_idx):
    """aten.embedding_dense_backward (padding_idx -1 = none): the padded row
    stays zero; the others add their rows in index order as PyTorch's CPU
    kernel does, bit for bit."""
    ids = torch.randint(0, 10, (6, 9), generator=torch.Generator().manual_seed(16))
    ids[0, :3] = 0
    ids[1, :3] = 7
    dy = _randn(6, 9, 5, seed=17)
    attrs = {} if padding_idx is None else {"padding_idx": padding_idx}
    (dt,) = op_check.run_op("embedding_grad", [dy, ids], [((10, 5), "f32")], attrs)
    expected = aten.embedding_dense_backward(dy, ids, 10, -1 if padding_idx is None else padding_idx,
                                             False)
    op_check.assert_bitwise_equal(dt, expected)
    if padding_idx is not None:
        assert not dt[padding_idx].any()


def test_embedding_grad_padding_matches_autograd(tools):
    """F.embedding(padding_idx=...) backward, with i32 indices."""
    w = _randn(10, 5, seed=18).requires_grad_()
    ids = torch.randint(0, 10, (4, 7), generator=torch.Generator().manual_seed(19)).int()
    dy = _randn(4, 7, 5, seed=20)
    torch.nn.functional.embedding(ids.long(), w, padding_idx=2).backward(dy)
    (dt,) = op_check.run_op("embedding_grad", [dy, ids], [((10, 5), "f32")], {"padding_idx": 2})
    op_check.assert_bitwise_equal(dt, w.grad)
