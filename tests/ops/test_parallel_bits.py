"""The kernels that split their work between threads, bit for bit against upstream at 2 and 3
threads (Note [Intra-op threads are OpenMP's], csrc/kernels/cpu/parallel.h).

Elementwise loops split above upstream's grain of 32,768 elements as its TensorIterator does,
and where an op's result depends on the path an element takes (bfloat16 add with alpha and
maximum of -0.0 and 0.0 differ between upstream's vector body and its scalar tail) the tails
move with the split: flat, 2-d with a row cut by the split, transposed, broadcast and
odd-length inputs, float32, float64 and bfloat16. max_pool2d (forward, indices, backward) and
batch_norm's forward split over planes and channels, softmax and log_softmax (forward and
backward, last dim) and layer_norm (forward and backward: each thread's rows summed into its
own partial row of the parameters' gradients, as upstream's) over rows, which must change no
bits; their inputs are large enough to be split. Each side hashes every result in its own process; upstream's runs
apart.

Convolution, batch_norm's backward and softmax over a dim other than the last are not held to
upstream's bits: they differ from upstream's at one thread too (upstream's float32 convolution
is oneDNN's; tests/autograd/test_conv_pool.py holds them within upstream's error), so their
split (over samples, channels, rows) is checked against ours at one thread instead.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from helpers import OURS, UPSTREAM, run, run_json

CODE = textwrap.dedent(
    """
    import hashlib, json, torch, torch.nn.functional as F
    torch.set_num_threads(THREADS)
    assert torch.get_num_threads() == THREADS

    def h(t):
        t = t.detach().contiguous()
        t = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
        return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:16]

    def draw(g, shape, dt):
        x = torch.randn(shape, generator=g, dtype=torch.float64) * 3
        f = x.view(-1)
        f[::97] = 0.0; f[3::89] = -0.0
        return x.to(dt)

    out = {}
    for dt in (torch.float32, torch.float64, torch.bfloat16):
        g = torch.Generator().manual_seed(3)
        a, b = draw(g, (331, 307), dt), draw(g, (331, 307), dt)
        row = draw(g, (307,), dt)
        layouts = {
            "flat": (a.view(-1), b.view(-1)),             # one row, cut by the split
            "rows": (a[:, :301], b[:, 3:304]),            # 2-d, a row cut mid-way
            "transposed": (a[:300, :300].t(), b[:300, :300]),
            "bcast": (a, row),
            "odd": (a.view(-1)[: 65537], b.view(-1)[1: 65538]),
        }
        for name, (x, y) in layouts.items():
            k = f"{dt}/{name}/"
            out[k + "add_alpha"] = h(torch.add(x, y, alpha=0.37))
            out[k + "maximum"] = h(torch.maximum(x, y))
            out[k + "minimum"] = h(torch.minimum(x, y))
            out[k + "mul"] = h(x * y)
            out[k + "relu"] = h(torch.relu(x))
            out[k + "tanh"] = h(torch.tanh(x))
            out[k + "exp"] = h(torch.exp(x))
            out[k + "copy_cast"] = h(x.to(torch.float64 if dt != torch.float64 else torch.float32))
            z = x.clone(); z.mul_(0.9).add_(y, alpha=0.1)
            out[k + "in_place"] = h(z)

    g = torch.Generator().manual_seed(5)
    for dt in (torch.float32, torch.float64):
        x = torch.randn(32, 16, 32, 32, generator=g, dtype=dt).requires_grad_()
        y, idx = F.max_pool2d(x, 2, return_indices=True)
        out[f"{dt}/max_pool2d"] = h(y)
        out[f"{dt}/max_pool2d/indices"] = h(idx)
        (gx,) = torch.autograd.grad(y, x, torch.randn(y.shape, generator=g, dtype=dt))
        out[f"{dt}/max_pool2d/grad"] = h(gx)
        w = torch.randn(16, generator=g, dtype=dt).requires_grad_()
        bias = torch.randn(16, generator=g, dtype=dt).requires_grad_()
        rm, rv = torch.zeros(16, dtype=dt), torch.ones(16, dtype=dt)
        y = F.batch_norm(x, rm, rv, w, bias, training=True, momentum=0.1, eps=1e-5)
        out[f"{dt}/batch_norm"] = h(y)
        out[f"{dt}/batch_norm/running"] = h(torch.cat([rm, rv]))
        # layer_norm: rows per thread; its backward sums each thread's rows into a partial row
        x = torch.randn(517, 256, generator=g, dtype=dt).requires_grad_()
        w = torch.randn(256, generator=g, dtype=dt).requires_grad_()
        bias = torch.randn(256, generator=g, dtype=dt).requires_grad_()
        y = F.layer_norm(x, (256,), w, bias)
        out[f"{dt}/layer_norm"] = h(y)
        grads = torch.autograd.grad(y, (x, w, bias), torch.randn(y.shape, generator=g, dtype=dt))
        for name, t in zip(("x", "w", "b"), grads):
            out[f"{dt}/layer_norm/grad_{name}"] = h(t)
        # softmax and log_softmax over the last dim: rows per thread
        x = torch.randn(300, 2049, generator=g, dtype=dt).requires_grad_()
        for fn in (torch.softmax, torch.log_softmax):
            y = fn(x, -1)
            out[f"{dt}/{fn.__name__}"] = h(y)
            (gx,) = torch.autograd.grad(y, x, torch.randn(y.shape, generator=g, dtype=dt))
            out[f"{dt}/{fn.__name__}/grad"] = h(gx)
    out["capability"] = torch.backends.cpu.get_cpu_capability()
    out["threads"] = THREADS
    print(json.dumps(out))
    """
)

# Ours at several threads against ours at one: convolution (forward and backward),
# batch_norm's backward and softmax over dim 0, whose bits are not upstream's at any thread count (measured on main
# before the split: upstream's convolution is oneDNN's; batch_norm's gradients differ at one
# thread too), so their split is held to changing nothing.
SELF = textwrap.dedent(
    """
    import hashlib, json, torch, torch.nn.functional as F
    torch.set_num_threads(THREADS)

    def h(t):
        return hashlib.sha256(t.detach().contiguous().numpy().tobytes()).hexdigest()[:16]

    g = torch.Generator().manual_seed(9)
    out = {}
    for groups in (1, 2):
        x = torch.randn(9, 4, 17, 19, generator=g).requires_grad_()
        w = torch.randn(6, 4 // groups, 3, 3, generator=g).requires_grad_()
        b = torch.randn(6, generator=g).requires_grad_()
        y = F.conv2d(x, w, b, padding=1, stride=(1, 2), groups=groups)
        grads = torch.autograd.grad(y, (x, w, b), torch.randn(y.shape, generator=g))
        out[f"g{groups}/y"] = h(y)
        for name, t in zip(("x", "w", "b"), grads):
            out[f"g{groups}/grad_{name}"] = h(t)
    for dt in (torch.float32, torch.float64):
        x = torch.randn(32, 16, 24, 24, generator=g, dtype=dt).requires_grad_()
        w = torch.randn(16, generator=g, dtype=dt).requires_grad_()
        b = torch.randn(16, generator=g, dtype=dt).requires_grad_()
        y = F.batch_norm(x, None, None, w, b, training=True)
        grads = torch.autograd.grad(y, (x, w, b), torch.randn(y.shape, generator=g, dtype=dt))
        for name, t in zip(("x", "w", "b"), grads):
            out[f"{dt}/batch_norm/grad_{name}"] = h(t)
        x = torch.randn(301, 300, generator=g, dtype=dt).requires_grad_()
        for fn in (torch.softmax, torch.log_softmax):  # over dim 0: rows `inner` apart
            y = fn(x, 0)
            (gx,) = torch.autograd.grad(y, x, torch.randn(y.shape, generator=g, dtype=dt))
            out[f"{dt}/{fn.__name__}/dim0"] = h(y)
            out[f"{dt}/{fn.__name__}/dim0/grad"] = h(gx)
    print(json.dumps(out))
    """
)


def runs_at(threads):
    code = CODE.replace("THREADS", str(threads))
    return run_json(OURS, code), run_json(UPSTREAM, code)


@pytest.fixture(scope="module", params=[2, 3])
def runs(request):
    return runs_at(request.param)


def test_every_case_ran_on_both_sides(runs):
    ours, up = runs
    assert sorted(ours) == sorted(up)
    assert len(ours) > 100


# layer_norm's bits are modelled on upstream's AVX2 build (Note [Which steps upstream's build
# fuses]); elsewhere its split is held to ours at one thread (tests/test_cpu_capability.py
# reruns tests/ops at AVX2 on an AVX-512 machine).
def modelled(key: str) -> bool:
    return "/layer_norm" in key


def test_split_results_are_upstreams_bits(runs):
    ours, up = runs
    avx2 = ours["capability"] == "AVX2"
    differ = [k for k in up if (avx2 or not modelled(k)) and ours[k] != up[k]]
    if differ:
        # Seen once in many runs (float32/flat/tanh at 3 threads, not reproduced in 3000 calls
        # on either side under load): say which side's bits moved between two runs, so the
        # next failure shows whether it is ours, upstream's, or a stable difference.
        again = runs_at(ours["threads"])
        moved = {k: [side for side, a, b in (("ours", ours, again[0]), ("upstream", up, again[1]))
                     if a[k] != b[k]] for k in differ}
        pytest.fail(f"{len(differ)} of {len(up)} differ from upstream: {differ[:20]}; "
                    f"moved in a second run: {moved}")


def test_modelled_kernels_split_changes_no_bits(runs):
    ours, _ = runs
    one = run_json(OURS, CODE.replace("THREADS", "1"))
    # The parameters' gradients sum per-thread partial rows, so their bits follow the thread
    # count (upstream's too); the output and dx do not.
    keys = [k for k in one if modelled(k) and not k.endswith(("grad_w", "grad_b"))]
    assert len(keys) == 4
    assert {k: ours[k] for k in keys} == {k: one[k] for k in keys}


def test_the_split_matters_for_the_tails():
    # The check above can fail: bfloat16 add with alpha moves its bits with the split, so at 2
    # threads upstream's results differ from its own at 1 thread.
    code = CODE.replace("THREADS", "1")
    up1 = run_json(UPSTREAM, code)
    up2 = run_json(UPSTREAM, CODE.replace("THREADS", "2"))
    assert up1["torch.bfloat16/flat/add_alpha"] != up2["torch.bfloat16/flat/add_alpha"]


@pytest.mark.parametrize("threads", [2, 3])
def test_convolution_and_batch_norm_backward_split_changes_no_bits(threads):
    one = run_json(OURS, SELF.replace("THREADS", "1"))
    many = run_json(OURS, SELF.replace("THREADS", str(threads)))
    assert sorted(one) == sorted(many)
    # The weight's gradient follows the thread count: in float32 each thread sums its run of
    # samples apart (nn_conv.cpp, weight_grad_f32), and MKL's own threads split a GEMM's inner
    # dim, so its bits follow the thread count in upstream's process too (an addmm of (6, 170)
    # by (170, 36) differs between 1 and 2 threads on both sides).
    mkl = {k for k in one if k.startswith("g") and k.endswith("grad_w")}
    assert len(mkl) == 2
    assert {k: v for k, v in one.items() if k not in mkl} == {
        k: v for k, v in many.items() if k not in mkl}


FORK = textwrap.dedent(
    """
    import json, os, signal, time, torch
    torch.set_num_threads(2)
    a = torch.randn(300001, generator=torch.Generator().manual_seed(1))
    b = torch.add(a, a, alpha=0.3)  # the parent's team has run
    pid = os.fork()
    if pid == 0:  # libgomp's team is gone here: the same chunks run on this thread
        c = torch.add(a, a, alpha=0.3)
        os._exit(0 if bool((c == b).all()) else 3)
    for _ in range(600):  # up to a minute; a hung child is killed, not left behind
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        status = None
    print(json.dumps("hung" if status is None else os.waitstatus_to_exitcode(status)))
    """
)


def test_a_forked_child_computes_what_its_parent_did():
    # Without the pthread_atfork mark the child waits forever for its parent's OpenMP threads.
    proc = run(OURS, FORK, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == 0
