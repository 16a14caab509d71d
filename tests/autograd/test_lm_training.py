"""Language-model training loops against upstream, each side in its own process (issue 8).

Acceptance: a GPT-2 (GPT2LMHeadModel, dropout at the config's defaults, an attention mask with
padding and -100 labels), a Llama (LlamaForCausalLM, grouped-query attention: 2 key/value heads
for 4 query heads; once without a mask, through the flash kernel, once with a padding mask and
attention dropout, through the math path) and a BERT sequence-classification head
(BertForSequenceClassification, labels given; no token_type_ids, so BERT takes them from its
buffer, expanded to the batch, as transformers does by default), built from tiny configs
under one seed, train 10 steps of AdamW (foreach default, and fused=True) with transformers'
cosine schedule (2 warm-up steps) and clip_grad_norm_.

What is bit for bit: the forward. The first two losses (step 0 runs at learning rate 0, so step
1 still sees the initial parameters) carry upstream's bits, dropout masks included. What is not:
the backward. Several of our backward formulas are door-op compositions where upstream runs a
fused vector kernel (layer_norm's, softmax's, gelu's, silu's, flash attention's), so gradients
differ from upstream's in the last bits and the difference grows over the steps.

The allowance, derived per run: upstream's own float32 error, measured by upstream running the
same loop in float64 (the float64 model's parameters against upstream's float32 ones, the largest
difference over every element of every parameter, E). Ours and upstream's float32 run are two
float32 computations each within about E of the float64 one, so they may differ by 2 E. Losses:
transformers' causal-LM loss upcasts logits with .float(), so the float64 run's loss is itself a
float32 number; its error is floored at one float32 ulp of the loss before doubling.
"""

from __future__ import annotations

import math
import struct

import pytest

from tests.door import _both

PRELUDE = r'''
import json, torch, transformers
from transformers import (BertConfig, BertForSequenceClassification, GPT2Config, GPT2LMHeadModel,
                          LlamaConfig, LlamaForCausalLM)
transformers.logging.set_verbosity_error()
out = {}
def hexof(t):
    return t.detach().contiguous().numpy().tobytes().hex()
def build(name):
    if name == "gpt2":
        return GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=16, n_embd=32, n_layer=2,
                                          n_head=4, bos_token_id=0, eos_token_id=0))
    if name.startswith("llama"):
        return LlamaForCausalLM(LlamaConfig(
            vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=16,
            attention_dropout=0.1 if name == "llama masked dropout" else 0.0,
            bos_token_id=0, eos_token_id=0, pad_token_id=0))
    return BertForSequenceClassification(BertConfig(
        vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, max_position_embeddings=16, num_labels=3, pad_token_id=0))
def batch(name, step):
    g = torch.Generator().manual_seed(100 + step)
    ids = torch.randint(1, 64, (2, 8), generator=g)
    mask = torch.ones_like(ids)
    mask[1, 6:] = 0
    if name == "bert":
        return dict(input_ids=ids, attention_mask=mask,
                    labels=torch.randint(0, 3, (2,), generator=g))
    labels = ids.masked_fill(mask == 0, -100)
    if name == "llama":  # no mask: the flash kernel with grouped heads
        return dict(input_ids=ids, labels=labels)
    return dict(input_ids=ids, attention_mask=mask, labels=labels)
def train(name, fused, dtype, steps=10):
    torch.manual_seed(0)
    model = build(name).to(dtype)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1, fused=fused)
    sched = transformers.get_cosine_schedule_with_warmup(opt, 2, steps)
    losses, norms = [], []
    for step in range(steps):
        opt.zero_grad()
        loss = model(**batch(name, step)).loss
        loss.backward()
        norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
        opt.step()
        sched.step()
        losses.append(loss.item())
    return {"losses": losses, "norms": norms,
            "params": {n: hexof(p) for n, p in model.named_parameters()}}
'''

BODY = r'''
for name, fuseds in (("gpt2", (None, True)), ("llama", (None, True)), ("bert", (None, True)),
                     ("llama masked dropout", (None,))):
    for fused in fuseds:
        for dtype in DTYPES:
            out[f"{name} fused={fused} {dtype}"] = train(name, fused, getattr(torch, dtype))
'''

MODELS = ("gpt2", "llama", "bert")


@pytest.fixture(scope="module")
def runs():
    ours = _both.run_json(_both.OURS, PRELUDE + "DTYPES = ('float32',)" + BODY +
                          "\nprint(json.dumps(out))\n")
    up = _both.run_json(_both.UPSTREAM, PRELUDE + "DTYPES = ('float32', 'float64')" + BODY +
                        "\nprint(json.dumps(out))\n")
    return ours, up


def floats(h: str, size: int):
    raw = bytes.fromhex(h)
    return struct.unpack(f"<{len(raw) // size}{'f' if size == 4 else 'd'}", raw)


def ulp32(x: float) -> float:
    return math.ulp(struct.unpack("<f", struct.pack("<f", x))[0]) * 2 ** 29


def check_run(ours, up, name: str, fused: str):
    key = f"{name} fused={fused} float32"
    got, want, ref = ours[key], up[key], up[key.replace("float32", "float64")]
    # The forward carries upstream's bits until the first update.
    assert got["losses"][:2] == want["losses"][:2], (key, got["losses"][:2], want["losses"][:2])
    # Parameters: within twice upstream's own float32 error, E over the whole model.
    err = diff = 0.0
    for pname, h in want["params"].items():
        w32, w64 = floats(h, 4), floats(ref["params"][pname], 8)
        g32 = floats(got["params"][pname], 4)
        err = max(err, max(abs(a - b) for a, b in zip(w32, w64)))
        diff = max(diff, max(abs(a - b) for a, b in zip(g32, w32)))
    assert err > 0, key
    assert diff <= 2 * err, (key, "params", diff, err)
    # Losses and gradient norms, step by step: twice upstream's float32 error, floored at an ulp.
    for part in ("losses", "norms"):
        for step, (g, w, r) in enumerate(zip(got[part], want[part], ref[part])):
            allowed = 2 * max(abs(w - r), ulp32(w))
            assert abs(g - w) <= allowed, (key, part, step, g, w, r)


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("fused", ["None", "True"])
def test_adamw_cosine_clip_trains_as_upstream(runs, name, fused):
    check_run(*runs, name, fused)


def test_llama_with_padding_mask_and_attention_dropout_trains_as_upstream(runs):
    # A 4-d additive mask and dropout inside scaled_dot_product_attention (the math path, its
    # grouped heads repeated), foreach AdamW.
    check_run(*runs, "llama masked dropout", "None")
