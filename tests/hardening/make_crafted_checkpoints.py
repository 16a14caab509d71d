"""Writes a corpus of damaged checkpoints, for tests/hardening/test_crafted_checkpoints.py.

Run under UPSTREAM's interpreter (.venv-upstream/bin/python make_crafted_checkpoints.py DIR):
each checkpoint starts as a real torch.save archive, then one thing in it is made to lie: a
storage record shorter than the storage the pickle declares, sizes/strides/offsets in the
pickle that reach past their storage (or are negative), a damaged central directory or local
header, a pickle that tries to run code under weights_only=True. Prints the names written.
"""

from __future__ import annotations

import collections
import io
import os
import pickle
import struct
import sys
import zipfile

import torch


class Storage:
    """A storage reference in the pickle: persistent_id ('storage', cls, key, 'cpu', numel)."""

    def __init__(self, key: str, cls, numel: int):
        self.key, self.cls, self.numel = key, cls, numel


class Rebuild:
    """Pickles as torch.save pickles a tensor: _rebuild_tensor_v2(storage, offset, size,
    stride, requires_grad, hooks), with whatever numbers we choose."""

    def __init__(self, storage: Storage, offset, size, stride):
        self.args = (storage, offset, tuple(size), tuple(stride), False,
                     collections.OrderedDict())

    def __reduce__(self):
        return torch._utils._rebuild_tensor_v2, self.args


class Evil:
    """A pickle that runs code when loaded (weights_only=True must refuse it)."""

    def __reduce__(self):
        return os.system, ("echo pwned",)


def pickle_bytes(obj) -> bytes:
    buf = io.BytesIO()
    p = pickle.Pickler(buf, protocol=2)
    p.persistent_id = lambda o: (("storage", o.cls, o.key, "cpu", o.numel)
                                 if isinstance(o, Storage) else None)
    p.dump(obj)
    return buf.getvalue()


def rezip(src: str, dst: str, replace: dict[str, bytes]):
    """Copies the archive src to dst, replacing the records whose names end with a key."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            for suffix, new in replace.items():
                if info.filename.endswith(suffix):
                    data = new
            zout.writestr(info.filename, data)


def patch(path: str, find: bytes, new: bytes, nth: int = 0):
    """Overwrites the nth occurrence of find in the file with new (same length)."""
    raw = bytearray(open(path, "rb").read())
    at = -1
    for _ in range(nth + 1):
        at = raw.index(find, at + 1)
    raw[at:at + len(new)] = new
    open(path, "wb").write(bytes(raw))


def main(out: str):
    os.makedirs(out, exist_ok=True)
    base = os.path.join(out, "base.pt")
    # Four float32 values 1, 2, 3, 4: a 16-byte record "data/0".
    torch.save({"w": torch.arange(1.0, 5.0)}, base)
    s4 = Storage("0", torch.FloatStorage, 4)
    made = ["base"]

    def crafted(name: str, obj=None, records: dict[str, bytes] | None = None):
        replace = dict(records or {})
        if obj is not None:
            replace["data.pkl"] = pickle_bytes(obj)
        rezip(base, os.path.join(out, name + ".pt"), replace)
        made.append(name)

    # The pickle as torch.save writes it, through our writer: must load as the base does.
    crafted("rewritten", {"w": Rebuild(s4, 0, (4,), (1,))})
    # Storage records shorter than the storage the pickle declares.
    crafted("record_short", records={"data/0": struct.pack("<2f", 1, 2)})
    crafted("record_empty", records={"data/0": b""})
    crafted("record_long", records={"data/0": struct.pack("<6f", 1, 2, 3, 4, 5, 6)})
    crafted("numel_lies", {"w": Rebuild(Storage("0", torch.FloatStorage, 1000), 0, (4,), (1,))})
    crafted("numel_huge", {"w": Rebuild(Storage("0", torch.FloatStorage, 2**61), 0, (4,), (1,))})
    # Tensors that reach past their (honest) storage.
    crafted("size_past_end", {"w": Rebuild(s4, 0, (100,), (1,))})
    crafted("size_huge", {"w": Rebuild(s4, 0, (2**62,), (1,))})
    crafted("size_negative", {"w": Rebuild(s4, 0, (-1,), (1,))})
    crafted("stride_past_end", {"w": Rebuild(s4, 0, (2,), (2**62,))})
    crafted("stride_2x", {"w": Rebuild(s4, 0, (4,), (2,))})
    crafted("stride_negative", {"w": Rebuild(s4, 3, (4,), (-1,))})
    crafted("offset_past_end", {"w": Rebuild(s4, 3, (4,), (1,))})
    crafted("offset_huge", {"w": Rebuild(s4, 2**62, (1,), (1,))})
    crafted("offset_negative", {"w": Rebuild(s4, -1, (2,), (1,))})
    crafted("sizes_overflow", {"w": Rebuild(s4, 0, (2**32, 2**32), (0, 0))})
    # A pickle that runs code.
    crafted("pickle_runs_code", {"w": Evil()})
    # Damaged zip structure (on copies of the base).
    def damaged(name: str, find: bytes, new: bytes, nth: int = 0):
        path = os.path.join(out, name + ".pt")
        open(path, "wb").write(open(base, "rb").read())
        patch(path, find, new, nth)
        made.append(name)

    damaged("central_signature", b"PK\x01\x02", b"PK\x09\x09")
    damaged("local_signature", b"PK\x03\x04", b"PK\x09\x09", nth=1)
    damaged("end_signature", b"PK\x05\x06", b"PK\x09\x09")
    raw = open(base, "rb").read()
    end = raw.rindex(b"PK\x05\x06")
    cd_offset = struct.unpack_from("<I", raw, end + 16)[0]
    damaged("central_offset_past_end", raw[end:end + 20],
            raw[end:end + 16] + struct.pack("<I", len(raw) + 100))
    damaged("central_count_lies", raw[end:end + 12],
            raw[end:end + 8] + struct.pack("<HH", 200, 200))
    # A central directory entry whose local header offset points into the middle of the data.
    cd_entry = raw.index(b"PK\x01\x02", cd_offset)
    damaged("central_header_offset_lies", raw[cd_entry:cd_entry + 46],
            raw[cd_entry:cd_entry + 42] + struct.pack("<I", 7))
    # A local header whose name length sends the data past the end of the file.
    local = raw.index(b"PK\x03\x04", raw.index(b"PK\x03\x04") + 1)
    damaged("local_name_length_lies", raw[local:local + 30],
            raw[local:local + 26] + struct.pack("<HH", 0xFFFF, 0xFFFF))
    # A central directory entry declaring more bytes than the file holds.
    damaged("central_size_lies", raw[cd_entry:cd_entry + 28],
            raw[cd_entry:cd_entry + 20] + struct.pack("<II", 2**31, 2**31))
    damaged("truncated_file", raw, raw[: len(raw) // 2] + b"\0" * (len(raw) - len(raw) // 2))
    print("\n".join(made))


if __name__ == "__main__":
    main(sys.argv[1])
