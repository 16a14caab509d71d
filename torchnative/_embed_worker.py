"""Sentence embeddings with all-MiniLM-L6-v2 under this interpreter's torch (ours or upstream's).

Run by path, `python -I _embed_worker.py REQUEST_JSON`, by torchnative/embed.py; never imported
by the parent. Loads the model with the real `from_pretrained`, embeds as sentence-transformers
does for this model (mean pooling over the attention mask, then L2 normalisation) and writes each
dtype's embeddings with numpy.save (exact bytes). With "rounds" set it then stays resident and
times one forward pass per `round` command (bench/minilm_bench.py).
"""

from __future__ import annotations

import copy
import json
import sys
import timeit
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # for torchnative._child, stdlib only
from torchnative import _child  # noqa: E402
from torchnative._child import send, step  # noqa: E402


def embed(torch, model, batch):
    """(sentences, 384) unit-norm embeddings in the model's dtype."""
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state  # (sentences, tokens, 384)
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)  # (sentences, tokens, 1)
        mean = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
        return torch.nn.functional.normalize(mean, p=2, dim=1)


def save(embeddings, path: Path) -> str:
    """Writes embeddings as .npy with their exact bytes; returns the route that read them."""
    import numpy

    data, route = _child.tensor_bytes(embeddings)
    dtype = {"torch.float32": numpy.float32, "torch.float64": numpy.float64}[str(embeddings.dtype)]
    shape = tuple(embeddings.shape)
    numpy.save(path, numpy.frombuffer(data, dtype=dtype).reshape(shape))
    return route


def time_forward(torch, model, batch, request: dict, loops: list[int]) -> float:
    """Seconds per embedding of the batch: best of the requested repeats; the loop count is
    chosen once, so that one repeat takes at least the requested target."""
    timer = timeit.Timer(lambda: embed(torch, model, batch))
    if not loops:
        count = 1
        while timer.timeit(count) < request["round_target_s"]:
            count *= 2
        loops.append(count)
    return min(timer.repeat(repeat=request["repeats"], number=loops[0])) / loops[0]


def main(request: dict) -> None:
    out_dir = Path(request["out_dir"])
    with step("locate torch", announce=False):
        located = _child.locate_torch(request["expect_c"])
    with step("import torch"):
        import torch
    with step("check which torch was loaded", announce=False):
        loaded = _child.check_loaded(torch, located)
    if request.get("threads") is not None:
        with step("set the thread count", announce=False):
            torch.set_num_threads(request["threads"])
            assert torch.get_num_threads() == request["threads"], torch.get_num_threads()
    with step("import transformers"):
        from transformers import AutoModel, AutoTokenizer
    with step("load the tokenizer"):
        tokenizer = AutoTokenizer.from_pretrained(request["model"])
    with step("tokenize"):
        batch = tokenizer(request["sentences"], padding=True, truncation=True,
                          return_tensors="pt")
    with step("load the model"):
        model = AutoModel.from_pretrained(request["model"]).eval()
        dtypes = {str(p.dtype) for p in model.parameters()}
        assert dtypes == {"torch.float32"}, f"parameters are {dtypes}, expected float32"
    files, routes, seconds = {}, {}, {}
    for dtype in request["dtypes"]:  # "float32", then (upstream only) "float64"
        with step(f"embed in {dtype}"):
            start = timeit.default_timer()
            source = model if dtype == "float32" else copy.deepcopy(model).double()
            embeddings = embed(torch, source, batch)
            seconds[dtype] = timeit.default_timer() - start
            assert str(embeddings.dtype) == f"torch.{dtype}", embeddings.dtype
        with step(f"write the {dtype} embeddings", announce=False):
            files[dtype] = str(out_dir / f"embeddings_{dtype}.npy")
            routes[dtype] = save(embeddings, Path(files[dtype]))
    with step("report", announce=False):
        report = {"ok": True, "torch": loaded, "files": files, "export_route": routes,
                  "seconds": seconds, "input_ids": batch["input_ids"].tolist(),
                  "attn_implementation": model.config._attn_implementation,
                  "threads": torch.get_num_threads()}
    send(report)
    if request.get("rounds"):
        loops: list[int] = []
        for command in _child.commands():
            with step(f"timed round ({command})", announce=False):
                per_call = time_forward(torch, model, batch, request, loops)
            send({"ok": True, "seconds": per_call, "loops": loops[0]})


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
