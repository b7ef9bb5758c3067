"""Tensor bundles (ckpt_export.bundle): byte layout, round trips, errors."""

import struct

import numpy as np
import pytest
import torch

from ckpt_export import bundle
from ckpt_export.bundle import BundleError, BundleTensor


def _golden():
    """A bundle written by hand from the format description."""
    out = [b"CKPTB001", struct.pack("<Q", 2)]
    out += [struct.pack("<I", 4), b"loss", bytes([0, 0]), struct.pack("<f", 1.5)]
    name = "grad:h.0.w\u00e9".encode("utf-8")
    out += [struct.pack("<I", len(name)), name, bytes([5, 2]), struct.pack("<2q", 2, 1),
            struct.pack("<2q", -3, 7)]
    return b"".join(out)


def test_layout_matches_the_format():
    ts = [BundleTensor("loss", "f32", (), struct.pack("<f", 1.5)),
          BundleTensor("grad:h.0.w\u00e9", "i64", (2, 1), struct.pack("<2q", -3, 7))]
    assert bundle.serialize(ts) == _golden()
    back = bundle.parse(_golden())
    assert back == ts


def test_torch_round_trip_every_dtype(tmp_path):
    g = torch.Generator().manual_seed(0)
    tensors = {
        "f32": torch.randn(3, 4, generator=g),
        "f16": torch.randn(5, generator=g).half(),
        "bf16": torch.randn(2, 3, generator=g).bfloat16(),
        "i1": torch.rand(7, generator=g) > 0.5,
        "i32": torch.randint(-100, 100, (2, 2, 2), generator=g, dtype=torch.int32),
        "i64": torch.randint(-2 ** 40, 2 ** 40, (4,), generator=g),
        "scalar": torch.tensor(1.0),
        "empty": torch.zeros(0, 3),
        "strided": torch.randn(4, 6, generator=g).t(),  # non-contiguous input
        "specials": torch.tensor([float("inf"), float("-inf"), -0.0, float("nan")]),
    }
    path = tmp_path / "b.ckptb"
    bundle.write_torch(path, tensors)
    back = bundle.read_torch(path)
    assert list(back) == list(tensors)  # order kept
    for k, v in tensors.items():
        assert back[k].dtype == v.dtype and back[k].shape == v.shape, k
        if v.dtype.is_floating_point:  # bit-exact, NaN and -0 included
            iv = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}
            assert torch.equal(back[k].contiguous().view(iv[v.dtype]), v.contiguous().view(iv[v.dtype])), k
        else:
            assert torch.equal(back[k], v), k
    # byte-identical when written again
    path2 = tmp_path / "c.ckptb"
    bundle.write_torch(path2, back)
    assert path.read_bytes() == path2.read_bytes()


def test_to_numpy():
    t = bundle.from_torch("x", torch.tensor([1.0, -2.5, 3.140625], dtype=torch.bfloat16))
    a = bundle.to_numpy(t)
    assert a.dtype == np.float32 and a.tolist() == [1.0, -2.5, 3.140625]
    m = bundle.to_numpy(bundle.from_torch("m", torch.tensor([True, False])))
    assert m.dtype == np.bool_ and m.tolist() == [True, False]
    i = bundle.to_numpy(bundle.from_torch("i", torch.tensor([[1, 2]], dtype=torch.int32)))
    assert i.dtype == np.int32 and i.shape == (1, 2)
    assert bundle.from_torch("b", torch.tensor([True, False, True])).data == b"\x01\x00\x01"


@pytest.mark.parametrize("mutate,message", [
    (lambda b: b"CKPTB002" + b[8:], "bad magic"),
    (lambda b: b[:-1], "truncated"),
    (lambda b: b + b"\x00", "1 trailing bytes"),
    (lambda b: b[:24] + bytes([9]) + b[25:], "unknown dtype code 9"),
    (lambda b: b[:25] + bytes([9]) + b[26:], "rank 9 exceeds 8"),
    (lambda b: b[:8] + struct.pack("<Q", 3) + b[16:], "truncated"),
    (lambda b: b[:16] + struct.pack("<I", 10 ** 6) + b[20:], "truncated"),
])
def test_malformed_bundles_are_rejected(mutate, message):
    with pytest.raises(BundleError, match=message):
        bundle.parse(mutate(_golden()), "g.ckptb")


def test_negative_dimension_and_bad_records():
    b = _golden()
    k = b.index(struct.pack("<2q", 2, 1))
    with pytest.raises(BundleError, match="negative dimension"):
        bundle.parse(b[:k] + struct.pack("<q", -2) + b[k + 8:])
    with pytest.raises(BundleError, match="duplicate tensor name 'a'"):
        bundle.serialize([BundleTensor("a", "f32", (), b"\0" * 4)] * 2)
    with pytest.raises(BundleError, match="needs 8"):
        bundle.serialize([BundleTensor("a", "f32", (2,), b"\0" * 4)])
    with pytest.raises(BundleError, match="unknown dtype 'f64'"):
        bundle.serialize([BundleTensor("a", "f64", (), b"\0" * 8)])
    with pytest.raises(BundleError, match="no bundle code"):
        bundle.from_torch("d", torch.zeros(2, dtype=torch.float64))
    dup = bundle.serialize([BundleTensor("a", "f32", (), b"\0" * 4)])
    dup = b"CKPTB001" + struct.pack("<Q", 2) + dup[16:] * 2
    with pytest.raises(BundleError, match="duplicate tensor name 'a'"):
        bundle.parse(dup)


def test_write_is_atomic_on_error(tmp_path):
    path = tmp_path / "x.ckptb"
    bundle.write_torch(path, {"a": torch.ones(2)})
    before = path.read_bytes()
    with pytest.raises(BundleError):
        bundle.write(path, [BundleTensor("a", "f32", (3,), b"")])
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.ckptb"]
