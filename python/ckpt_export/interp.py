"""Reference interpreter for graph format v1 (used by the tests).

Executes a graph with PyTorch following the ckpt op semantics in
docs/dialect.md / CkptOps.td and checks every result against its declared
shape and dtype, so a wrong operand order, transpose flag, axis or shape in the
exporter shows up as a numeric or shape mismatch. Opaque ops run the callables
recorded at export time (``ExportResult.opaque_impls``). Dropout masks come
from a local generator (not Philox): compare numerically only with p = 0.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Sequence

import torch
import torch.nn.functional as F

aten = torch.ops.aten
TORCH_DT = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "i64": torch.int64,
            "i32": torch.int32, "i1": torch.bool}


class InterpError(AssertionError):
    pass


def _t(x, flag):
    return x.transpose(-1, -2) if flag else x


def _bcast(x, shape):
    r = len(shape) - x.dim()
    return x.reshape([1] * r + list(x.shape)).expand(shape)


def run(graph: dict, inputs: Dict[str, torch.Tensor], opaque_impls: Dict[str, Callable] = None,
        seed: float = 1.0, gen: torch.Generator = None) -> Dict[str, torch.Tensor]:
    """Runs ``graph``; ``inputs`` maps input ids (or ``name``s) to tensors; returns all values."""
    opaque_impls = opaque_impls or {}
    gen = gen or torch.Generator().manual_seed(0)
    env: Dict[str, torch.Tensor] = {}
    for d in graph["inputs"]:
        if d["role"] == "seed":
            env[d["id"]] = torch.tensor(seed, dtype=TORCH_DT[d["dtype"]])
        else:
            v = inputs.get(d["id"], inputs.get(d.get("name")))
            if v is None:
                raise InterpError(f"no value for input {d['id']} ({d.get('name')})")
            env[d["id"]] = v
    for nd in graph["nodes"]:
        ins = [env[i] if i is not None else None for i in nd["inputs"]]
        a = nd.get("attrs", {})
        outs = nd["outputs"]
        res = _exec(nd, nd["op"], ins, a, outs, opaque_impls, gen)
        if isinstance(res, torch.Tensor):
            res = [res]
        res = list(res)
        if len(res) != len(outs):
            raise InterpError(f"{nd['id']} ({nd['op']}): {len(res)} results, {len(outs)} declared")
        for r, o in zip(res, outs):
            if list(r.shape) != o["shape"] or r.dtype != TORCH_DT[o["dtype"]]:
                raise InterpError(f"{nd['id']} ({nd['op']}): result {o['id']} is {list(r.shape)} {r.dtype}, "
                                  f"declared {o['shape']} {o['dtype']}")
            env[o["id"]] = r
    return env


def _attention(q, k, v, a, mask=None):
    """``ckpt.attention`` without dropout: (out, row log-sum-exp in f32);
    grouped-query attention repeats each key/value head for its queries.
    ``mask`` is an additive float bias or a bool keep-mask (true = attend),
    broadcast to the scores."""
    if a.get("dropout_p", 0.0):
        raise InterpError("the interpreter runs attention without dropout only")
    rep = q.shape[-3] // k.shape[-3] if q.dim() == 4 else 1
    if rep > 1:
        k = k.repeat_interleave(rep, dim=-3)
        v = v.repeat_interleave(rep, dim=-3)
    scores = torch.matmul(q, k.transpose(-1, -2)) * a["scale"]
    if a.get("causal"):
        s, skv = scores.shape[-2], scores.shape[-1]
        keep = torch.ones(s, skv, dtype=torch.bool).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    if mask is not None:
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        else:
            scores = scores + mask
    lse = torch.logsumexp(scores.float(), dim=-1)
    return torch.matmul(torch.softmax(scores, dim=-1), v), lse


def _exec(nd, op, x, a, outs, impls, gen):
    shp = [o["shape"] for o in outs]
    if op == "opaque":
        return impls[nd["id"]](*x)
    if op == "linear":
        return F.linear(x[0], x[1], x[2] if len(x) > 2 else None)
    if op in ("matmul", "batch_matmul"):
        return torch.matmul(_t(x[0], a.get("transpose_lhs")), _t(x[1], a.get("transpose_rhs")))
    if op in ("add", "sub", "mul", "div"):
        return getattr(torch, op)(x[0], x[1])
    if op in ("neg", "exp", "log", "sqrt", "rsqrt", "tanh", "sin", "cos", "relu", "sigmoid"):
        return getattr(torch, op)(x[0])
    if op == "silu":
        return F.silu(x[0])
    if op in ("abs", "minimum", "maximum"):  # also on i32 / i64 tensors
        return getattr(torch, op)(*x)
    if op == "pow":
        return torch.pow(x[0], a["exponent"])
    if op == "gelu":
        return F.gelu(x[0], approximate="tanh" if a["approximation"] == "tanh" else "none")
    if op == "gelu_grad":
        return aten.gelu_backward(x[0], x[1], approximate="tanh" if a["approximation"] == "tanh" else "none")
    if op == "clamp":
        return aten.hardtanh(x[0], a["min"], a["max"])
    if op == "clamp_grad":
        return aten.hardtanh_backward(x[0], x[1], a["min"], a["max"])
    if op == "hardswish":
        return aten.hardswish(x[0])
    if op == "hardswish_grad":
        return aten.hardswish_backward(x[0], x[1])
    if op == "hardsigmoid":
        return aten.hardsigmoid(x[0])
    if op == "hardsigmoid_grad":
        return aten.hardsigmoid_backward(x[0], x[1])
    if op == "fill":
        value = float(a["value"]) if isinstance(a["value"], str) else a["value"]  # "inf", "-inf"
        return torch.full(shp[0], value, dtype=TORCH_DT[outs[0]["dtype"]])
    if op == "iota":
        # torch.arange's own rounding. Integer sequences end exactly at
        # start + n * step; float ones half a step past the last element, which
        # keeps the length at n whatever (end - start) / step rounds to.
        n, dt = shp[0][0], TORCH_DT[outs[0]["dtype"]]
        end = a["start"] + (n if not dt.is_floating_point else n - 0.5) * a["step"]
        return torch.arange(a["start"], end, a["step"], dtype=dt)
    if op == "compare":
        return getattr(torch, a["predicate"])(x[0], x[1])
    if op == "select":
        return torch.where(x[0], x[1], x[2])
    if op in ("logical_not", "logical_and", "logical_or"):
        return getattr(torch, op)(*x)
    if op == "convert":
        return x[0].to(TORCH_DT[outs[0]["dtype"]])
    if op == "relu_grad":
        return torch.where(x[1] > 0, x[0], torch.zeros_like(x[0]))
    if op == "sigmoid_grad":
        return x[0] * x[1] * (1 - x[1])
    if op == "tanh_grad":
        return x[0] * (1 - x[1] * x[1])
    if op == "silu_grad":
        s = torch.sigmoid(x[1])
        return x[0] * s * (1 + x[1] * (1 - s))
    if op == "attention":
        return _attention(x[0], x[1], x[2], a, x[3] if len(x) > 3 else None)
    if op == "attention_grad":
        dout, q, k, v = x[0], x[1], x[2], x[3]
        q, k, v = (t.detach().requires_grad_(True) for t in (q, k, v))
        with torch.enable_grad():
            out, _ = _attention(q, k, v, a, x[6] if len(x) > 6 else None)
        return torch.autograd.grad(out, (q, k, v), dout)
    if op == "softmax":
        return torch.softmax(x[0], a["axis"])
    if op == "log_softmax":
        return torch.log_softmax(x[0], a["axis"])
    if op == "softmax_grad":
        dy, y = x
        return y * (dy - (dy * y).sum(a["axis"], keepdim=True))
    if op == "log_softmax_grad":
        dy, y = x
        return dy - torch.exp(y) * dy.sum(a["axis"], keepdim=True)
    if op == "layer_norm":
        xx, w, b = (x + [None, None])[:3]
        ax = a["axis"]
        y, m, r = aten.native_layer_norm(xx, list(xx.shape[ax:]), w, b, a["epsilon"])
        st = list(xx.shape[:ax])
        return y, m.reshape(st), r.reshape(st)
    if op == "layer_norm_grad":
        dy, xx, m, r = x[:4]
        w = x[4] if len(x) > 4 else None
        ax = a["axis"]
        k = len(outs) - 1
        ext = list(m.shape) + [1] * (xx.dim() - ax)
        res = aten.native_layer_norm_backward(dy, xx, list(xx.shape[ax:]), m.reshape(ext), r.reshape(ext), w,
                                              None if k < 2 else torch.zeros_like(w), [True, k >= 1, k >= 2])
        return [res[0]] + [res[i] for i in range(1, k + 1)]
    if op == "batch_norm":
        xx, w, b = (x + [None, None])[:3]
        y, m, r = aten.native_batch_norm(xx, w, b, None, None, True, 0.1, a["epsilon"])
        return y, m, r
    if op == "batch_norm_grad":
        dy, xx, m, r = x[:4]
        w = x[4] if len(x) > 4 else None
        k = len(outs) - 1
        res = aten.native_batch_norm_backward(dy, xx, w, None, None, m, r, True, 1e-5, [True, k >= 1, k >= 2])
        return [res[0]] + [res[i] for i in range(1, k + 1)]
    if op == "dropout":
        p = a["p"]
        mask = torch.rand(x[0].shape, generator=gen) >= p
        return x[0] * mask / (1 - p), mask
    if op == "dropout_grad":
        return x[0] * x[1] / (1 - a["p"])
    if op == "embedding":
        return F.embedding(x[1], x[0])
    if op == "embedding_grad":
        g, idx = x
        V, D = shp[0]
        return aten.embedding_dense_backward(g, idx, V, a.get("padding_idx", -1), False)
    if op == "cross_entropy":
        logits, t = x
        ii = a.get("ignore_index", -100)
        lse = torch.logsumexp(logits.float(), -1)
        valid = t != ii
        picked = logits.gather(-1, torch.where(valid, t, 0).unsqueeze(-1)).squeeze(-1)
        rows = torch.where(valid, lse - picked, torch.zeros_like(lse))
        red = a["reduction"]
        loss = rows.sum() / valid.sum() if red == "mean" else (rows.sum() if red == "sum" else rows)
        return loss.to(logits.dtype), lse
    if op == "cross_entropy_grad":
        g, logits, t, lse = x
        ii = a.get("ignore_index", -100)
        valid = t != ii
        p = torch.exp(logits - lse.unsqueeze(-1))
        oh = F.one_hot(torch.where(valid, t, 0), logits.shape[-1]).to(p.dtype)
        d = (p - oh) * valid.unsqueeze(-1)
        red = a["reduction"]
        if red == "mean":
            d = d * g / valid.sum()
        elif red == "sum":
            d = d * g
        else:
            d = d * g.unsqueeze(-1)
        return d
    if op == "mse_loss":
        return aten.mse_loss(x[0], x[1], 1 if a["reduction"] == "mean" else 2)
    if op == "mse_loss_grad":
        return aten.mse_loss_backward(x[0], x[1], x[2], 1 if a["reduction"] == "mean" else 2)
    if op in ("reduce_sum", "reduce_mean", "reduce_max"):
        axes = a["axes"]
        kd = bool(a.get("keep_dims"))
        if op == "reduce_sum":
            return x[0].sum(axes, keepdim=kd)
        if op == "reduce_mean":
            return x[0].mean(axes, keepdim=kd)
        return x[0].amax(axes, keepdim=kd)
    if op == "reshape":
        return x[0].reshape(shp[0])
    if op == "transpose":
        return x[0].permute(a["perm"]).contiguous()
    if op == "broadcast":
        return _bcast(x[0], shp[0]).contiguous()
    if op == "slice":
        idx = tuple(slice(s, s + (n - 1) * st + 1, st) for s, st, n in zip(a["starts"], a["steps"], shp[0]))
        return x[0][idx]
    if op == "concat":
        return torch.cat(x, a["axis"])
    if op in ("tril", "triu"):
        return getattr(torch, op)(x[0], a.get("diagonal", 0))
    if op == "pad":
        pads = [p for lo, hi in zip(reversed(a["low"]), reversed(a["high"])) for p in (lo, hi)]
        return aten.constant_pad_nd(x[0], pads, a["value"])
    if op == "gather":
        return torch.gather(x[0], a["dim"], x[1])
    cv = dict(stride=a.get("strides"), padding=a.get("padding"), dilation=a.get("dilation"),
              groups=a.get("groups", 1))
    if op == "conv2d":
        return F.conv2d(x[0], x[1], x[2] if len(x) > 2 else None, **cv)
    if op == "conv2d_grad_input":
        return torch.nn.grad.conv2d_input(shp[0], x[1], x[0], **cv)
    if op == "conv2d_grad_weight":
        return torch.nn.grad.conv2d_weight(x[1], shp[0], x[0], **cv)
    if op == "max_pool2d":
        return F.max_pool2d(x[0], a["kernel"], a["strides"], a["padding"], return_indices=True)
    if op == "max_pool2d_grad":
        g, idx = x
        N, C, H, W = shp[0]
        return torch.zeros(N, C, H * W, dtype=g.dtype).scatter_add_(
            2, idx.reshape(N, C, -1), g.reshape(N, C, -1)).reshape(N, C, H, W)
    if op == "avg_pool2d":
        return F.avg_pool2d(x[0], a["kernel"], a["strides"], a["padding"],
                            count_include_pad=bool(a.get("count_include_pad")))
    if op == "avg_pool2d_grad":
        return aten.avg_pool2d_backward(x[0], torch.zeros(shp[0], dtype=x[0].dtype), a["kernel"], a["strides"],
                                        a["padding"], False, bool(a.get("count_include_pad")), None)
    raise InterpError(f"interpreter does not implement {op}")
