"""Tensor bundles: named, typed, shaped tensors in one little-endian file.

The format ckpt-run (runtime/include/ckpt/Runtime/TensorBundle.h) and the
Python side exchange parameters, inputs and results in::

    offset  field
    0       magic b"CKPTB001"
    8       u64 count
    then per tensor:
            u32 nameLen, nameLen bytes of UTF-8 name
            u8 dtype code (f32=0, f16=1, bf16=2, i1=3, i32=4, i64=5)
            u8 rank, i64 dims[rank] (each >= 0)
            numel * element size bytes of row-major data (i1: one byte, 0 or 1)

All integers are little-endian; the file ends right after the last tensor.

``read`` / ``write`` work on :class:`BundleTensor` records holding the raw
bytes (so that results can be compared bit for bit); ``read_torch`` /
``write_torch`` convert from and to ``torch.Tensor`` dictionaries, and
``to_numpy`` gives a NumPy array (bf16 widened exactly to float32).
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Sequence, Tuple, Union

import numpy as np

MAGIC = b"CKPTB001"

#: dtype name -> (code, element bytes)
DTYPES: Dict[str, Tuple[int, int]] = {
    "f32": (0, 4), "f16": (1, 2), "bf16": (2, 2), "i1": (3, 1), "i32": (4, 4), "i64": (5, 8),
}
_BY_CODE = {code: name for name, (code, _) in DTYPES.items()}
#: Little-endian NumPy storage type of each dtype (bf16 as its raw 16 bits).
_NP_STORAGE = {"f32": "<f4", "f16": "<f2", "bf16": "<u2", "i1": "u1", "i32": "<i4", "i64": "<i8"}
#: Largest rank a bundle may hold (the runtime's kMaxRank).
MAX_RANK = 8


class BundleError(ValueError):
    """A malformed bundle or a tensor that cannot be stored in one."""


@dataclass
class BundleTensor:
    """One tensor of a bundle: name, dtype name (``"f32"``...), shape and the
    raw little-endian row-major bytes."""
    name: str
    dtype: str
    shape: Tuple[int, ...]
    data: bytes

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


def _check(t: BundleTensor) -> None:
    if t.dtype not in DTYPES:
        raise BundleError(f"{t.name!r}: unknown dtype {t.dtype!r} (expected one of {', '.join(DTYPES)})")
    if len(t.shape) > MAX_RANK:
        raise BundleError(f"{t.name!r}: rank {len(t.shape)} exceeds {MAX_RANK}")
    if any(int(d) < 0 for d in t.shape):
        raise BundleError(f"{t.name!r}: negative dimension in {list(t.shape)}")
    want = t.numel * DTYPES[t.dtype][1]
    if len(t.data) != want:
        raise BundleError(f"{t.name!r}: {len(t.data)} data bytes, shape {list(t.shape)} {t.dtype} "
                          f"needs {want}")


def serialize(tensors: Iterable[BundleTensor]) -> bytes:
    """The bundle holding `tensors`, in the given order. Names must be unique."""
    tensors = list(tensors)
    seen = set()
    out = [MAGIC, struct.pack("<Q", len(tensors))]
    for t in tensors:
        _check(t)
        if t.name in seen:
            raise BundleError(f"duplicate tensor name {t.name!r}")
        seen.add(t.name)
        name = t.name.encode("utf-8")
        out.append(struct.pack("<I", len(name)))
        out.append(name)
        out.append(struct.pack("<BB", DTYPES[t.dtype][0], len(t.shape)))
        out.append(struct.pack(f"<{len(t.shape)}q", *[int(d) for d in t.shape]))
        out.append(bytes(t.data))
    return b"".join(out)


def parse(buf: bytes, what: str = "<bytes>") -> List[BundleTensor]:
    """Parses a bundle; raises :class:`BundleError` naming `what` and the byte
    offset on malformed input."""
    pos = 0

    def take(n: int, field: str) -> bytes:
        nonlocal pos
        if n < 0 or pos + n > len(buf):
            raise BundleError(f"{what}: truncated at byte {pos} (reading {field})")
        b = buf[pos:pos + n]
        pos += n
        return b

    if take(8, "the magic") != MAGIC:
        raise BundleError(f"{what}: bad magic (expected {MAGIC!r})")
    (count,) = struct.unpack("<Q", take(8, "the tensor count"))
    tensors: List[BundleTensor] = []
    names = set()
    for _ in range(count):
        start = pos
        (n,) = struct.unpack("<I", take(4, "a name length"))
        try:
            name = take(n, "a name").decode("utf-8")
        except UnicodeDecodeError:
            raise BundleError(f"{what}: tensor name at byte {start + 4} is not UTF-8") from None
        code, rank = struct.unpack("<BB", take(2, "dtype and rank"))
        if code not in _BY_CODE:
            raise BundleError(f"{what}: {name!r}: unknown dtype code {code} at byte {pos - 2}")
        if rank > MAX_RANK:
            raise BundleError(f"{what}: {name!r}: rank {rank} exceeds {MAX_RANK} at byte {pos - 1}")
        dims = struct.unpack(f"<{rank}q", take(8 * rank, "dimensions"))
        if any(d < 0 for d in dims):
            raise BundleError(f"{what}: {name!r}: negative dimension in {list(dims)}")
        dtype = _BY_CODE[code]
        numel = 1
        for d in dims:
            numel *= d
        data = take(numel * DTYPES[dtype][1], f"the data of {name!r}")
        if name in names:
            raise BundleError(f"{what}: duplicate tensor name {name!r} at byte {start}")
        names.add(name)
        tensors.append(BundleTensor(name, dtype, tuple(dims), bytes(data)))
    if pos != len(buf):
        raise BundleError(f"{what}: {len(buf) - pos} trailing bytes at byte {pos}")
    return tensors


def read(path: Union[str, os.PathLike]) -> List[BundleTensor]:
    """Reads the bundle at `path` (tensors in file order)."""
    with open(path, "rb") as f:
        return parse(f.read(), str(path))


def write(path: Union[str, os.PathLike], tensors: Iterable[BundleTensor]) -> None:
    """Writes `tensors` to `path` (through a temporary file, then a rename)."""
    data = serialize(tensors)
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


# ---- NumPy and torch conversions -------------------------------------------

def to_numpy(t: BundleTensor) -> np.ndarray:
    """The tensor as a NumPy array: f32/f16/i32/i64 as such, i1 as bool, bf16
    widened (exactly) to float32."""
    raw = np.frombuffer(t.data, dtype=_NP_STORAGE[t.dtype]).reshape(t.shape)
    if t.dtype == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32)
    if t.dtype == "i1":
        return raw.astype(np.bool_)
    return raw.astype(raw.dtype.newbyteorder("="))


def _torch():
    import torch
    return torch


def from_torch(name: str, tensor) -> BundleTensor:
    """A bundle record of a ``torch.Tensor`` (copied, made contiguous)."""
    torch = _torch()
    names = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.bool: "i1",
             torch.int32: "i32", torch.int64: "i64"}
    if tensor.dtype not in names:
        raise BundleError(f"{name!r}: dtype {tensor.dtype} has no bundle code")
    dtype = names[tensor.dtype]
    t = tensor.detach().cpu().contiguous()
    if dtype == "bf16":
        arr = t.view(torch.int16).numpy().view(np.uint16)
    elif dtype == "i1":
        arr = t.numpy().astype(np.uint8)
    else:
        arr = t.numpy()
    data = arr.astype(np.dtype(_NP_STORAGE[dtype]), copy=False).tobytes()
    return BundleTensor(name, dtype, tuple(int(d) for d in t.shape), data)


def to_torch(t: BundleTensor):
    """The record as a ``torch.Tensor`` (a copy, bit-identical)."""
    torch = _torch()
    raw = np.frombuffer(t.data, dtype=_NP_STORAGE[t.dtype]).reshape(t.shape)
    if t.dtype == "bf16":
        return torch.from_numpy(raw.astype(np.uint16).view(np.int16)).view(torch.bfloat16).clone()
    if t.dtype == "i1":
        return torch.from_numpy(raw.astype(np.bool_))
    return torch.from_numpy(raw.astype(raw.dtype.newbyteorder("="))).clone()


def write_torch(path: Union[str, os.PathLike], tensors: Union[Mapping[str, object], Sequence]) -> None:
    """Writes a name -> ``torch.Tensor`` mapping (or (name, tensor) pairs), in
    order."""
    items = tensors.items() if isinstance(tensors, Mapping) else tensors
    write(path, [from_torch(n, t) for n, t in items])


def read_torch(path: Union[str, os.PathLike]) -> Dict[str, object]:
    """Reads a bundle as an ordered name -> ``torch.Tensor`` dict."""
    return {t.name: to_torch(t) for t in read(path)}
