"""Random ops that a recomputation replays with the same random numbers.

PyTorch's ``native_dropout`` draws its mask from the global generator, so
running it again in the backward pass draws a different mask: gradients that
silently disagree with the forward pass. Before partitioning, the backend
rewrites every training-mode ``native_dropout`` of the joint graph into
``ckpt_torch::seeded_dropout(x, p, seed, index)`` (and the ``bernoulli`` of
CPU dropout into ``ckpt_torch::seeded_bernoulli``), whose mask is a pure
function of ``(seed, index)``: a fresh ``torch.Generator`` seeded from them.
The forward graph draws one ``seed`` per step from the global generator
(``ckpt_torch::draw_seed``, so successive steps differ and
``torch.manual_seed`` makes runs repeatable); a recomputed dropout reads the
saved seed (8 bytes) and regenerates exactly the forward's mask.

Other random ops (``rand``, ``bernoulli``, ``normal``, ...; every op tagged
``nondeterministic_seeded``) are not rewritten: the partition always saves
their results (``must_save``), whatever the plan says.
"""

from __future__ import annotations

from typing import List

import torch
import torch.fx

_SEED_MIX = 0x9E3779B97F4A7C15  # odd 64-bit constant: distinct streams per index


def _generator_seed(seed: int, index: int) -> int:
    return (seed * 1000003 + (index + 1) * _SEED_MIX) % (2 ** 63)


@torch.library.custom_op("ckpt_torch::draw_seed", mutates_args=())
def draw_seed(anchor: torch.Tensor) -> torch.Tensor:
    """A fresh seed (an int64 scalar on the CPU) from the global generator;
    ``anchor`` (any input of the graph) only places the op in the graph."""
    return torch.randint(0, 2 ** 62, (), dtype=torch.int64)


@draw_seed.register_fake
def _(anchor):
    return torch.empty((), dtype=torch.int64, device="cpu")


@torch.library.custom_op("ckpt_torch::seeded_dropout", mutates_args=())
def seeded_dropout(x: torch.Tensor, p: float, seed: torch.Tensor, index: int) -> List[torch.Tensor]:
    """``native_dropout(x, p, train=True)`` with the mask drawn from a
    generator seeded by ``(seed, index)``: the same inputs give the same
    mask, on every call."""
    if p >= 1.0:
        return [torch.zeros_like(x), torch.zeros_like(x, dtype=torch.bool)]
    gen = torch.Generator(device=x.device)
    gen.manual_seed(_generator_seed(int(seed.item()), index))
    keep = torch.empty_like(x).bernoulli_(1.0 - p, generator=gen)
    return [x * keep * (1.0 / (1.0 - p)), keep.to(torch.bool)]


@seeded_dropout.register_fake
def _(x, p, seed, index):
    return [torch.empty_like(x), torch.empty_like(x, dtype=torch.bool)]


@torch.library.custom_op("ckpt_torch::seeded_bernoulli", mutates_args=())
def seeded_bernoulli(like: torch.Tensor, p: float, seed: torch.Tensor, index: int) -> torch.Tensor:
    """``bernoulli(like, p)`` (ones with probability ``p``, in ``like``'s
    shape and dtype) drawn from a generator seeded by ``(seed, index)``."""
    gen = torch.Generator(device=like.device)
    gen.manual_seed(_generator_seed(int(seed.item()), index))
    return torch.empty_like(like).bernoulli_(p, generator=gen)


@seeded_bernoulli.register_fake
def _(like, p, seed, index):
    return torch.empty_like(like)


def is_random(node: torch.fx.Node) -> bool:
    """Whether ``node`` draws random numbers from the global generator."""
    target = node.target
    if target is torch.ops.ckpt_torch.draw_seed.default:
        return True
    tags = getattr(target, "tags", ())
    if torch.Tag.nondeterministic_seeded not in tags:
        return False
    # Attention kernels are tagged for their optional dropout: random only
    # with dropout_p > 0.
    schema = getattr(target, "_schema", None)
    names = [a.name for a in schema.arguments] if schema is not None else []
    if "dropout_p" in names:
        i = names.index("dropout_p")
        p = node.args[i] if i < len(node.args) else node.kwargs.get("dropout_p", 0.0)
        return bool(p)
    return True


def seed_dropouts(joint: torch.fx.GraphModule) -> List[torch.fx.Node]:
    """Rewrites the training-mode ``native_dropout`` nodes of ``joint`` in
    place (node objects and names are kept) into ``seeded_dropout``, and the
    ``bernoulli.p`` nodes of CPU dropout (``x * bernoulli(empty_like(x),
    1 - p) / (1 - p)``) into ``seeded_bernoulli``, all reading one
    ``draw_seed`` node inserted after the placeholders. Returns the
    rewritten nodes."""
    g = joint.graph
    drops = [n for n in g.nodes if n.op == "call_function"
             and ((n.target is torch.ops.aten.native_dropout.default
                   and (n.args[2] if len(n.args) > 2 else n.kwargs.get("train", True)) is not False)
                  or (n.target is torch.ops.aten.bernoulli.p and n.kwargs.get("generator") is None))]
    if not drops:
        return []
    placeholders = [n for n in g.nodes if n.op == "placeholder"]
    with g.inserting_after(placeholders[-1]):
        seed = g.call_function(torch.ops.ckpt_torch.draw_seed.default, (placeholders[0],))
    seed.name = "ckpt_seed"
    anchor = placeholders[0].meta.get("val")
    if anchor is not None:
        from torch._guards import detect_fake_mode
        mode = detect_fake_mode([anchor])
        if mode is not None:
            with mode:
                seed.meta["val"] = torch.empty((), dtype=torch.int64, device="cpu")
    for i, n in enumerate(drops):
        x = n.args[0] if n.args else n.kwargs.get("input", n.kwargs.get("self"))
        p = n.args[1] if len(n.args) > 1 else n.kwargs["p"]
        n.target = (torch.ops.ckpt_torch.seeded_dropout.default
                    if n.target is torch.ops.aten.native_dropout.default
                    else torch.ops.ckpt_torch.seeded_bernoulli.default)
        n.args = (x, float(p), seed, i)
        n.kwargs = {}
    g.lint()
    joint.recompile()
    return drops
