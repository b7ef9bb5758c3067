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

TORCH_1 = int(torch.__version__.split(".")[0]) < 2

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
    want = reference(dy, x)
    if op == "hardswish_grad" and TORCH_1:  # 1.13 gave -dy/2 at -3; the op follows PyTorch 2
        want = torch.where(x == -3.0, torch.zeros_like(want), want)
    op_check.assert_bitwise_equal(_canonical_nans(dx), _canonical_nans(want), op)


def test_hard_activation_grads_at_the_bounds(tools):
    """The values the op definitions promise at the bounds, independently of
    PyTorch: hardswish_grad is 0 at -3 and dy at 3; hardsigmoid_grad is
    zero at both."""  # (PyTorch 2's hardswish_backward: 0 at -3)
    x = torch.tensor([-3.0, 3.0] * 32)
    dy = torch.full((64,), 2.0)
    (dswish,) = op_check.run_op("hardswish_grad", [dy, x], [(x.shape, "f32")])
    (dsig,) = op_check.run_op("hardsigmoid_grad", [dy, x], [(x.shape, "f32")])
    op_check.assert_bitwise_equal(dswish, torch.tensor([0.0, 2.0] * 32))
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


@pytest.mark.parametrize("src,dst", [(s, d) for s in _HOST_TYPES for d in _HOST_TYPES if s != d],
                         ids=lambda d: str(d).split(".")[1])
def test_convert_bit_exact(tools, src, dst):
    """Every pair of distinct host element types: bit-identical to Tensor.to."""
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


# ---- attention with a mask ---------------------------------------------------
#
# torch 1.13 has no F.scaled_dot_product_attention: the reference is its
# formula, softmax(q k^T * scale + bias) v, in f64 (grouped-query heads
# repeated), and torch.autograd for the gradients. The host kernel sums in
# f32 (its dot products in 8 lanes): relative 1e-5 on O(1) values.

_B, _H, _HKV, _S, _SKV, _D, _DV = 2, 4, 2, 5, 7, 8, 3
_ATTN_SCALE = 0.35


def _attention_ref(q, k, v, mask, causal):
    """(out, lse) of scaled-dot-product attention in f64."""
    q, k, v = q.double(), k.double(), v.double()
    rep = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
    scores = torch.matmul(q, k.transpose(-1, -2)) * _ATTN_SCALE
    if causal:
        keep = torch.ones(scores.shape[-2:], dtype=torch.bool).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    if mask is not None:
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        else:
            scores = scores + mask.double()
    return torch.matmul(torch.softmax(scores, -1), v), torch.logsumexp(scores, -1)


def _attention_inputs(kind, seed):
    q = _randn(_B, _H, _S, _D, seed=seed)
    k = _randn(_B, _HKV, _SKV, _D, seed=seed + 1)
    v = _randn(_B, _HKV, _SKV, _DV, seed=seed + 2)
    if kind == "bias":  # [S, Skv], broadcast over batch and heads; some -inf
        mask = _randn(_S, _SKV, seed=seed + 3)
        mask[1, 3] = float("-inf")
    elif kind == "bias4":  # full [B, H, S, Skv]
        mask = _randn(_B, _H, _S, _SKV, seed=seed + 3)
    else:  # key padding [B, 1, 1, Skv]: key 0 always kept
        mask = torch.rand(_B, 1, 1, _SKV, generator=torch.Generator().manual_seed(seed)) < 0.6
        mask[..., 0] = True
    return q, k, v, mask


def _attrs(causal):
    return {"scale": _ATTN_SCALE, **({"causal": True} if causal else {})}


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("kind", ["bias", "bias4", "keep"])
def test_attention_mask(tools, kind, causal):
    """The bias is added to the scaled scores, the keep-mask drops keys."""
    q, k, v, mask = _attention_inputs(kind, seed=20)
    out, lse = op_check.run_op("attention", [q, k, v, mask],
                               [((_B, _H, _S, _DV), "f32"), ((_B, _H, _S), "f32")],
                               _attrs(causal))
    ref_out, ref_lse = _attention_ref(q, k, v, mask, causal)
    op_check.assert_close(out, ref_out.float(), rtol=1e-5, atol=1e-5, what="out")
    op_check.assert_close(lse, ref_lse.float(), rtol=1e-5, atol=1e-5, what="lse")
    # Without the mask the result differs: the operand is not ignored.
    (plain, _) = op_check.run_op("attention", [q, k, v, None],
                                 [((_B, _H, _S, _DV), "f32"), ((_B, _H, _S), "f32")],
                                 _attrs(causal))
    assert (plain - out).abs().max() > 1e-3


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("kind", ["bias", "keep"])
def test_attention_grad_mask_matches_autograd(tools, kind, causal):
    """attention_grad with the mask, from the host forward's own out and lse,
    against torch.autograd through the f64 formula."""
    q, k, v, mask = _attention_inputs(kind, seed=30)
    dout = _randn(_B, _H, _S, _DV, seed=34)
    out, lse = op_check.run_op("attention", [q, k, v, mask],
                               [((_B, _H, _S, _DV), "f32"), ((_B, _H, _S), "f32")],
                               _attrs(causal))
    dq, dk, dv = op_check.run_op("attention_grad", [dout, q, k, v, out, lse, mask],
                                 [(q.shape, "f32"), (k.shape, "f32"), (v.shape, "f32")],
                                 _attrs(causal))
    qd, kd, vd = (t.double().requires_grad_() for t in (q, k, v))
    ref_out, _ = _attention_ref(qd, kd, vd, mask, causal)
    ref = torch.autograd.grad(ref_out, (qd, kd, vd), dout.double())
    for name, got, want in zip(("dq", "dk", "dv"), (dq, dk, dv), ref):
        op_check.assert_close(got, want.float(), rtol=1e-4, atol=1e-5, what=name)


def test_attention_fully_masked_row(tools):
    """A row whose every key is masked out: NaN output and lse = -inf (PyTorch's
    softmax gives NaN too); the other rows are unaffected, and the backward
    gives the masked row zero gradients."""
    q, k, v, _ = _attention_inputs("keep", seed=40)
    mask = torch.ones(_B, _H, _S, _SKV, dtype=torch.bool)
    mask[1, 2, 3, :] = False
    out, lse = op_check.run_op("attention", [q, k, v, mask],
                               [((_B, _H, _S, _DV), "f32"), ((_B, _H, _S), "f32")],
                               _attrs(False))
    ref_out, ref_lse = _attention_ref(q, k, v, mask, False)
    assert torch.isnan(ref_out[1, 2, 3]).all()
    op_check.assert_close(out, ref_out.float(), rtol=1e-5, atol=1e-5, what="out")
    assert torch.isnan(out).sum() == _DV
    assert lse[1, 2, 3] == float("-inf")
    op_check.assert_close(lse, ref_lse.float(), rtol=1e-5, atol=1e-5, what="lse")
    dout = _randn(_B, _H, _S, _DV, seed=44)
    dq, dk, dv = op_check.run_op("attention_grad", [dout, q, k, v, out, lse, mask],
                                 [(q.shape, "f32"), (k.shape, "f32"), (v.shape, "f32")],
                                 _attrs(False))
    assert torch.all(dq[1, 2, 3] == 0)
    for t in (dq, dk, dv):
        assert torch.isfinite(t).all()
    # The other rows' gradients: autograd with the masked row's dout zeroed.
    dout0 = dout.clone()
    dout0[1, 2, 3] = 0
    keep = mask.clone()
    keep[1, 2, 3, :] = True  # any finite row; its dout is zero
    qd, kd, vd = (t.double().requires_grad_() for t in (q, k, v))
    ref_o, _ = _attention_ref(qd, kd, vd, keep, False)
    ref = torch.autograd.grad(ref_o, (qd, kd, vd), dout0.double())
    for name, got, want in zip(("dq", "dk", "dv"), (dq, dk, dv), ref):
        op_check.assert_close(got, want.float(), rtol=1e-4, atol=1e-5, what=name)


@pytest.mark.parametrize("kind", ["bias", "keep"])
def test_attention_mask_interp_matches_host(tools, kind):
    """python/ckpt_export/interp.py runs the same one-op graph (mask as the
    4th / 7th operand) to the host kernels' results."""
    from ckpt_export import interp
    q, k, v, mask = _attention_inputs(kind, seed=50)
    dout = _randn(_B, _H, _S, _DV, seed=54)
    fwd_out = [((_B, _H, _S, _DV), "f32"), ((_B, _H, _S), "f32")]
    out, lse = op_check.run_op("attention", [q, k, v, mask], fwd_out, _attrs(True))
    env = interp.run(op_check.graph_for("attention", [q, k, v, mask], fwd_out, _attrs(True)),
                     {"in0": q, "in1": k, "in2": v, "in3": mask, "loss_in": torch.tensor(0.0)})
    op_check.assert_close(env["out0"], out, rtol=1e-5, atol=1e-5, what="interp out")
    op_check.assert_close(env["out1"], lse, rtol=1e-5, atol=1e-5, what="interp lse")
    ins = [dout, q, k, v, out, lse, mask]
    bwd_out = [(q.shape, "f32"), (k.shape, "f32"), (v.shape, "f32")]
    grads = op_check.run_op("attention_grad", ins, bwd_out, _attrs(True))
    env = interp.run(op_check.graph_for("attention_grad", ins, bwd_out, _attrs(True)),
                     {**{f"in{i}": t for i, t in enumerate(ins)}, "loss_in": torch.tensor(0.0)})
    for i, got in enumerate(grads):
        op_check.assert_close(env[f"out{i}"], got, rtol=1e-4, atol=1e-5, what=f"interp grad {i}")
