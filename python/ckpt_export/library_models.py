"""Real library models for the corpus: Hugging Face ``transformers`` and
``torchvision``, built from configs with random weights (nothing is downloaded).

Names are ``hf:<model>`` and ``tv:<model>``; every factory takes ``size``
(``tiny`` for tests, ``full`` for a realistic size, exported with fake tensors)
and the overrides of ``python -m ckpt_export`` (``batch``, ``seq``, ``layers``,
``hidden``, ``heads``, ``vocab``, ``inter``, ``res``, ``classes``,
``dropout``, ``seed``) that apply to it. The module returned computes the
training loss the way the library's users do: the language models' own
``labels`` loss (``model(input_ids, labels=...).loss``), torchvision's
classifiers and segmenters with ``F.cross_entropy`` on their logits.

Needs the PyTorch 2 environment of ``scripts/install-torch.sh`` (``torch``
2.15, ``torchvision`` 0.29, ``transformers`` 5.23); the exporter's tests run
these models there.
"""

from __future__ import annotations

from typing import Callable, Dict

import torch
import torch.nn as nn
import torch.nn.functional as F

from .models import ModelSpec, _cfg


class HFLoss(nn.Module):
    """``model(**inputs).loss`` of a transformers model, with positional inputs
    named ``names`` (so that the exported graph's inputs carry them)."""

    export_prefix = "model."  # parameter names and scopes are the library model's

    def __init__(self, model: nn.Module, names):
        super().__init__()
        self.model = model
        self.names = tuple(names)

    def forward(self, *args):
        return self.model(**dict(zip(self.names, args))).loss


class ClassifierLoss(nn.Module):
    """``F.cross_entropy(model(x), target)``: a torchvision classifier, or a
    segmenter (``[N, C, H, W]`` logits in ``out``: per-pixel classes)."""

    export_prefix = "model."

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, x, target):
        out = self.model(x)
        if isinstance(out, dict):
            out = out["out"]
        return F.cross_entropy(out, target)


def _generator(seed):
    return torch.Generator().manual_seed(seed + 1)


def _tokens(b, s, vocab, gen, low=0):
    return torch.randint(low, vocab, (b, s), generator=gen)


def _spec(name, module, inputs, names, cfg):
    spec = ModelSpec(name, module, tuple(inputs), cfg)
    spec.input_names = list(names)  # type: ignore[attr-defined]
    return spec


def _hf_dropout(cfg, default):
    return default if cfg["dropout"] is None else cfg["dropout"]


# --------------------------------------------------------------------------- transformers


def make_hf_gpt2(size="full", **ov):
    from transformers import GPT2Config, GPT2LMHeadModel
    d = dict(tiny=dict(batch=2, seq=16, layers=2, hidden=32, heads=2, vocab=97),
             full=dict(batch=8, seq=1024, layers=12, hidden=768, heads=12, vocab=50257))[size]
    c = _cfg(dict(d, dropout=None, seed=0), ov)
    p = _hf_dropout(c, 0.1)
    torch.manual_seed(c["seed"])
    config = GPT2Config(vocab_size=c["vocab"], n_positions=max(c["seq"], 16), n_embd=c["hidden"],
                        n_layer=c["layers"], n_head=c["heads"], resid_pdrop=p, embd_pdrop=p, attn_pdrop=p,
                        bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(config).train()
    ids = _tokens(c["batch"], c["seq"], c["vocab"], _generator(c["seed"]))
    return _spec("hf_gpt2", HFLoss(model, ("input_ids", "labels")), (ids, ids.clone()),
                 ("input_ids", "labels"), c)


def make_hf_llama(size="full", **ov):
    from transformers import LlamaConfig, LlamaForCausalLM
    d = dict(tiny=dict(batch=2, seq=16, layers=2, hidden=32, heads=4, vocab=97, inter=64),
             full=dict(batch=4, seq=1024, layers=16, hidden=2048, heads=32, vocab=32000, inter=5632))[size]
    c = _cfg(dict(d, dropout=None, seed=0), ov)
    torch.manual_seed(c["seed"])
    config = LlamaConfig(vocab_size=c["vocab"], hidden_size=c["hidden"], intermediate_size=c["inter"],
                         num_hidden_layers=c["layers"], num_attention_heads=c["heads"],
                         num_key_value_heads=max(1, c["heads"] // 4), max_position_embeddings=max(c["seq"], 16),
                         attention_dropout=_hf_dropout(c, 0.0), bos_token_id=0, eos_token_id=0,
                         pad_token_id=None, tie_word_embeddings=False)
    model = LlamaForCausalLM(config).train()
    ids = _tokens(c["batch"], c["seq"], c["vocab"], _generator(c["seed"]))
    return _spec("hf_llama", HFLoss(model, ("input_ids", "labels")), (ids, ids.clone()),
                 ("input_ids", "labels"), c)


def make_hf_bert(size="full", **ov):
    """BERT masked-LM with a padding ``attention_mask`` (the last quarter of
    the second sequence is padding) and labels on every token."""
    from transformers import BertConfig, BertForMaskedLM
    d = dict(tiny=dict(batch=2, seq=16, layers=2, hidden=32, heads=2, vocab=97, inter=64),
             full=dict(batch=8, seq=512, layers=12, hidden=768, heads=12, vocab=30522, inter=3072))[size]
    c = _cfg(dict(d, dropout=None, seed=0), ov)
    p = _hf_dropout(c, 0.1)
    torch.manual_seed(c["seed"])
    config = BertConfig(vocab_size=c["vocab"], hidden_size=c["hidden"], num_hidden_layers=c["layers"],
                        num_attention_heads=c["heads"], intermediate_size=c["inter"],
                        hidden_dropout_prob=p, attention_probs_dropout_prob=p,
                        max_position_embeddings=max(c["seq"], 16), pad_token_id=0)
    model = BertForMaskedLM(config).train()
    gen = _generator(c["seed"])
    ids = _tokens(c["batch"], c["seq"], c["vocab"], gen, low=1)
    mask = torch.ones(c["batch"], c["seq"], dtype=torch.int64)
    if c["batch"] > 1:
        mask[1, c["seq"] - c["seq"] // 4:] = 0
    names = ("input_ids", "attention_mask", "labels")
    return _spec("hf_bert", HFLoss(model, names), (ids, mask, ids.clone()), names, c)


def make_hf_t5(size="full", **ov):
    """T5 encoder-decoder with labels (the decoder's inputs are the shifted
    labels, made inside the model)."""
    from transformers import T5Config, T5ForConditionalGeneration
    d = dict(tiny=dict(batch=2, seq=16, layers=2, hidden=32, heads=2, vocab=97, inter=64),
             full=dict(batch=8, seq=512, layers=12, hidden=768, heads=12, vocab=32128, inter=3072))[size]
    c = _cfg(dict(d, dropout=None, seed=0), ov)
    torch.manual_seed(c["seed"])
    config = T5Config(vocab_size=c["vocab"], d_model=c["hidden"], d_kv=c["hidden"] // c["heads"],
                      d_ff=c["inter"], num_layers=c["layers"], num_decoder_layers=c["layers"],
                      num_heads=c["heads"], dropout_rate=_hf_dropout(c, 0.1),
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    model = T5ForConditionalGeneration(config).train()
    gen = _generator(c["seed"])
    ids = _tokens(c["batch"], c["seq"], c["vocab"], gen, low=2)
    labels = _tokens(c["batch"], c["seq"], c["vocab"], gen, low=2)
    names = ("input_ids", "labels")
    return _spec("hf_t5", HFLoss(model, names), (ids, labels), names, c)


def make_hf_vit(size="full", **ov):
    from transformers import ViTConfig, ViTForImageClassification
    d = dict(tiny=dict(batch=2, res=32, layers=2, hidden=32, heads=2, inter=64, classes=10),
             full=dict(batch=32, res=224, layers=12, hidden=768, heads=12, inter=3072, classes=1000))[size]
    c = _cfg(dict(d, dropout=None, seed=0), ov)
    p = _hf_dropout(c, 0.0)
    torch.manual_seed(c["seed"])
    config = ViTConfig(image_size=c["res"], patch_size=16 if c["res"] >= 64 else 8, hidden_size=c["hidden"],
                       num_hidden_layers=c["layers"], num_attention_heads=c["heads"],
                       intermediate_size=c["inter"], hidden_dropout_prob=p, attention_probs_dropout_prob=p,
                       num_labels=c["classes"])
    model = ViTForImageClassification(config).train()
    gen = _generator(c["seed"])
    x = torch.randn(c["batch"], 3, c["res"], c["res"], generator=gen)
    t = torch.randint(0, c["classes"], (c["batch"],), generator=gen)
    names = ("pixel_values", "labels")
    return _spec("hf_vit", HFLoss(model, names), (x, t), names, c)


# --------------------------------------------------------------------------- torchvision


def _tv_classifier(name, builder, tiny_res, full_res, full_batch, **kw):
    def make(size="full", **ov):
        import torchvision.models as tvm
        d = dict(tiny=dict(batch=2, res=tiny_res, classes=10),
                 full=dict(batch=full_batch, res=full_res, classes=1000))[size]
        c = _cfg(dict(d, seed=0), ov)
        torch.manual_seed(c["seed"])
        if name == "vit_b_16" and size == "tiny":  # ViT-B/16's architecture, 2 small layers
            model = tvm.VisionTransformer(image_size=c["res"], patch_size=8, num_layers=2, num_heads=2,
                                          hidden_dim=32, mlp_dim=64, num_classes=c["classes"]).train()
        else:
            extra = dict(kw, image_size=c["res"]) if name == "vit_b_16" else dict(kw)
            model = getattr(tvm, builder)(weights=None, num_classes=c["classes"], **extra).train()
        gen = _generator(c["seed"])
        x = torch.randn(c["batch"], 3, c["res"], c["res"], generator=gen)
        t = torch.randint(0, c["classes"], (c["batch"],), generator=gen)
        return _spec(f"tv_{name}", ClassifierLoss(model), (x, t), ("x", "target"), c)
    make.__name__ = f"make_tv_{name}"
    return make


LIBRARY: Dict[str, Callable[..., ModelSpec]] = {
    "hf:gpt2": make_hf_gpt2,
    "hf:llama": make_hf_llama,
    "hf:bert": make_hf_bert,
    "hf:t5": make_hf_t5,
    "hf:vit": make_hf_vit,
    "tv:resnet18": _tv_classifier("resnet18", "resnet18", 32, 224, 64),
    "tv:resnet50": _tv_classifier("resnet50", "resnet50", 32, 224, 64),
    "tv:mobilenet_v3_large": _tv_classifier("mobilenet_v3_large", "mobilenet_v3_large", 32, 224, 64),
    "tv:efficientnet_b0": _tv_classifier("efficientnet_b0", "efficientnet_b0", 32, 224, 64),
    "tv:vit_b_16": _tv_classifier("vit_b_16", "vit_b_16", 32, 224, 32),
}
