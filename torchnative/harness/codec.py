"""Torch objects <-> plain data with exact bytes, the same code in both interpreters.

A call's arguments become a tree of builtins in which every tensor is a reference into a table of
tensor records (dtype, shape, strides, storage offset, storage id) and every storage is the raw
bytes of the whole storage, so strides, overlap and aliasing between arguments come back exactly.
Only torch calls our core implements are used (from_numpy, view(dtype), as_strided, contiguous,
numpy). Files are pickles of builtins only and are read back with a loader that refuses any class.
"""

from __future__ import annotations

import io
import pickle
import struct

import numpy as np

# The dtypes our core has (ARCHITECTURE.md); other dtypes are still named, for refusals.
OUR_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
              "float32", "float64", "complex32", "complex64", "complex128")
FLOATING = ("float16", "bfloat16", "float32", "float64", "complex32", "complex64", "complex128")
COMPLEX = ("complex32", "complex64", "complex128")
WIDEST = ("float64", "complex128")  # the dtypes drawn without a wider rerun
MARK = "\x00"  # key of a dict that stands for a non-builtin object (kwargs never use it)


class Unencodable(TypeError):
    """An argument the harness cannot carry as plain data (a generator, a Python function)."""


def dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _storage_key(t) -> tuple[int, int]:
    s = t.untyped_storage()
    return s.data_ptr(), s.nbytes()


class Encoder:
    """Collects tensors and their storages while trees are encoded; one per recorded state."""

    def __init__(self):
        self.storages: list[bytes] = []
        self.tensors: list[dict] = []
        self._storage_ids: dict[tuple[int, int], int] = {}
        self.objects: list = []  # the tensors themselves, parallel to self.tensors

    def tensor(self, t) -> int:
        for i, seen in enumerate(self.objects):
            if seen is t:
                return i
        import torch

        key = _storage_key(t)
        sid = self._storage_ids.get(key) if key[1] else None
        if sid is None:
            nbytes, size = key[1], t.element_size()
            flat = torch.as_strided(t, (nbytes // size,), (1,), 0).contiguous()
            blob = flat.view(torch.uint8).numpy().tobytes() if nbytes else b""
            sid = len(self.storages)
            self.storages.append(blob)
            if nbytes:
                self._storage_ids[key] = sid
        self.tensors.append({"dtype": dtype_name(t.dtype), "shape": list(t.shape),
                             "stride": list(t.stride()), "offset": t.storage_offset(),
                             "storage": sid})
        self.objects.append(t)
        return len(self.tensors) - 1

    def encode(self, obj):
        """A tree of builtins standing for obj; raises Unencodable."""
        import torch

        if obj is None or isinstance(obj, (bool, int, float, complex, str)):
            return obj
        if isinstance(obj, torch.Tensor):
            if obj.layout != torch.strided or obj.device.type != "cpu" or obj.is_conj() \
                    or obj.is_neg():
                raise Unencodable(f"tensor {obj.layout} {obj.device} conj={obj.is_conj()}")
            return {MARK: "tensor", "v": self.tensor(obj)}
        if isinstance(obj, torch.dtype):
            return {MARK: "dtype", "v": dtype_name(obj)}
        if isinstance(obj, torch.device):
            return {MARK: "device", "v": str(obj)}
        if isinstance(obj, torch.memory_format):
            return {MARK: "memory_format", "v": dtype_name(obj)}
        if isinstance(obj, torch.layout):
            return {MARK: "layout", "v": dtype_name(obj)}
        if isinstance(obj, torch.UntypedStorage):  # carried as a uint8 tensor over it
            return {MARK: "storage",
                    "v": self.tensor(torch.empty(0, dtype=torch.uint8).set_(obj))}
        if isinstance(obj, torch.Generator):  # carried as its seed: a fresh one per call
            return {MARK: "generator", "v": obj.initial_seed()}
        if isinstance(obj, torch.Size):
            return {MARK: "size", "v": list(obj)}
        if isinstance(obj, slice):
            return {MARK: "slice", "v": [self.encode(obj.start), self.encode(obj.stop),
                                         self.encode(obj.step)]}
        if obj is Ellipsis:
            return {MARK: "ellipsis"}
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            return {MARK: "namedtuple", "v": [self.encode(x) for x in obj]}
        if isinstance(obj, tuple):
            return tuple(self.encode(x) for x in obj)
        if isinstance(obj, list):
            return [self.encode(x) for x in obj]
        if isinstance(obj, dict) and all(isinstance(k, str) for k in obj):
            return {k: self.encode(v) for k, v in obj.items()}
        raise Unencodable(f"cannot carry a {type(obj).__module__}.{type(obj).__qualname__}")

    def state(self) -> dict:
        return {"storages": self.storages, "tensors": self.tensors}


def rebuild(state: dict) -> list:
    """Fresh tensors from an encoded state: one new storage per recorded storage, so tensors that
    shared a storage share one again, with the recorded dtype, shape, strides and offset."""
    import torch

    bases = [torch.from_numpy(np.frombuffer(blob, np.uint8).copy()) for blob in state["storages"]]
    out = []
    for rec in state["tensors"]:
        dtype = getattr(torch, rec["dtype"])
        base = bases[rec["storage"]]
        typed = base.view(dtype) if base.numel() else torch.empty(0, dtype=dtype)
        out.append(torch.as_strided(typed, rec["shape"], rec["stride"], rec["offset"]))
    return out


def decode(tree, tensors: list):
    """The objects a tree stands for, with tensors taken from `tensors` (rebuild's list)."""
    import torch

    if isinstance(tree, dict) and MARK in tree:
        kind, v = tree[MARK], tree.get("v")
        if kind == "tensor":
            return tensors[v]
        if kind in ("dtype", "memory_format", "layout"):
            return getattr(torch, v)
        if kind == "device":
            return torch.device(v)
        if kind == "storage":
            return tensors[v].untyped_storage()
        if kind == "generator":
            return torch.Generator().manual_seed(v)
        if kind == "size":
            return torch.Size(v)
        if kind == "slice":
            return slice(*(decode(x, tensors) for x in v))
        if kind == "ellipsis":
            return Ellipsis
        if kind == "namedtuple":
            return tuple(decode(x, tensors) for x in v)
        raise ValueError(f"unknown marker {kind!r}")
    if isinstance(tree, tuple):
        return tuple(decode(x, tensors) for x in tree)
    if isinstance(tree, list):
        return [decode(x, tensors) for x in tree]
    if isinstance(tree, dict):
        return {k: decode(v, tensors) for k, v in tree.items()}
    return tree


def outcome(result, inputs: list, error: BaseException | None = None) -> dict:
    """What a call gave, as plain data: its exception's type and message, or its result tree with
    every tensor's bytes and, per tensor, which input it shares storage with and which input
    object it is (in-place and out= return an input)."""
    if error is not None:
        return {"ok": False, "exc": type(error).__name__,
                "msg": str(error).strip().splitlines()[0][:300] if str(error).strip() else ""}
    enc = Encoder()
    try:
        tree = enc.encode(result)
    except Unencodable:  # NotImplemented from a reflected operator, a Python object
        enc = Encoder()
        tree = {MARK: "object", "v": f"{type(result).__module__}.{type(result).__qualname__}"}
    input_storage = {}
    for i, t in enumerate(inputs):
        key = _storage_key(t)
        if key[1]:
            input_storage.setdefault(key[0], i)
    for rec, t in zip(enc.tensors, enc.objects):
        key = _storage_key(t)
        rec["alias"] = input_storage.get(key[0], -1) if key[1] else -1
        rec["is_input"] = next((i for i, x in enumerate(inputs) if x is t), -1)
    return {"ok": True, "tree": tree, **enc.state()}


class _Loader(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) == ("builtins", "complex"):
            return complex
        raise pickle.UnpicklingError(f"harness files hold builtins only, not {module}.{name}")


def load(path) -> object:
    with open(path, "rb") as f:
        return _Loader(f).load()


def loads(data: bytes) -> object:
    return _Loader(io.BytesIO(data)).load()


def dump(obj, path) -> None:
    with open(path, "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


# Result files: length-prefixed pickles appended one per case, so a crash loses at most one.
def append_record(f, record: dict) -> None:
    blob = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(struct.pack("<Q", len(blob)) + blob)
    f.flush()


def read_records(path) -> list[dict]:
    """Every complete record of a result file (a crash may leave a partial last one)."""
    out, data = [], _read_or_empty(path)
    pos = 0
    while pos + 8 <= len(data):
        (n,) = struct.unpack("<Q", data[pos:pos + 8])
        if pos + 8 + n > len(data):
            break
        out.append(loads(data[pos + 8:pos + 8 + n]))
        pos += 8 + n
    return out


def _read_or_empty(path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""
