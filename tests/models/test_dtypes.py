"""Models converted to float64, bfloat16 and float16 (issue 9, items 5 and 6), ours and upstream
each in its own process: model.to(torch.float64), .double(), .bfloat16(), .half() then forward,
and greedy generate in each dtype. The rule (docs/AGREEMENT_RULES.md, "Models in other
dtypes"): the error relative to the output's largest magnitude, against upstream's float64
forward, within twice upstream's own error in the same dtype (for float64, its float32 error
carried over in ulps), never less than 4 ulp of that dtype; bf16/f16 generate must run and return sequences of upstream's shape (accumulation order
may fairly change a token)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import OURS, UPSTREAM, run_json  # noqa: E402

CODE = r"""
import json, sys, torch, transformers as T
NAME = sys.argv[1]
MAKE = {
  "gpt2": lambda: T.GPT2LMHeadModel(T.GPT2Config(vocab_size=96, n_embd=32, n_layer=2, n_head=4,
                                                 n_positions=64)),
  "bert": lambda: T.BertModel(T.BertConfig(vocab_size=96, hidden_size=32, num_hidden_layers=2,
                                           num_attention_heads=4, intermediate_size=64)),
  "llama": lambda: T.LlamaForCausalLM(T.LlamaConfig(vocab_size=96, hidden_size=32,
                                                    intermediate_size=64, num_hidden_layers=2,
                                                    num_attention_heads=4,
                                                    num_key_value_heads=2)),
  "t5": lambda: T.T5ForConditionalGeneration(T.T5Config(vocab_size=96, d_model=32, d_kv=8,
                                                        d_ff=64, num_layers=2, num_heads=4,
                                                        decoder_start_token_id=0)),
}
CONVERT = {
  "float32": lambda m: m,
  "to_float64": lambda m: m.to(torch.float64), "double": lambda m: m.double(),
  "bfloat16": lambda m: m.bfloat16(), "half": lambda m: m.half(),
}
ids = torch.tensor([[5, 6, 7, 8, 9], [9, 8, 7, 6, 5]])
out = {}
for how, convert in CONVERT.items():
    torch.manual_seed(0)
    model = convert(MAKE[NAME]().eval())
    kw = {"decoder_input_ids": ids} if NAME == "t5" else {}
    with torch.no_grad():
        o = model(input_ids=ids, **kw)
    x = o.logits if hasattr(o, "logits") else o.last_hidden_state
    out[how] = [str(x.dtype), x.double().flatten().tolist()]
    if NAME != "bert":
        g = model.generate(ids, max_new_tokens=5, do_sample=False, pad_token_id=0)
        out[how + "/generate"] = list(g.shape)
print(json.dumps(out))
"""

EPS = {"torch.float32": 2.0 ** -23, "torch.float64": 2.0 ** -52, "torch.bfloat16": 2.0 ** -7, "torch.float16": 2.0 ** -10}


def relative_error(values, reference):
    scale = max(abs(r) for r in reference)
    return max(abs(v - r) for v, r in zip(values, reference)) / scale


@pytest.mark.parametrize("name", ["gpt2", "bert", "llama", "t5"])
def test_converted_models_agree_with_upstream(name):
    code = f"import sys; sys.argv = ['x', {name!r}]\n" + CODE
    ours, upstream = run_json(OURS, code), run_json(UPSTREAM, code)
    reference = upstream["to_float64"][1]
    # Upstream's float64 is the reference, so its own float64 error is not measurable: the
    # float32 forward's error, in ulps, is carried over to float64's ulp instead.
    own_float32 = relative_error(upstream["float32"][1], reference)
    for how in ("float32", "to_float64", "double", "bfloat16", "half"):
        dtype = upstream[how][0]
        assert ours[how][0] == dtype, how
        if dtype == "torch.float64":
            own = own_float32 * EPS[dtype] / EPS["torch.float32"]
        else:
            own = relative_error(upstream[how][1], reference)
        error = relative_error(ours[how][1], reference)
        assert error <= max(2 * own, 4 * EPS[dtype]), (how, error, own)
        if name != "bert":
            assert ours[how + "/generate"] == upstream[how + "/generate"], how
