"""transformers' Trainer against upstream, each side in its own process (issue 8).

Acceptance: `transformers.Trainer` with its defaults (AdamW through the foreach path, a linear
schedule, clip_grad_norm_ at 1.0, the default data collator, RandomSampler seeded by the
Trainer) runs six steps on tiny models built from configs and datasets made here: a
GPT2LMHeadModel on a list of dicts of lists (the collator's torch.tensor path; dropout at the
config's defaults), once with padding and -100 labels, once without an attention mask
(transformers then looks for packed sequences in the position ids with torch.diff), and a
BertForSequenceClassification on a torch Dataset of tensors (the collator's torch.stack path; no
token_type_ids, so BERT gathers them from its buffer). The logged losses and gradient norms
step by step, and the final parameters, agree with upstream's by the rule of
tests/autograd/test_lm_training.py (one warm-up step runs at learning rate 0, so the first two
losses carry upstream's bits; after that, twice upstream's own float32
error, measured by upstream running the same Trainer in float64).

No patch: the Trainer imports torch.distributed.tensor on every step to ask whether parameters
or gradients are DTensors on several meshes (transformers.trainer_optimizer.has_mixed_dtensor),
and that import now works in ours as in upstream (docs/DESIGN_NOTES.md, Note [torch.distributed
in one process]); both sides answer False (no DTensor exists).
"""

from __future__ import annotations

import pytest

from tests.autograd.test_lm_training import check_run
from tests.door import _both

PRELUDE = r'''
import json, os, tempfile
os.environ["HF_HUB_OFFLINE"] = "1"
import torch, transformers
from transformers import (BertConfig, BertForSequenceClassification, GPT2Config, GPT2LMHeadModel,
                          Trainer, TrainingArguments)
transformers.logging.set_verbosity_error()
out = {}
def hexof(t):
    return t.detach().contiguous().numpy().tobytes().hex()
def gpt2_data(masked):
    g = torch.Generator().manual_seed(1)
    rows = []
    for i in range(16):
        ids = torch.randint(1, 64, (8,), generator=g).tolist()
        if not masked:  # no mask: transformers looks for packed sequences (torch.diff)
            rows.append({"input_ids": ids, "labels": ids})
            continue
        mask = [1] * 8 if i % 3 else [1] * 5 + [0] * 3
        labels = [t if m else -100 for t, m in zip(ids, mask)]
        rows.append({"input_ids": ids, "attention_mask": mask, "labels": labels})
    return rows
class BertData(torch.utils.data.Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(2)
        self.ids = torch.randint(1, 64, (16, 8), generator=g)
        self.mask = torch.ones_like(self.ids)
        self.mask[::4, 6:] = 0
        self.labels = torch.randint(0, 3, (16,), generator=g)
    def __len__(self):
        return len(self.ids)
    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": self.mask[i],
                "label": int(self.labels[i])}
def build(name):
    if name.startswith("gpt2"):
        config = GPT2Config(vocab_size=64, n_positions=16, n_embd=32, n_layer=2, n_head=4,
                            bos_token_id=0, eos_token_id=0)
        return GPT2LMHeadModel(config), gpt2_data(masked=name == "gpt2")
    return BertForSequenceClassification(BertConfig(
        vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, max_position_embeddings=16, num_labels=3,
        pad_token_id=0)), BertData()
def train(name, dtype):
    torch.manual_seed(0)
    model, data = build(name)
    model = model.to(dtype)
    with tempfile.TemporaryDirectory() as tmp:
        args = TrainingArguments(
            output_dir=tmp, max_steps=6, per_device_train_batch_size=4, learning_rate=3e-3,
            warmup_steps=1, weight_decay=0.1, seed=0, logging_steps=1, report_to=[],
            save_strategy="no", use_cpu=True, dataloader_num_workers=0, disable_tqdm=True)
        trainer = Trainer(model=model, args=args, train_dataset=data)
        trainer.train()
    logs = [h for h in trainer.state.log_history if "loss" in h]
    return {"losses": [h["loss"] for h in logs], "norms": [h["grad_norm"] for h in logs],
            "lrs": [h["learning_rate"] for h in logs],
            "params": {n: hexof(p) for n, p in model.named_parameters()}}
'''

MODELS = ("gpt2", "gpt2 unmasked", "bert")
BODY = f"\nMODELS = {MODELS}" + r'''
for name in MODELS:
    for dtype in DTYPES:
        out[f"{name} fused=None {dtype}"] = train(name, getattr(torch, dtype))
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def runs():
    head = PRELUDE
    return (_both.run_json(_both.OURS, head + "DTYPES = ('float32',)" + BODY),
            _both.run_json(_both.UPSTREAM, head + "DTYPES = ('float32', 'float64')" + BODY))


@pytest.mark.parametrize("name", MODELS)
def test_trainer_trains_as_upstream(runs, name):
    ours, up = runs
    key = f"{name} fused=None float32"
    assert len(up[key]["losses"]) == 6, up[key]
    # The schedule is the Trainer's: the same learning rate at every logged step.
    assert ours[key]["lrs"] == up[key]["lrs"], (ours[key]["lrs"], up[key]["lrs"])
    check_run(ours, up, name, "None")
