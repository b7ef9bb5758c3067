"""Batch norm without its running statistics in the backward pass.

In a training step AOTAutograd's functional batch norm
(``_native_batch_norm_legit_functional(x, w, b, running_mean, running_var,
True, momentum, eps)``) reads the running statistics only to return their
updated values, which AOTAutograd copies into the buffers after the forward
pass; and ``native_batch_norm_backward(..., train=True, ...)`` does not read
its running-statistics operands at all. Left as they are, a backward that
reads them (or recomputes the batch norm) needs the buffers as they were
before the forward mutated them: PyTorch then refuses the step ("modified by
an inplace operation"), or the partition has to save copies. So before
partitioning:

* the backward's ``running_mean``/``running_var`` operands become ``None``
  (the kernel ignores them in training mode: the same bits);
* a batch norm that the backward recomputes is recomputed as its twin,
  ``_native_batch_norm_legit.no_stats(x, w, b, True, momentum, eps)``,
  which computes the same output, mean and inverse standard deviation with
  the same kernel and no running statistics
  (:func:`ckpt_torch.partition.materialize_recomputation`).
"""

from __future__ import annotations

import operator

import torch
import torch.fx

_FUNCTIONAL = torch.ops.aten._native_batch_norm_legit_functional.default
_BACKWARD = torch.ops.aten.native_batch_norm_backward.default
_NO_STATS = torch.ops.aten._native_batch_norm_legit.no_stats


def _arg(n: torch.fx.Node, i: int, name: str, default=None):
    return n.args[i] if i < len(n.args) else n.kwargs.get(name, default)


def drop_running_stat_operands(joint: torch.fx.GraphModule) -> int:
    """The first rewrite of the module doc, in place; returns how many
    backward batch norms changed."""
    count = 0
    for n in joint.graph.nodes:
        if n.op == "call_function" and n.target is _BACKWARD and _arg(n, 7, "train") is True:
            args = list(n.args)
            if any(i < len(args) and args[i] is not None for i in (3, 4)):
                for i in (3, 4):
                    if i < len(args):
                        args[i] = None
                n.args = tuple(args)
                count += 1
    if count:
        joint.graph.lint()
        joint.recompile()
    return count


def is_training_batch_norm(n: torch.fx.Node) -> bool:
    return n.op == "call_function" and n.target is _FUNCTIONAL and _arg(n, 5, "training") is True


def twin_args(n: torch.fx.Node):
    """The arguments of the twin (``no_stats``) of a training-mode batch norm."""
    return (n.args[0], _arg(n, 1, "weight"), _arg(n, 2, "bias"), True, _arg(n, 6, "momentum"),
            _arg(n, 7, "eps"))


NO_STATS = _NO_STATS
