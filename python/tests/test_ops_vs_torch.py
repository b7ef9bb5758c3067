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
