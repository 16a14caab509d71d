"""torch.load of archives written by upstream's torch.save (issue 2: "torch.load of a .bin written
by upstream's torch.save, with weights_only=True").

Upstream saves in its own process; ours loads the file (from a path, from a file object, and with
mmap=True) and reports every tensor's dtype, shape, strides, storage offset, bytes and which
tensors share a storage; upstream reloads its own file and reports the same. They must be equal.
"""

from __future__ import annotations

import textwrap

import pytest

from helpers import OURS, UPSTREAM, run_json

SAVE = textwrap.dedent(
    """
    import json, sys, torch
    torch.manual_seed(0)
    w = torch.randn(3, 4)
    sd = {
        "w": w, "row": w[1], "wt": w.t(),                    # views sharing w's storage
        "b": torch.arange(5), "i8": torch.tensor([-3, 7], dtype=torch.int8),
        "h": torch.randn(2, 2).half(), "bf": torch.randn(3).bfloat16(),
        "d": torch.randn(2, 3, dtype=torch.float64), "m": torch.tensor([True, False]),
        "s": torch.tensor(2.5), "empty": torch.zeros(0, 3),
        "nested": {"list": [torch.ones(2), 3, "text"], "tuple": (1.5, torch.full((2,), 7))},
        "n": 3,
    }
    lin = torch.nn.Linear(4, 2)
    sd["linear"] = lin.state_dict()
    torch.save(sd, sys.argv[1])
    print(json.dumps({"saved": True}))
    """
)

REPORT = textwrap.dedent(
    """
    import io, json, sys, torch
    path, how = sys.argv[1], sys.argv[2]
    if how == "path":
        sd = torch.load(path)
    elif how == "buffer":
        with open(path, "rb") as f:
            sd = torch.load(io.BytesIO(f.read()))
    else:
        sd = torch.load(path, mmap=True)
    storages = {}
    def walk(prefix, v, out):
        if isinstance(v, torch.Tensor):
            ptr = v.untyped_storage().data_ptr()
            out[prefix] = {"dtype": str(v.dtype), "shape": list(v.shape), "stride": list(v.stride()),
                           "offset": v.storage_offset(), "requires_grad": v.requires_grad,
                           "bytes": v.contiguous().view(-1).view(torch.uint8).numpy().tobytes().hex()
                                    if v.numel() else "",
                           "storage": storages.setdefault(ptr, len(storages))}
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(f"{prefix}.{k}", x, out)
        elif isinstance(v, (list, tuple)):
            out[prefix] = type(v).__name__
            for k, x in enumerate(v):
                walk(f"{prefix}[{k}]", x, out)
        else:
            out[prefix] = repr(v)
    out = {}
    walk("", sd, out)
    print(json.dumps(out))
    """
)

LOAD_INTO_MODULE = textwrap.dedent(
    """
    import json, sys, torch
    sd = torch.load(sys.argv[1])["linear"]
    lin = torch.nn.Linear(4, 2)
    lin.load_state_dict(sd)
    x = torch.arange(8, dtype=torch.float32).reshape(2, 4)
    print(json.dumps(lin(x).detach().numpy().tobytes().hex()))
    """
)


def run_with(python, code, *args):
    import subprocess
    proc = subprocess.run([str(python), "-I", "-c", code, *args], capture_output=True, text=True,
                          timeout=300, cwd="/")
    assert proc.returncode == 0, proc.stderr[-4000:]
    import json
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    path = tmp_path_factory.mktemp("load") / "upstream.bin"
    run_with(UPSTREAM, SAVE, str(path))
    return path


@pytest.fixture(scope="module")
def upstream_view(archive):
    return run_with(UPSTREAM, REPORT, str(archive), "path")


@pytest.mark.parametrize("how", ["path", "buffer", "mmap"])
def test_load_upstream_archive_matches_upstreams_own_load(archive, upstream_view, how):
    ours = run_with(OURS, REPORT, str(archive), how)
    assert ours == upstream_view
    # the archive really holds views of one storage (so the sharing check is not vacuous)
    assert ours[".w"]["storage"] == ours[".row"]["storage"] == ours[".wt"]["storage"]


def test_loaded_state_dict_drives_a_module_bit_identically(archive):
    assert run_with(OURS, LOAD_INTO_MODULE, str(archive)) == \
        run_with(UPSTREAM, LOAD_INTO_MODULE, str(archive))


def test_not_an_archive_raises_like_upstream(tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"PK\x03\x04" + b"\x00" * 64)  # zip magic, no central directory
    code = textwrap.dedent(
        """
        import json, sys, torch
        try:
            torch.load(sys.argv[1])
            print(json.dumps("no error"))
        except Exception as e:
            print(json.dumps(type(e).__name__))
        """
    )
    assert run_with(OURS, code, str(bad)) == run_with(UPSTREAM, code, str(bad)) != "no error"
