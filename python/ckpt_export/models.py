"""Model definitions for the ckpt-opt corpus, built from configs with random init.

Every entry of :data:`MODELS` is a factory ``make(size="tiny"|"full", **overrides)``
returning a :class:`ModelSpec`: the model (whose ``forward`` returns the scalar
training loss) and example inputs. Nothing is downloaded; weights are random,
drawn from ``torch.manual_seed(seed)`` and the example inputs from a generator
seeded ``seed + 1``, where the override ``seed`` defaults to 0.

Conventions that keep the exported graphs clean:

* Constant tensors (position ids, causal masks, rotary tables) are registered as
  buffers once, at model level, so that they become one graph input each
  (role ``input``) instead of per-layer copies or constant subgraphs.
* The causal mask is *additive* (0 / -inf, float), so it maps onto a plain
  broadcasting ``add`` instead of an opaque ``masked_fill``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelSpec:
    name: str
    model: nn.Module
    inputs: Tuple[torch.Tensor, ...]
    config: Dict[str, Any] = field(default_factory=dict)


def _causal_additive_mask(s: int) -> torch.Tensor:
    m = torch.full((s, s), float("-inf")).triu(1)
    return m.view(1, 1, s, s)


# --------------------------------------------------------------------------
# GPT-2
# --------------------------------------------------------------------------


class GPT2Attention(nn.Module):
    def __init__(self, h, n_head, p):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(h, 3 * h)
        self.c_proj = nn.Linear(h, h)
        self.attn_dropout = nn.Dropout(p)
        self.resid_dropout = nn.Dropout(p)

    def forward(self, x, mask):
        b, s, h = x.shape
        nh = self.n_head
        q, k, v = self.c_attn(x).split(h, dim=2)
        q = q.view(b, s, nh, h // nh).transpose(1, 2)
        k = k.view(b, s, nh, h // nh).transpose(1, 2)
        v = v.view(b, s, nh, h // nh).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(h // nh))
        att = att + mask
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(b, s, h)
        return self.resid_dropout(self.c_proj(y))


class GPT2MLP(nn.Module):
    def __init__(self, h, p):
        super().__init__()
        self.c_fc = nn.Linear(h, 4 * h)
        self.c_proj = nn.Linear(4 * h, h)
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        return self.dropout(self.c_proj(F.gelu(self.c_fc(x), approximate="tanh")))


class GPT2Block(nn.Module):
    def __init__(self, h, n_head, p):
        super().__init__()
        self.ln_1 = nn.LayerNorm(h)
        self.attn = GPT2Attention(h, n_head, p)
        self.ln_2 = nn.LayerNorm(h)
        self.mlp = GPT2MLP(h, p)

    def forward(self, x, mask):
        x = x + self.attn(self.ln_1(x), mask)
        return x + self.mlp(self.ln_2(x))


class GPT2(nn.Module):
    """GPT-2 (nanoGPT layout): tied LM head, tanh GELU, pre-LN, dropout."""

    def __init__(self, n_layer=12, hidden=768, n_head=12, vocab=50257, seq=1024, dropout=0.1):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(seq, hidden)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList([GPT2Block(hidden, n_head, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(hidden)
        self.register_buffer("pos", torch.arange(seq).view(1, seq), persistent=False)
        self.register_buffer("mask", _causal_additive_mask(seq), persistent=False)

    def forward(self, idx, targets):
        b, s = idx.shape
        x = self.drop(self.wte(idx) + self.wpe(self.pos[:, :s]))
        mask = self.mask[:, :, :s, :s]
        for block in self.h:
            x = block(x, mask)
        x = self.ln_f(x)
        logits = F.linear(x, self.wte.weight)  # tied LM head, no bias
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


# --------------------------------------------------------------------------
# Llama
# --------------------------------------------------------------------------


class RMSNorm(nn.Module):
    def __init__(self, h, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(h))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rotate_half(x):
    d = x.shape[-1] // 2
    return torch.cat((-x[..., d:], x[..., :d]), dim=-1)


class LlamaAttention(nn.Module):
    def __init__(self, h, n_head):
        super().__init__()
        self.n_head = n_head
        self.q_proj = nn.Linear(h, h, bias=False)
        self.k_proj = nn.Linear(h, h, bias=False)
        self.v_proj = nn.Linear(h, h, bias=False)
        self.o_proj = nn.Linear(h, h, bias=False)

    def forward(self, x, cos, sin, mask):
        b, s, h = x.shape
        nh, hd = self.n_head, h // self.n_head
        q = self.q_proj(x).view(b, s, nh, hd).transpose(1, 2)
        k = self.k_proj(x).view(b, s, nh, hd).transpose(1, 2)
        v = self.v_proj(x).view(b, s, nh, hd).transpose(1, 2)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        att = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(hd)
        att = F.softmax(att + mask, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).reshape(b, s, h)
        return self.o_proj(y)


class LlamaMLP(nn.Module):
    def __init__(self, h, inter):
        super().__init__()
        self.gate_proj = nn.Linear(h, inter, bias=False)
        self.up_proj = nn.Linear(h, inter, bias=False)
        self.down_proj = nn.Linear(inter, h, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaBlock(nn.Module):
    def __init__(self, h, n_head, inter):
        super().__init__()
        self.input_layernorm = RMSNorm(h)
        self.self_attn = LlamaAttention(h, n_head)
        self.post_attention_layernorm = RMSNorm(h)
        self.mlp = LlamaMLP(h, inter)

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    """Llama-style decoder: RMSNorm, SwiGLU MLP, rotary embeddings, untied head."""

    def __init__(self, n_layer=16, hidden=2048, n_head=16, inter=5632, vocab=32000, seq=2048):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList([LlamaBlock(hidden, n_head, inter) for _ in range(n_layer)])
        self.norm = RMSNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        hd = hidden // n_head
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        freqs = torch.outer(torch.arange(seq).float(), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos().view(1, 1, seq, hd), persistent=False)
        self.register_buffer("sin", emb.sin().view(1, 1, seq, hd), persistent=False)
        self.register_buffer("mask", _causal_additive_mask(seq), persistent=False)

    def forward(self, idx, targets):
        b, s = idx.shape
        x = self.embed_tokens(idx)
        cos, sin = self.cos[:, :, :s], self.sin[:, :, :s]
        mask = self.mask[:, :, :s, :s]
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        logits = self.lm_head(self.norm(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


# --------------------------------------------------------------------------
# BERT
# --------------------------------------------------------------------------


class BertLayer(nn.Module):
    def __init__(self, h, n_head, inter, p):
        super().__init__()
        self.n_head = n_head
        self.query = nn.Linear(h, h)
        self.key = nn.Linear(h, h)
        self.value = nn.Linear(h, h)
        self.attn_dropout = nn.Dropout(p)
        self.attn_out = nn.Linear(h, h)
        self.attn_out_dropout = nn.Dropout(p)
        self.attn_norm = nn.LayerNorm(h, eps=1e-12)
        self.intermediate = nn.Linear(h, inter)
        self.output = nn.Linear(inter, h)
        self.out_dropout = nn.Dropout(p)
        self.out_norm = nn.LayerNorm(h, eps=1e-12)

    def forward(self, x, ext_mask):
        b, s, h = x.shape
        nh, hd = self.n_head, h // self.n_head
        q = self.query(x).view(b, s, nh, hd).permute(0, 2, 1, 3)
        k = self.key(x).view(b, s, nh, hd).permute(0, 2, 1, 3)
        v = self.value(x).view(b, s, nh, hd).permute(0, 2, 1, 3)
        att = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(hd)
        att = F.softmax(att + ext_mask, dim=-1)
        ctx = torch.matmul(self.attn_dropout(att), v).permute(0, 2, 1, 3).reshape(b, s, h)
        x = self.attn_norm(x + self.attn_out_dropout(self.attn_out(ctx)))
        y = self.output(F.gelu(self.intermediate(x)))
        return self.out_norm(x + self.out_dropout(y))


class Bert(nn.Module):
    """BERT encoder with the masked-LM head (tied decoder) and MLM loss."""

    def __init__(self, n_layer=12, hidden=768, n_head=12, inter=3072, vocab=30522, seq=512,
                 type_vocab=2, dropout=0.1):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(seq, hidden)
        self.token_type_embeddings = nn.Embedding(type_vocab, hidden)
        self.emb_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.emb_dropout = nn.Dropout(dropout)
        self.layer = nn.ModuleList([BertLayer(hidden, n_head, inter, dropout) for _ in range(n_layer)])
        self.head_dense = nn.Linear(hidden, hidden)
        self.head_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.decoder_bias = nn.Parameter(torch.zeros(vocab))
        self.register_buffer("pos", torch.arange(seq).view(1, seq), persistent=False)

    def forward(self, input_ids, token_type_ids, attention_mask, labels):
        b, s = input_ids.shape
        x = (self.word_embeddings(input_ids) + self.position_embeddings(self.pos[:, :s])
             + self.token_type_embeddings(token_type_ids))
        x = self.emb_dropout(self.emb_norm(x))
        ext = (1.0 - attention_mask[:, None, None, :]) * -10000.0
        for layer in self.layer:
            x = layer(x, ext)
        x = self.head_norm(F.gelu(self.head_dense(x)))
        logits = F.linear(x, self.word_embeddings.weight, self.decoder_bias)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)


# --------------------------------------------------------------------------
# U-Net
# --------------------------------------------------------------------------


class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    """U-Net (Ronneberger et al.): max-pool down path, 2x2 transposed-conv up path."""

    def __init__(self, in_ch=3, classes=2, base=64, depth=4):
        super().__init__()
        chs = [base * 2 ** i for i in range(depth + 1)]
        self.inc = DoubleConv(in_ch, chs[0])
        self.down = nn.ModuleList([DoubleConv(chs[i], chs[i + 1]) for i in range(depth)])
        self.up = nn.ModuleList([nn.ConvTranspose2d(chs[i + 1], chs[i], 2, stride=2)
                                 for i in reversed(range(depth))])
        self.up_conv = nn.ModuleList([DoubleConv(chs[i + 1], chs[i]) for i in reversed(range(depth))])
        self.outc = nn.Conv2d(chs[0], classes, 1)

    def forward(self, img, target):
        x = self.inc(img)
        skips = [x]
        for d in self.down:
            x = d(F.max_pool2d(x, 2))
            skips.append(x)
        skips.pop()
        for up, conv in zip(self.up, self.up_conv):
            x = conv(torch.cat([skips.pop(), up(x)], dim=1))
        logits = self.outc(x)
        c = logits.shape[1]
        return F.cross_entropy(logits.permute(0, 2, 3, 1).reshape(-1, c), target.view(-1))


# --------------------------------------------------------------------------
# Torchvision CNNs and the MLP chain
# --------------------------------------------------------------------------


class Classifier(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, img, target):
        return F.cross_entropy(self.net(img), target)


class MLPChain(nn.Module):
    def __init__(self, n_layer=32, width=1024, in_dim=1024, classes=1000):
        super().__init__()
        dims = [in_dim] + [width] * n_layer
        self.layers = nn.ModuleList([nn.Linear(dims[i], dims[i + 1]) for i in range(n_layer)])
        self.head = nn.Linear(width, classes)

    def forward(self, x, target):
        for l in self.layers:
            x = F.relu(l(x))
        return F.cross_entropy(self.head(x), target)


# --------------------------------------------------------------------------
# Factories
# --------------------------------------------------------------------------

def _tokens(b, s, vocab, gen):
    return torch.randint(0, vocab, (b, s), generator=gen)


def _cfg(defaults, overrides):
    cfg = dict(defaults)
    for k, v in overrides.items():
        if v is not None:
            cfg[k] = v
    return cfg


def make_gpt2(size="full", **ov):
    d = (dict(layers=12, hidden=768, heads=12, vocab=50257, seq=128, batch=2, dropout=0.1) if size == "full"
         else dict(layers=2, hidden=32, heads=4, vocab=97, seq=16, batch=2, dropout=0.1))
    seed = ov.pop("seed", None) or 0
    c = _cfg(d, ov)
    torch.manual_seed(seed)
    m = GPT2(c["layers"], c["hidden"], c["heads"], c["vocab"], max(c["seq"], 16), c["dropout"])
    g = torch.Generator().manual_seed(seed + 1)
    return ModelSpec("gpt2", m, (_tokens(c["batch"], c["seq"], c["vocab"], g),
                                 _tokens(c["batch"], c["seq"], c["vocab"], g)), c)


def make_llama(size="full", **ov):
    d = (dict(layers=16, hidden=2048, heads=16, inter=5632, vocab=32000, seq=256, batch=1) if size == "full"
         else dict(layers=2, hidden=32, heads=4, inter=88, vocab=101, seq=16, batch=2))
    seed = ov.pop("seed", None) or 0
    c = _cfg(d, ov)
    torch.manual_seed(seed)
    m = Llama(c["layers"], c["hidden"], c["heads"], c["inter"], c["vocab"], max(c["seq"], 16))
    g = torch.Generator().manual_seed(seed + 1)
    return ModelSpec("llama", m, (_tokens(c["batch"], c["seq"], c["vocab"], g),
                                  _tokens(c["batch"], c["seq"], c["vocab"], g)), c)


def make_bert(size="full", **ov):
    d = (dict(layers=12, hidden=768, heads=12, inter=3072, vocab=30522, seq=128, batch=2, dropout=0.1)
         if size == "full" else
         dict(layers=2, hidden=32, heads=4, inter=64, vocab=89, seq=16, batch=2, dropout=0.1))
    seed = ov.pop("seed", None) or 0
    c = _cfg(d, ov)
    torch.manual_seed(seed)
    m = Bert(c["layers"], c["hidden"], c["heads"], c["inter"], c["vocab"], max(c["seq"], 16),
             dropout=c["dropout"])
    g = torch.Generator().manual_seed(seed + 1)
    b, s = c["batch"], c["seq"]
    ids = _tokens(b, s, c["vocab"], g)
    types = torch.randint(0, 2, (b, s), generator=g)
    mask = torch.ones(b, s)
    mask[:, s - s // 4:] = 0.0
    labels = torch.full((b, s), -100, dtype=torch.long)
    pick = torch.rand(b, s, generator=g) < 0.25
    pick[:, 0] = True
    labels[pick] = ids[pick]
    return ModelSpec("bert", m, (ids, types, mask, labels), c)


def _images(b, res, classes, gen, ch=3):
    return (torch.randn(b, ch, res, res, generator=gen), torch.randint(0, classes, (b,), generator=gen))


def make_resnet50(size="full", **ov):
    import torchvision
    d = (dict(batch=8, res=224, classes=1000) if size == "full" else dict(batch=2, res=32, classes=10))
    seed = ov.pop("seed", None) or 0
    c = _cfg(d, ov)
    torch.manual_seed(seed)
    if size == "full":
        net = torchvision.models.resnet50(weights=None, num_classes=c["classes"])
    else:  # one bottleneck per stage, narrow
        from torchvision.models.resnet import Bottleneck, ResNet
        net = ResNet(Bottleneck, [1, 1, 1, 1], num_classes=c["classes"], width_per_group=16)
        # shrink the stem/stages: tiny enough for fast tests
    g = torch.Generator().manual_seed(seed + 1)
    return ModelSpec("resnet50", Classifier(net), _images(c["batch"], c["res"], c["classes"], g), c)


def make_mobilenet_v2(size="full", **ov):
    import torchvision
    d = (dict(batch=8, res=224, classes=1000, width=1.0) if size == "full"
         else dict(batch=2, res=32, classes=10, width=0.25))
    seed = ov.pop("seed", None) or 0
    c = _cfg(d, ov)
    torch.manual_seed(seed)
    net = torchvision.models.mobilenet_v2(weights=None, num_classes=c["classes"], width_mult=c["width"])
    g = torch.Generator().manual_seed(seed + 1)
    return ModelSpec("mobilenet_v2", Classifier(net), _images(c["batch"], c["res"], c["classes"], g), c)


def make_unet(size="full", **ov):
    d = (dict(batch=2, res=256, classes=2, base=64, depth=4) if size == "full"
         else dict(batch=2, res=32, classes=3, base=4, depth=3))
    seed = ov.pop("seed", None) or 0
    c = _cfg(d, ov)
    torch.manual_seed(seed)
    m = UNet(3, c["classes"], c["base"], c["depth"])
    g = torch.Generator().manual_seed(seed + 1)
    img = torch.randn(c["batch"], 3, c["res"], c["res"], generator=g)
    tgt = torch.randint(0, c["classes"], (c["batch"], c["res"], c["res"]), generator=g)
    return ModelSpec("unet", m, (img, tgt), c)


def make_mlp(size="full", **ov):
    d = (dict(layers=32, hidden=1024, batch=64, classes=1000) if size == "full"
         else dict(layers=32, hidden=16, batch=4, classes=10))
    seed = ov.pop("seed", None) or 0
    c = _cfg(d, ov)
    torch.manual_seed(seed)
    m = MLPChain(c["layers"], c["hidden"], c["hidden"], c["classes"])
    g = torch.Generator().manual_seed(seed + 1)
    return ModelSpec("mlp32", m, (torch.randn(c["batch"], c["hidden"], generator=g),
                                  torch.randint(0, c["classes"], (c["batch"],), generator=g)), c)


MODELS: Dict[str, Callable[..., ModelSpec]] = {
    "gpt2": make_gpt2,
    "llama": make_llama,
    "bert": make_bert,
    "resnet50": make_resnet50,
    "mobilenet_v2": make_mobilenet_v2,
    "unet": make_unet,
    "mlp32": make_mlp,
}
