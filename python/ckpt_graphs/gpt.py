"""A GPT (pre-LayerNorm decoder) training step in graph format v1.

Each layer is the block of Korthikanti et al. 2022 ("Reducing Activation
Recomputation in Large Transformer Models"): LayerNorm, QKV projection,
causal fused attention with dropout on the probabilities, output projection,
dropout, residual; LayerNorm, 4h MLP with tanh-GELU, dropout, residual. The
backward pass is written out op by op, as an autograd trace would give it.
With `--vocab` the stack gets token and position embeddings, a final
LayerNorm and a tied LM head with cross-entropy; without it the loss is the
sum of squares of the last layer's output.

Usage: python3 -m ckpt_graphs.gpt --layers 12 --hidden 768 --heads 12 \\
           --seq 1024 --batch 8 [--vocab 50257] [--dtype bf16] [-o out.json]
"""

import argparse
import json
import math
import sys

from ckpt_graphs import format as graph_format


class GraphBuilder:
    """Accumulates inputs, nodes and outputs of one graph-format-v1 document."""

    def __init__(self, name, dtype):
        self.name = name
        self.dtype = dtype
        self.inputs = []
        self.nodes = []
        self.outputs = []
        self.shapes = {}
        self.dtypes = {}
        self.counter = 0
        self.scope = ""

    def fresh(self, hint):
        self.counter += 1
        return f"{hint}{self.counter}"

    def input(self, name, role, shape, dtype=None):
        dtype = dtype or self.dtype
        self.inputs.append({"id": name, "role": role, "shape": list(shape),
                            "dtype": dtype, "name": name})
        self.shapes[name], self.dtypes[name] = list(shape), dtype
        return name

    def op(self, op, phase, inputs, outputs, attrs=None, hint="v"):
        """Adds a node; `outputs` is a list of (shape, dtype-or-None)."""
        ids = []
        for shape, dtype in outputs:
            vid = self.fresh(hint)
            ids.append(vid)
            self.shapes[vid], self.dtypes[vid] = list(shape), dtype or self.dtype
        node = {"id": f"n{len(self.nodes)}", "op": op, "phase": phase,
                "inputs": list(inputs),
                "outputs": [{"id": i, "shape": self.shapes[i], "dtype": self.dtypes[i]}
                            for i in ids]}
        if attrs:
            node["attrs"] = attrs
        if self.scope:
            node["scope"] = self.scope
        self.nodes.append(node)
        return ids[0] if len(ids) == 1 else ids

    def output(self, value, role, grad_of=None):
        entry = {"value": value, "role": role}
        if grad_of is not None:
            entry["grad_of"] = grad_of
        self.outputs.append(entry)

    def document(self):
        return {"format": "ckpt-graph", "version": 1, "name": self.name,
                "producer": {"name": "ckpt_graphs.gpt"},
                "inputs": self.inputs, "nodes": self.nodes,
                "outputs": self.outputs}


class Gpt:
    """Writes the forward and backward ops of a GPT stack."""

    def __init__(self, g, layers, hidden, heads, seq, batch, dropout,
                 attention="fused"):
        assert hidden % heads == 0, "hidden must be a multiple of heads"
        assert attention in ("fused", "unfused")
        self.attention = attention
        self.g, self.layers, self.h, self.a = g, layers, hidden, heads
        self.s, self.b, self.p = seq, batch, dropout
        self.d = hidden // heads
        self.stream = 0

    # -- helpers ---------------------------------------------------------------
    def shape(self, v):
        return self.g.shapes[v]

    def next_stream(self):
        self.stream += 1
        return self.stream

    def linear(self, x, w, bias, out):
        return self.g.op("linear", "forward", [x, w, bias],
                         [(self.shape(x)[:-1] + [out], None)])

    def layer_norm(self, x, w, bias, phase="forward"):
        lead = self.shape(x)[:-1]
        return self.g.op("layer_norm", phase, [x, w, bias],
                         [(self.shape(x), None), (lead, "f32"), (lead, "f32")],
                         {"axis": len(lead), "epsilon": 1e-5})

    def dropout(self, x):
        if self.p == 0:
            return x, None
        return self.g.op("dropout", "forward", [x],
                         [(self.shape(x), None), (self.shape(x), "i1")],
                         {"p": self.p, "seed": self.next_stream(), "offset": 0})

    def reshape(self, x, shape, phase):
        return self.g.op("reshape", phase, [x], [(shape, self.g.dtypes[x])])

    def transpose(self, x, perm, phase):
        shape = [self.shape(x)[i] for i in perm]
        return self.g.op("transpose", phase, [x], [(shape, None)], {"perm": perm})

    def linear_grad(self, dy, x, w, bias_shape):
        """Gradients of y = x W^T + b for 3-D x: returns (dx, dw, db)."""
        rows = self.b * self.s
        dy2 = self.reshape(dy, [rows, self.shape(dy)[-1]], "backward")
        x2 = self.reshape(x, [rows, self.shape(x)[-1]], "backward")
        dw = self.g.op("matmul", "backward", [dy2, x2], [(self.shape(w), None)],
                       {"transpose_lhs": True})
        db = self.g.op("reduce_sum", "backward", [dy], [(bias_shape, None)],
                       {"axes": [0, 1]})
        dx2 = self.g.op("matmul", "backward", [dy2, w],
                        [([rows, self.shape(w)[1]], None)])
        dx = self.reshape(dx2, self.shape(x), "backward")
        return dx, dw, db

    # -- the model -------------------------------------------------------------
    def params(self, l):
        g, h = self.g, self.h
        names = {}
        for name, shape in [("ln1.w", [h]), ("ln1.b", [h]), ("qkv.w", [3 * h, h]),
                            ("qkv.b", [3 * h]), ("proj.w", [h, h]), ("proj.b", [h]),
                            ("ln2.w", [h]), ("ln2.b", [h]), ("fc.w", [4 * h, h]),
                            ("fc.b", [4 * h]), ("out.w", [h, 4 * h]), ("out.b", [h])]:
            names[name] = g.input(f"h.{l}.{name}", "param", shape)
        return names

    def layer_forward(self, l, x, P):
        g, b, s, h, a, d = self.g, self.b, self.s, self.h, self.a, self.d
        g.scope = f"h.{l}.attn"
        ln1, m1, r1 = self.layer_norm(x, P["ln1.w"], P["ln1.b"])
        qkv = self.linear(ln1, P["qkv.w"], P["qkv.b"], 3 * h)
        heads = []
        for i in range(3):
            part = g.op("slice", "forward", [qkv], [([b, s, h], None)],
                        {"starts": [0, 0, i * h], "steps": [1, 1, 1]})
            part4 = self.reshape(part, [b, s, a, d], "forward")
            heads.append(self.transpose(part4, [0, 2, 1, 3], "forward"))
        attn_attrs = {"causal": True, "scale": 1.0 / math.sqrt(d),
                      "dropout_p": self.p, "seed": self.next_stream(), "offset": 0}
        if self.attention == "fused":
            o, lse = g.op("attention", "forward", heads,
                          [([b, a, s, d], None), ([b, a, s], "f32")], attn_attrs)
            unfused = None
        else:
            # Megatron-style: scale and causal mask fused into the softmax.
            q, k, v = heads
            scores = g.op("batch_matmul", "forward", [q, k], [([b, a, s, s], None)],
                          {"transpose_rhs": True})
            probs = g.op("softmax", "forward", [scores], [([b, a, s, s], None)],
                         {"axis": 3})
            dp, pmask_attn = self.dropout(probs)
            o = g.op("batch_matmul", "forward", [dp, v], [([b, a, s, d], None)])
            lse = None
            unfused = dict(probs=probs, dp=dp, mask=pmask_attn)
        ot = self.transpose(o, [0, 2, 1, 3], "forward")
        o3 = self.reshape(ot, [b, s, h], "forward")
        proj = self.linear(o3, P["proj.w"], P["proj.b"], h)
        pd, pmask = self.dropout(proj)
        h1 = g.op("add", "forward", [x, pd], [([b, s, h], None)])
        g.scope = f"h.{l}.mlp"
        ln2, m2, r2 = self.layer_norm(h1, P["ln2.w"], P["ln2.b"])
        fc = self.linear(ln2, P["fc.w"], P["fc.b"], 4 * h)
        act = g.op("gelu", "forward", [fc], [([b, s, 4 * h], None)],
                   {"approximation": "tanh"})
        fc2 = self.linear(act, P["out.w"], P["out.b"], h)
        fd, fmask = self.dropout(fc2)
        h2 = g.op("add", "forward", [h1, fd], [([b, s, h], None)])
        saved = dict(x=x, ln1=ln1, m1=m1, r1=r1, heads=heads, o=o, lse=lse,
                     o3=o3, pmask=pmask, h1=h1, ln2=ln2, m2=m2, r2=r2, fc=fc,
                     act=act, fmask=fmask, attn_attrs=attn_attrs,
                     unfused=unfused)
        return h2, saved

    def layer_backward(self, l, dh2, P, S):
        """Returns dx and appends the parameter gradients."""
        g, b, s, h, a, d = self.g, self.b, self.s, self.h, self.a, self.d
        grads = {}
        g.scope = f"h.{l}.mlp"
        dfc2 = dh2 if S["fmask"] is None else g.op(
            "dropout_grad", "backward", [dh2, S["fmask"]], [([b, s, h], None)],
            {"p": self.p})
        dact, grads["out.w"], grads["out.b"] = self.linear_grad(dfc2, S["act"], P["out.w"], [h])
        dfc = g.op("gelu_grad", "backward", [dact, S["fc"]], [([b, s, 4 * h], None)],
                   {"approximation": "tanh"})
        dln2, grads["fc.w"], grads["fc.b"] = self.linear_grad(dfc, S["ln2"], P["fc.w"], [4 * h])
        dh1b, grads["ln2.w"], grads["ln2.b"] = g.op(
            "layer_norm_grad", "backward", [dln2, S["h1"], S["m2"], S["r2"], P["ln2.w"]],
            [([b, s, h], None), ([h], None), ([h], None)], {"axis": 2})
        dh1 = g.op("add", "backward", [dh2, dh1b], [([b, s, h], None)])
        g.scope = f"h.{l}.attn"
        dproj = dh1 if S["pmask"] is None else g.op(
            "dropout_grad", "backward", [dh1, S["pmask"]], [([b, s, h], None)],
            {"p": self.p})
        do3, grads["proj.w"], grads["proj.b"] = self.linear_grad(dproj, S["o3"], P["proj.w"], [h])
        do4 = self.reshape(do3, [b, s, a, d], "backward")
        doh = self.transpose(do4, [0, 2, 1, 3], "backward")
        if S["unfused"] is None:
            dq, dk, dv = g.op("attention_grad", "backward",
                              [doh] + S["heads"] + [S["o"], S["lse"]],
                              [([b, a, s, d], None)] * 3, S["attn_attrs"])
        else:
            U, (q, k, v) = S["unfused"], S["heads"]
            ddp = g.op("batch_matmul", "backward", [doh, v], [([b, a, s, s], None)],
                       {"transpose_rhs": True})
            dv = g.op("batch_matmul", "backward", [U["dp"], doh], [([b, a, s, d], None)],
                      {"transpose_lhs": True})
            dprobs = ddp if U["mask"] is None else g.op(
                "dropout_grad", "backward", [ddp, U["mask"]], [([b, a, s, s], None)],
                {"p": self.p})
            dscores = g.op("softmax_grad", "backward", [dprobs, U["probs"]],
                           [([b, a, s, s], None)], {"axis": 3})
            dq = g.op("batch_matmul", "backward", [dscores, k], [([b, a, s, d], None)])
            dk = g.op("batch_matmul", "backward", [dscores, q], [([b, a, s, d], None)],
                      {"transpose_lhs": True})
        parts = []
        for dpart in (dq, dk, dv):
            t = self.transpose(dpart, [0, 2, 1, 3], "backward")
            parts.append(self.reshape(t, [b, s, h], "backward"))
        dqkv = g.op("concat", "backward", parts, [([b, s, 3 * h], None)], {"axis": 2})
        dln1, grads["qkv.w"], grads["qkv.b"] = self.linear_grad(dqkv, S["ln1"], P["qkv.w"], [3 * h])
        dxb, grads["ln1.w"], grads["ln1.b"] = g.op(
            "layer_norm_grad", "backward", [dln1, S["x"], S["m1"], S["r1"], P["ln1.w"]],
            [([b, s, h], None), ([h], None), ([h], None)], {"axis": 2})
        dx = g.op("add", "backward", [dh1, dxb], [([b, s, h], None)])
        for name, grad in grads.items():
            self.g.output(grad, "grad", grad_of=P[name])
        return dx


def build(layers, hidden, heads, seq, batch, vocab=None, dtype="bf16",
          dropout=0.1, name=None, attention="fused"):
    """Returns the graph-format-v1 document of one GPT training step.

    `attention` is "fused" (ckpt.attention, flash-style) or "unfused"
    (batch_matmul, softmax, dropout, batch_matmul, as Megatron-LM).
    """
    g = GraphBuilder(name or f"gpt_{layers}l_{hidden}h", dtype)
    m = Gpt(g, layers, hidden, heads, seq, batch, dropout, attention)
    b, s, h = batch, seq, hidden
    if vocab:
        tokens = g.input("tokens", "input", [b, s], "i64")
        targets = g.input("targets", "input", [b * s], "i64")
        wte = g.input("wte", "param", [vocab, h])
        wpe = g.input("wpe", "param", [s, h])
    else:
        x0 = g.input("x", "input", [b, s, h])
    params = [m.params(l) for l in range(layers)]
    if vocab:
        lnf_w = g.input("ln_f.w", "param", [h])
        lnf_b = g.input("ln_f.b", "param", [h])
    seed = g.input("loss_grad", "seed", [], "f32" if vocab else dtype)

    # Forward.
    if vocab:
        g.scope = "embed"
        emb = g.op("embedding", "forward", [wte, tokens], [([b, s, h], None)])
        x0 = g.op("add", "forward", [emb, wpe], [([b, s, h], None)])
    x, saved = x0, []
    for l in range(layers):
        x, S = m.layer_forward(l, x, params[l])
        saved.append(S)
    if vocab:
        g.scope = "head"
        lnf, mf, rf = m.layer_norm(x, lnf_w, lnf_b)
        lnf2 = m.reshape(lnf, [b * s, h], "forward")
        logits = g.op("matmul", "forward", [lnf2, wte], [([b * s, vocab], None)],
                      {"transpose_rhs": True})
        logits32 = g.op("convert", "forward", [logits], [([b * s, vocab], "f32")]) \
            if dtype != "f32" else logits
        loss, lse = g.op("cross_entropy", "forward", [logits32, targets],
                         [([], "f32"), ([b * s], "f32")], {"reduction": "mean"})
        g.output(loss, "loss")
        dlogits32 = g.op("cross_entropy_grad", "backward",
                         [seed, logits32, targets, lse], [([b * s, vocab], "f32")],
                         {"reduction": "mean"})
        dlogits = g.op("convert", "backward", [dlogits32], [([b * s, vocab], None)]) \
            if dtype != "f32" else dlogits32
        dwte_head = g.op("matmul", "backward", [dlogits, lnf2],
                         [([vocab, h], None)], {"transpose_lhs": True})
        dlnf2 = g.op("matmul", "backward", [dlogits, wte], [([b * s, h], None)])
        dlnf = m.reshape(dlnf2, [b, s, h], "backward")
        dx, dlnf_w, dlnf_b = g.op("layer_norm_grad", "backward",
                                  [dlnf, x, mf, rf, lnf_w],
                                  [([b, s, h], None), ([h], None), ([h], None)],
                                  {"axis": 2})
        g.output(dlnf_w, "grad", grad_of=lnf_w)
        g.output(dlnf_b, "grad", grad_of=lnf_b)
    else:
        g.scope = "head"
        sq = g.op("mul", "forward", [x, x], [([b, s, h], None)])
        loss = g.op("reduce_sum", "forward", [sq], [([], None)], {"axes": [0, 1, 2]})
        g.output(loss, "loss")
        dsq = g.op("broadcast", "backward", [seed], [([b, s, h], None)])
        half = g.op("mul", "backward", [dsq, x], [([b, s, h], None)])
        dx = g.op("add", "backward", [half, half], [([b, s, h], None)])

    # Backward.
    for l in reversed(range(layers)):
        dx = m.layer_backward(l, dx, params[l], saved[l])
    if vocab:
        g.scope = "embed"
        dwpe = g.op("reduce_sum", "backward", [dx], [([s, h], None)], {"axes": [0]})
        dwte_emb = g.op("embedding_grad", "backward", [dx, tokens], [([vocab, h], None)])
        dwte = g.op("add", "backward", [dwte_head, dwte_emb], [([vocab, h], None)])
        g.output(dwte, "grad", grad_of=wte)
        g.output(dwpe, "grad", grad_of=wpe)
    return g.document()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--hidden", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--vocab", type=int, default=None)
    parser.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="bf16")
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--attention", choices=["fused", "unfused"],
                        default="fused")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args(argv)
    doc = build(args.layers, args.hidden, args.heads, args.seq, args.batch,
                args.vocab, args.dtype, args.dropout, attention=args.attention)
    text = graph_format.dumps(doc)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
