"""The fused inference ops of nn.TransformerEncoderLayer / nn.TransformerEncoder and
nn.MultiheadAttention in eval mode without grad (_transformer_encoder_layer_fwd,
_native_multi_head_attention; issue 9, item 2): ours in float32 against upstream's float64,
within upstream's own float32 error (docs/AGREEMENT_RULES.md), each in its own process; and
that both sides take the fused ops (their names in a dispatch mode's log).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import (CASES_PRELUDE, OURS, SAME_VALUES_IN_DTYPE, UPSTREAM,  # noqa: E402
                     cases_beyond_upstreams_error, run_json)

CASES = CASES_PRELUDE + SAME_VALUES_IN_DTYPE + r"""
nn = torch.nn
def layer(d, h, ff, **kw):
    torch.manual_seed(1)
    m = nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, batch_first=True, **kw).to(DTYPE)
    return m.eval()
x = torch.randn(2, 5, 16)
pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
with torch.no_grad():
    case("layer_relu", lambda: layer(16, 2, 32)(x))
    case("layer_gelu_norm_first", lambda: layer(16, 2, 32, activation="gelu", norm_first=True)(x))
    case("layer_small_heads", lambda: layer(16, 4, 24)(x))  # head size 4: the unfused path
    case("layer_pad_mask", lambda: layer(16, 2, 32)(x, src_key_padding_mask=pad))
    def encoder():
        enc = nn.TransformerEncoder(layer(16, 2, 32), 3, enable_nested_tensor=False).eval()
        return enc(x, src_key_padding_mask=pad)
    case("encoder", encoder)
    def mha(**kw):
        torch.manual_seed(2)
        m = nn.MultiheadAttention(16, 2, batch_first=True).to(DTYPE).eval()
        return m(x, x, x, **kw)
    case("mha_weights", lambda: list(mha()))
    case("mha_per_head", lambda: list(mha(average_attn_weights=False)))
    case("mha_no_weights", lambda: mha(need_weights=False)[0])
    case("mha_pad", lambda: list(mha(key_padding_mask=pad)))
    case("mha_attn_mask", lambda: list(mha(attn_mask=torch.triu(torch.ones(5, 5, dtype=torch.bool), 1))))
print(json.dumps(out))
"""

LOGGED = CASES_PRELUDE + r"""
from torch.utils._python_dispatch import TorchDispatchMode
class Log(TorchDispatchMode):
    def __init__(self):
        super().__init__(); self.names = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))
m = torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True).eval()
with torch.no_grad(), Log() as log:
    m(torch.randn(2, 5, 16))
out["fused"] = [n for n in log.names if "transformer_encoder_layer" in n]
print(json.dumps(out))
"""


def test_fused_encoder_and_attention_agree_within_upstreams_error():
    failures = cases_beyond_upstreams_error(CASES)
    assert not failures, failures


def test_both_sides_take_the_fused_layer():
    ours, upstream = run_json(OURS, LOGGED), run_json(UPSTREAM, LOGGED)
    assert upstream["fused"] == ["aten._transformer_encoder_layer_fwd.default"]
    assert ours["fused"] == upstream["fused"]
