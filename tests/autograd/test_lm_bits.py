"""Language-model training that carries upstream's bits, step by step (issue 8).

The same seeded loops as tests/autograd/test_lm_training.py (10 steps of AdamW, foreach and
fused=True, transformers' cosine schedule, clip_grad_norm_), each side in its own process, for
the models whose every kernel now computes as upstream's does: a GPT-2 (layer_norm forward and
backward, gelu('tanh'), dropout, attention through the math path because of its dropout,
softmax's backward, embedding, cross-entropy, the 2-norm of clip_grad_norm_) and a Llama with a
padding mask and attention dropout (RMSNorm, silu, rotary embeddings, the math path with grouped
heads). Every loss, every gradient norm and every final parameter must be upstream's, byte for
byte. Not here, measured and kept within the derived allowance by test_lm_training.py: the
Llama without a mask (upstream runs its blocked flash-attention kernel, whose order of sums ours
does not reproduce) and BERT (gelu('none')'s float32 backward is oneDNN's in upstream).
"""

from __future__ import annotations

import pytest

from tests.autograd import test_lm_training as lm
from tests.door import _both

BODY = r'''
for name, fused in (("gpt2", None), ("gpt2", True), ("llama masked dropout", None)):
    run = train(name, fused, torch.float32)
    out[f"{name} fused={fused}"] = {"losses": [x.hex() for x in run["losses"]],
                                    "norms": [x.hex() for x in run["norms"]],
                                    "params": run["params"]}
'''


@pytest.fixture(scope="module")
def runs():
    return _both.both(lm.PRELUDE, BODY)


@pytest.mark.parametrize("key", ["gpt2 fused=None", "gpt2 fused=True",
                                 "llama masked dropout fused=None"])
def test_training_carries_upstreams_bits(runs, key):
    ours, up = runs
    got, want = ours[key], up[key]
    assert got["losses"] == want["losses"]
    assert got["norms"] == want["norms"]
    bad = [name for name in want["params"] if got["params"][name] != want["params"][name]]
    assert bad == []
