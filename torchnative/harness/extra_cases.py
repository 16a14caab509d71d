"""Cases we write, for implemented overloads no OpInfo sample reaches (upstream's side only).

Upstream's Python front end never calls some overloads (torch.add(x, 2) reaches aten.add.Tensor
with the 2 wrapped, never aten.add.Scalar; out= forms of aliases; factories with a generator), so
their only spelling is torch.ops.aten.X.overload. Each is drawn here like an OpInfo entry of its
own, named "extra:aten.X.overload". Arguments come from WRITTEN when it has the overload, else from
the overload's schema by the rules in `synthesize` (a float32 or int64 3x4 tensor for a Tensor, 2
for a Scalar, 1 for a dim, ...); out= tensors are zeros shaped like the functional form's result.
"""

from __future__ import annotations

import torch
from torch.testing import make_tensor

from torchnative.harness import codec
from torchnative.harness.draw import DRAW_VERSION, logged, run_call, seed_of, traced, widened
from torchnative.harness.wrapped import WRAPPED, resolve

SHAPE = (3, 4)


class Out:
    """Stands for an out= tensor until the functional form's result says its shape and dtype."""


def tensors(dtype, n: int = 3):
    """n deterministic 3x4 tensors of dtype (positive ones for pow and division)."""
    low = 0.5 if dtype.is_floating_point else 1
    return [make_tensor(SHAPE, dtype=dtype, device="cpu", low=low, high=4) for _ in range(n)]


def foreach_written(dtype):
    """The foreach overloads whose one tensor is a 0-dim scalar (add/mul/div.Tensor) or a packed
    1-dim list of scalars (addcmul/addcdiv.Tensor): the schema's rules would give a 3x4."""
    xs, ys, zs = ([t] for t in tensors(dtype))
    zs = [zs[0].abs() + 1]
    out = {}
    for name in ("add", "mul", "div"):
        out[f"aten._foreach_{name}.Tensor"] = ((xs, torch.tensor(0.5)), {})
        out[f"aten._foreach_{name}_.Tensor"] = (([x.clone() for x in xs], torch.tensor(0.5)), {})
        out[f"aten._foreach_{name}.Tensor_out"] = ((xs, torch.tensor(0.5)), {"out": Out()})
    for name in ("addcmul", "addcdiv"):
        packed = torch.tensor([0.25])
        out[f"aten._foreach_{name}.Tensor"] = ((xs, ys, zs, packed), {})
        out[f"aten._foreach_{name}_.Tensor"] = (([x.clone() for x in xs], ys, zs, packed), {})
        out[f"aten._foreach_{name}.Tensor_out"] = ((xs, ys, zs, packed), {"out": Out()})
    return out


def _conv_x(gen):
    return torch.randn(1, 2, 5, 5, generator=gen)


def _conv_w(gen):
    return torch.randn(3, 2, 3, 3, generator=gen)


def _conv_b(gen):
    return torch.randn(3, generator=gen)


def written(dtype):
    """Arguments we chose by hand, per overload: (args, kwargs)."""
    a, b, _ = tensors(dtype)
    gen = torch.Generator().manual_seed(7)
    f = torch.float32
    gn_gen = torch.Generator().manual_seed(8)  # its own stream: the cases above keep theirs
    gn_x = torch.randn(2, 4, 3, 3, generator=gn_gen)
    gn_a, gn_b = torch.randn(3, 4, generator=gn_gen), torch.randn(3, 4, generator=gn_gen)
    gn_t = torch.randint(0, 3, (2, 3, 3), generator=gn_gen)
    return {**foreach_written(dtype), **{
        "aten.pow.Scalar": ((2, a), {}),
        "aten.pow.Scalar_out": ((2, a), {"out": Out()}),
        # (a float32 result for both draws' dtypes; no functional overload names these outs)
        "aten.xlogy.OutScalar_Self": ((2, a), {"out": torch.zeros(0)}),
        "aten.xlogy.OutScalar_Other": ((a, 3), {"out": torch.zeros(0)}),
        "aten.random.from": ((a, -5, 9), {}),
        "aten.matrix_power.out": ((gn_x[0, 0], 5), {"out": Out()}),
        # the complex views' copies' out= spellings (complex samples whatever the draw's dtype)
        "aten._conj_copy.out": ((torch.complex(gn_a, gn_b),), {"out": Out()}),
        "aten.view_as_real_copy.out": ((torch.complex(gn_a, gn_b),), {"out": Out()}),
        "aten.view_as_complex_copy.out": ((gn_a[:, :2].contiguous(),), {"out": Out()}),
        "aten.scatter.value_reduce_out": ((a, 0, torch.tensor([[0, 1], [1, 0]]), 2.0),
                                          {"reduce": "add", "out": Out()}),
        "aten.remainder.Scalar_Tensor": ((5, a), {}),
        "aten.remainder.Scalar_Tensor_out": ((5, a), {"out": Out()}),
        "aten.bitwise_and.Scalar_Tensor": ((6, a), {}),
        "aten.bitwise_or.Scalar_Tensor": ((6, a), {}),
        "aten.bitwise_xor.Scalar_Tensor": ((6, a), {}),
        "aten.bitwise_and.Scalar_Tensor_out": ((6, a), {"out": Out()}),
        "aten.bitwise_or.Scalar_Tensor_out": ((6, a), {"out": Out()}),
        "aten.bitwise_xor.Scalar_Tensor_out": ((6, a), {"out": Out()}),
        "aten.div.Scalar_mode": ((a, 2), {"rounding_mode": "floor"}),
        "aten.div_.Scalar_mode": ((a, 2), {"rounding_mode": "trunc"}),
        "aten.div.Scalar_mode_out": ((a, 2), {"rounding_mode": "floor", "out": Out()}),
        "aten.divide.Scalar_mode": ((a, 2), {"rounding_mode": "floor"}),
        "aten.divide_.Scalar_mode": ((a, 2), {"rounding_mode": "trunc"}),
        "aten.divide.out_mode": ((a, b), {"rounding_mode": "floor", "out": Out()}),
        # The pointwise backward kernels (autograd's formulas call them): output-like second
        # operands in (-1, 1) for tanh's, (0, 1) for sigmoid's; a threshold inside a's range.
        # meshgrid without indexing (upstream warns, then "ij"): 1-d inputs, as it requires.
        "aten.meshgrid.default": (([a[0], b[1, :3]],), {}),
        # Level 0 is the first dual level; outside one upstream refuses (wrapped.py opens it).
        "aten._make_dual.default": ((a, b, 0), {}),
        "aten.tanh_backward.default": ((a, b / 4 - 0.5), {}),
        "aten.tanh_backward.grad_input": ((a, b / 4 - 0.5), {"grad_input": Out()}),
        "aten.sigmoid_backward.default": ((a, b / 4), {}),
        "aten.sigmoid_backward.grad_input": ((a, b / 4), {"grad_input": Out()}),
        "aten.threshold_backward.default": ((a, b, 2.0), {}),
        "aten.threshold_backward.grad_input": ((a, b, 2.0), {"grad_input": Out()}),
        # The nll kernels (forward weighted by b's first row) and log_softmax's backward:
        # nll_loss_backward's mean over three rows of classes 0, 3,
        # 1 (a total weight of 3), log_softmax's on a real log_softmax result.
        "aten.nll_loss_forward.default": ((a, torch.tensor([0, 3, 1]), b[0], 1, -100), {}),
        "aten.nll_loss_backward.default": (
            (torch.tensor(0.5, dtype=dtype), a, torch.tensor([0, 3, 1]), None, 1, -100,
             torch.tensor(3.0, dtype=dtype)), {}),
        "aten._log_softmax_backward_data.default": (
            (a, torch.log_softmax(b.to(f), 1).to(dtype), 1, dtype), {}),
        # Convolution, pooling and batch norm (float32 whatever the draw's dtype: upstream's
        # kernels have no integer path): a 1x2x5x5 image, three 2x3x3 filters.
        "aten.convolution.default": (
            (_conv_x(gen), _conv_w(gen), _conv_b(gen), [1, 1], [1, 0], [1, 1], False, [0, 0], 1),
            {}),
        "aten._convolution.default": (
            (_conv_x(gen), _conv_w(gen), _conv_b(gen), [2, 1], [0, 1], [1, 1], False, [0, 0], 1,
             False, False, True, True), {}),
        "aten._convolution_mode.default": (
            (_conv_x(gen), _conv_w(gen), None, [1, 1], "same", [1, 1], 1), {}),
        "aten.convolution_backward.default": (
            (torch.randn(1, 3, 3, 3, generator=gen), _conv_x(gen), _conv_w(gen), [3], [1, 1],
             [0, 0], [1, 1], False, [0, 0], 1, [True, True, True]), {}),
        "aten.avg_pool2d_backward.default": (
            (torch.randn(1, 2, 2, 2, generator=gen), torch.randn(1, 2, 4, 4, generator=gen),
             [2, 2], [2, 2], [0, 0], False, True, None), {}),
        "aten.native_batch_norm_backward.default": (
            (torch.randn(2, 3, 4, generator=gen), torch.randn(2, 3, 4, generator=gen),
             torch.rand(3, generator=gen) + 0.5, torch.zeros(3), torch.ones(3),
             torch.randn(3, generator=gen), torch.rand(3, generator=gen) + 0.5, True, 1e-5,
             [True, True, True]), {}),
        "aten._batch_norm_impl_index.default": (
            (torch.randn(2, 3, 4, generator=gen), torch.rand(3, generator=gen) + 0.5,
             torch.randn(3, generator=gen), torch.zeros(3), torch.ones(3), True, 0.1, 1e-5,
             True), {}),
        # Grouped products (float32: upstream's only float types are 16/32-bit): six rows cut
        # into groups of 2, 0 and 4 against three 4x8 matrices; strides 16-byte multiples.
        "aten._grouped_mm.default": (
            (torch.randn(6, 4, generator=gen), torch.randn(3, 4, 8, generator=gen),
             torch.tensor([2, 2, 6], dtype=torch.int32)), {}),
        # Interpolation (float32; upstream's kernels refuse integers but uint8 nearest): a
        # 1x2x5 signal and a 1x2x4x5 image resized to 7 and to 6x7, and their backward kernels.
        "aten.upsample_nearest1d.default": ((torch.randn(1, 2, 5, generator=gen), [7]), {}),
        "aten.upsample_nearest1d_backward.default": (
            (torch.randn(1, 2, 7, generator=gen), [7], [1, 2, 5]), {}),
        "aten.upsample_nearest2d.default": ((torch.randn(1, 2, 4, 5, generator=gen), [6, 7]), {}),
        "aten.upsample_nearest2d.vec": (
            (torch.randn(1, 2, 4, 5, generator=gen), None, [1.5, 2.0]), {}),
        "aten.upsample_nearest2d_backward.default": (
            (torch.randn(1, 2, 6, 7, generator=gen), [6, 7], [1, 2, 4, 5]), {}),
        "aten.upsample_linear1d.default": (
            (torch.randn(1, 2, 5, generator=gen), [7], False), {}),
        "aten.upsample_linear1d_backward.default": (
            (torch.randn(1, 2, 7, generator=gen), [7], [1, 2, 5], True), {}),
        "aten.upsample_bilinear2d.default": (
            (torch.randn(1, 2, 4, 5, generator=gen), [6, 7], False), {}),
        "aten.upsample_bilinear2d_backward.default": (
            (torch.randn(1, 2, 6, 7, generator=gen), [6, 7], [1, 2, 4, 5], False), {}),
        "aten.upsample_bicubic2d.default": (
            (torch.randn(1, 2, 4, 5, generator=gen), [6, 7], True), {}),
        "aten.upsample_bicubic2d_backward.default": (
            (torch.randn(1, 2, 6, 7, generator=gen), [6, 7], [1, 2, 4, 5], True), {}),
        # Weight norm as nn.utils.weight_norm calls it: g shaped as v's norm over dim 0.
        "aten._weight_norm.default": (
            (torch.randn(3, 4, generator=gen), torch.rand(3, 1, generator=gen) + 0.5, 0), {}),
        # Their out= forms.
        "aten.upsample_nearest1d.out": ((torch.randn(1, 2, 5, generator=gen), [7]),
                                        {"out": Out()}),
        "aten.upsample_nearest1d_backward.grad_input": (
            (torch.randn(1, 2, 7, generator=gen), [7], [1, 2, 5]), {"grad_input": Out()}),
        "aten.upsample_nearest2d.out": ((torch.randn(1, 2, 4, 5, generator=gen), [6, 7]),
                                        {"out": Out()}),
        "aten.upsample_nearest2d_backward.grad_input": (
            (torch.randn(1, 2, 6, 7, generator=gen), [6, 7], [1, 2, 4, 5]),
            {"grad_input": Out()}),
        "aten.upsample_linear1d.out": ((torch.randn(1, 2, 5, generator=gen), [7], False),
                                       {"out": Out()}),
        "aten.upsample_linear1d_backward.grad_input": (
            (torch.randn(1, 2, 7, generator=gen), [7], [1, 2, 5], True), {"grad_input": Out()}),
        "aten.upsample_bilinear2d.out": (
            (torch.randn(1, 2, 4, 5, generator=gen), [6, 7], False), {"out": Out()}),
        "aten.upsample_bilinear2d_backward.grad_input": (
            (torch.randn(1, 2, 6, 7, generator=gen), [6, 7], [1, 2, 4, 5], False),
            {"grad_input": Out()}),
        "aten.upsample_bicubic2d.out": (
            (torch.randn(1, 2, 4, 5, generator=gen), [6, 7], True), {"out": Out()}),
        "aten.upsample_bicubic2d_backward.grad_input": (
            (torch.randn(1, 2, 6, 7, generator=gen), [6, 7], [1, 2, 4, 5], True),
            {"grad_input": Out()}),
        "aten.masked_scatter.out": (
            (torch.zeros(3, 4), torch.randn(3, 4, generator=gen) > 0,
             torch.randn(12, generator=gen)), {"out": Out()}),
        # The fft primitives' out= forms (the torch.fft functions reach only the functional
        # ones): a complex 3 x 4 transformed along dim 1, and a one-sided 3 x 3 half made real
        # of length 4, normalised by n.
        "aten._fft_c2c.out": (
            (torch.complex(torch.randn(3, 4, generator=gen), torch.randn(3, 4, generator=gen)),
             [1], 0, True), {"out": Out()}),
        "aten._fft_c2r.out": (
            (torch.complex(torch.randn(3, 3, generator=gen), torch.randn(3, 3, generator=gen)),
             [1], 2, 4), {"out": Out()}),
        # col2im of 2x2 blocks of two channels (8 rows) over a 4x5 output: 3 x 4 = 12 blocks.
        "aten.col2im.default": (
            (torch.randn(1, 8, 12, generator=gen), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1]), {}),
        # The gradient under a mask, padded with zeros to 12 elements.
        "aten.masked_scatter_backward.default": (
            (torch.randn(3, 4, generator=gen), torch.randn(3, 4, generator=gen) > 0, [12]), {}),
        "aten.where.Scalar": ((a > 2, 1.5, 0.5), {}),
        "aten.where.ScalarOther": ((a > 2, a, 0.5), {}),
        "aten.where.ScalarSelf": ((a > 2, 0.5, a), {}),
        "aten.where.self_out": ((a > 2, a, b), {"out": Out()}),
        "aten.clamp.default": ((a, 1, 3), {}),
        "aten.clamp.out": ((a, 1, 3), {"out": Out()}),
        "aten.clip.default": ((a, 1, 3), {}),
        "aten.clip_.default": ((a, 1, 3), {}),
        "aten.clip.out": ((a, 1, 3), {"out": Out()}),
        "aten.clip.Tensor_out": ((a, b - 1, b), {"out": Out()}),
        "aten.clamp_max.default": ((a, 2), {}),
        "aten.clamp_max_.default": ((a, 2), {}),
        "aten.clamp_max.out": ((a, 2), {"out": Out()}),
        "aten.clamp_min.out": ((a, 2), {"out": Out()}),
        "aten.all.dims": ((a > 1,), {"dim": [0, 1]}),
        "aten.any.dims": ((a > 3,), {"dim": [1]}),
        "aten.sum.IntList_out": ((a, [1]), {"out": Out()}),
        "aten.prod.int_out": ((a, 1), {"out": Out()}),
        "aten.split.sizes": ((a, [1, 3], 1), {}),
        "aten.movedim.int": ((a, 0, 1), {}),
        "aten.view.dtype": ((a, dtype), {}),
        "aten.to.other": ((a, torch.zeros(2, dtype=torch.float64)), {}),
        "aten.to.dtype_layout": ((a,), {"dtype": torch.float64, "layout": torch.strided}),
        "aten._to_copy.default": ((a,), {"dtype": torch.float64}),
        "aten._softmax.default": ((a.to(f), 1, False), {}),
        "aten._log_softmax.default": ((a.to(f), 1, False), {}),
        "aten._reshape_alias.default": ((a, [4, 3], [3, 1]), {}),
        "aten._unsafe_view.default": ((a, [12]), {}),
        "aten._index_put_impl_.default": ((a, [torch.tensor([0, 2])], b[0]), {}),
        "aten.native_dropout.default": ((a.to(f), 0.0, False), {}),
        "aten.is_same_size.default": ((a, b), {}),
        "aten.set_.source_Tensor": ((torch.zeros(1, dtype=dtype), a), {}),
        "aten.set_.source_Storage": ((torch.zeros(1, dtype=dtype), a.untyped_storage()), {}),
        "aten.set_.source_Storage_storage_offset": (
            (torch.zeros(1, dtype=dtype), a.untyped_storage(), 2, [2, 3], [4, 1]), {}),
        "aten.arange.default": ((5,), {}),
        "aten.arange.start": ((2, 7), {}),
        "aten.arange.out": ((5,), {"out": Out()}),
        "aten.rand.generator": (([3, 4],), {"generator": gen}),
        "aten.randn.generator": (([3, 4],), {"generator": gen}),
        "aten.randint.generator": ((9, [3, 4]), {"generator": gen}),
        "aten.randint.low_generator": ((2, 9, [3, 4]), {"generator": gen}),
        "aten.randperm.default": ((6,), {}),
        "aten.randperm.generator": ((6,), {"generator": gen}),
        "aten.rand_like.default": ((a.to(f),), {}),
        "aten.rand_like.generator": ((a.to(f),), {"generator": gen}),
        "aten.randn_like.generator": ((a.to(f),), {"generator": gen}),
        "aten.randint_like.generator": ((a, 9), {"generator": gen}),
        "aten.randint_like.low_generator_dtype": ((a, 2, 9), {"generator": gen}),
        "aten.random_.default": ((a,), {}),
        "aten.random_.from": ((a, 1, 5), {}),
        "aten.random_.to": ((a, 5), {}),
        "aten.bernoulli.p": ((a.to(f), 0.5), {}),
        "aten.bernoulli_.float": ((a.to(f), 0.5), {}),
        "aten.bernoulli_.Tensor": ((a.to(f), torch.full(SHAPE, 0.5)), {}),
        # The padding backward kernels (float32: upstream's have no integer path): a gradient
        # of the padded output's shape, the input, the pads.
        "aten.reflection_pad1d_backward.default": (
            (torch.randn(2, 3, 7, generator=gen), torch.randn(2, 3, 4, generator=gen),
             [2, 1]), {}),
        "aten.reflection_pad2d_backward.default": (
            (torch.randn(1, 2, 5, 6, generator=gen), torch.randn(1, 2, 3, 4, generator=gen),
             [1, 1, 2, 0]), {}),
        "aten.reflection_pad3d_backward.default": (
            (torch.randn(1, 1, 4, 4, 5, generator=gen), torch.randn(1, 1, 2, 3, 4, generator=gen),
             [1, 0, 0, 1, 1, 1]), {}),
        "aten.replication_pad1d_backward.default": (
            (torch.randn(2, 3, 8, generator=gen), torch.randn(2, 3, 4, generator=gen),
             [3, 1]), {}),
        "aten.replication_pad2d_backward.default": (
            (torch.randn(1, 2, 5, 7, generator=gen), torch.randn(1, 2, 3, 4, generator=gen),
             [2, 1, 2, 0]), {}),
        "aten.replication_pad3d_backward.default": (
            (torch.randn(1, 1, 4, 4, 6, generator=gen), torch.randn(1, 1, 2, 3, 4, generator=gen),
             [1, 1, 0, 1, 1, 1]), {}),
        # scatter's deprecated Scalar-with-reduce spellings (no OpInfo sample reaches them).
        "aten.scatter.value_reduce": ((a, 1, torch.tensor([[0], [3], [1]]), 2.0),
                                      {"reduce": "multiply"}),
        "aten.scatter_.value_reduce": ((a, 1, torch.tensor([[0], [3], [1]]), 2.0),
                                       {"reduce": "add"}),
        # Group norm's backward kernel (autograd's formula calls it): 2 samples, 4 channels in 2
        # groups of a 3x3 image, mean/rstd from a real forward.
        "aten.native_group_norm_backward.default": (
            (torch.randn(2, 4, 3, 3, generator=gn_gen), gn_x,
             *torch.ops.aten.native_group_norm(gn_x, None, None, 2, 4, 9, 2, 1e-5)[1:],
             torch.rand(4, generator=gn_gen) + 0.5, 2, 4, 9, 2, [True, True, True]), {}),
        # The loss backward kernels and the spatial nll (float32 whatever the draw's dtype), on
        # arguments of matching shapes a schema-drawn case would not give.
        "aten.huber_loss_backward.default": (
            (torch.tensor(0.5), gn_a, gn_b, 1, 0.7), {}),
        "aten.smooth_l1_loss_backward.default": (
            (torch.tensor(0.5), gn_a, gn_b, 2, 0.7), {}),
        "aten.soft_margin_loss_backward.default": (
            (torch.tensor(0.5), gn_a, torch.where(gn_b > 0, 1.0, -1.0), 1), {}),
        "aten.nll_loss2d.default": ((gn_x[:, :3], gn_t, None, 1, -100), {}),
        "aten.nll_loss2d_forward.default": ((gn_x[:, :3], gn_t, gn_b[0, :3].abs(), 2, 1), {}),
        "aten.nll_loss2d_backward.default": (
            (torch.tensor(0.5), gn_x[:, :3], gn_t, None, 1, -100, torch.tensor(8.0)), {}),
        # Overloads upstream differentiates whose schema-drawn case upstream refuses, so no
        # backward case reached them (float32, on their own generator).
        **backward_written(),
        # Layer norm's backward kernel (autograd's formula calls it): 3 rows of 5, mean/rstd
        # from a real forward, in the draw's dtype where floating (float32 otherwise).
        **_layer_norm_backward_case(dtype),
        **rnn_written(),
        **linalg_written(dtype),
        **pool_written(),
        **upsample_aa_written(),
        **ctc_written(),
        **embedding_bag_written(),
        **misc_written(),
        **special_a_written(dtype),
        **special_b_written(dtype),
        **scans_written(dtype),
        **nn_misc_written(),
        **linalg_more_written(),
        **nn_more_written(),
        **distance_written(),
        # out= spellings whose functional form has another name, or a tensor end the drawn
        # cases put first only.
        "aten.ger.out": ((torch.arange(3.).to(dtype), torch.arange(2.).to(dtype)),
                         {"out": Out()}),
        "aten.linspace.Scalar_Tensor_out": ((0.5, torch.tensor(3.0), 5),
                                            {"out": torch.zeros(5)}),
        "aten.logspace.Scalar_Tensor_out": ((0.5, torch.tensor(2.0), 5, 2.0),
                                            {"out": torch.zeros(5)}),
        # upstream's at::norm with a dim (pairwise_distance's): torch.norm goes to
        # linalg.vector_norm instead.
        "aten.norm.ScalarOpt_dim": ((torch.arange(12.).reshape(3, 4).to(dtype), 3, [1]),
                                    {"keepdim": True}),
        "aten.searchsorted.Scalar_out": ((torch.tensor([1.0, 2.5, 4.0]).to(dtype), 3),
                                         {"right": True, "out": torch.zeros(0, dtype=torch.long)}),
    }}


def pool_written():
    """The pools' out= spellings (the functional forms' OpInfo samples never pass out=),
    avg_pool3d's backward kernel, glu_backward's out= and the 3-d / nearest-exact
    interpolations' spellings, in float32 on their own generator."""
    g = torch.Generator().manual_seed(11)
    img, vol = torch.randn(1, 2, 5, 5, generator=g), torch.randn(1, 2, 3, 4, 5, generator=g)
    two = {"out": Out(), "indices": Out()}
    return {
        "aten.adaptive_avg_pool2d.out": ((img, [1, 1]), {"out": Out()}),
        "aten.adaptive_avg_pool3d.out": ((vol, [2, 1, 3]), {"out": Out()}),
        "aten.adaptive_max_pool2d.out": ((img, [2, 3]), two),
        "aten.adaptive_max_pool3d.out": ((vol, [1, 2, 3]), two),
        "aten.max_pool2d_with_indices.out": ((img, [2]), two),
        "aten.max_pool3d_with_indices.out": ((vol, [2], [1, 2, 1]), two),
        # The 3-d and nearest-exact interpolations' out=, .vec and backward out= spellings.
        "aten.upsample_nearest3d.out": ((vol, [4, 2, 6]), {"out": Out()}),
        "aten.upsample_nearest3d.vec": ((vol, None, [1.5, 2.0, 0.5]), {}),
        "aten.upsample_nearest3d_backward.grad_input": (
            (torch.randn(1, 2, 4, 2, 6, generator=g), [4, 2, 6], [1, 2, 3, 4, 5]),
            {"grad_input": Out()}),
        "aten.upsample_trilinear3d.out": ((vol, [4, 2, 6], False), {"out": Out()}),
        "aten.upsample_trilinear3d_backward.grad_input": (
            (torch.randn(1, 2, 4, 2, 6, generator=g), [4, 2, 6], [1, 2, 3, 4, 5], True),
            {"grad_input": Out()}),
        "aten._upsample_nearest_exact1d.out": ((img[0], [7]), {"out": Out()}),
        "aten._upsample_nearest_exact1d_backward.grad_input": (
            (torch.randn(1, 2, 7, generator=g), [7], [1, 2, 5]), {"grad_input": Out()}),
        "aten._upsample_nearest_exact2d.out": ((img, [6, 7]), {"out": Out()}),
        "aten._upsample_nearest_exact2d.vec": ((img, None, [1.5, 0.6]), {}),
        "aten._upsample_nearest_exact2d_backward.grad_input": (
            (torch.randn(1, 2, 6, 7, generator=g), [6, 7], [1, 2, 5, 5]), {"grad_input": Out()}),
        "aten._upsample_nearest_exact3d.out": ((vol, [4, 2, 6]), {"out": Out()}),
        "aten._upsample_nearest_exact3d.vec": ((vol, None, [1.5, 2.0, 0.5]), {}),
        "aten._upsample_nearest_exact3d_backward.grad_input": (
            (torch.randn(1, 2, 4, 2, 6, generator=g), [4, 2, 6], [1, 2, 3, 4, 5]),
            {"grad_input": Out()}),
        "aten.glu_backward.grad_input": (
            (torch.randn(1, 2, 2, 5, generator=g), img[:, :, :4], 2), {"grad_input": Out()}),
        "aten.avg_pool3d_backward.default": (
            (torch.randn(1, 2, 2, 2, 3, generator=g), vol, [2], [1, 2, 2], [0, 1, 1], True,
             False, None), {}),
    }


def upsample_aa_written():
    """The antialiased interpolations no OpInfo sample reaches (bicubic, the backward kernels
    and the out= spellings): a 1x2x9x11 image shrunk to 4x5 (the support widens) and grown to
    12x13, in float32 on their own generator."""
    g = torch.Generator().manual_seed(12)
    img = torch.randn(1, 2, 9, 11, generator=g)
    small, big = torch.randn(1, 2, 4, 5, generator=g), torch.randn(1, 2, 12, 13, generator=g)
    return {
        "aten._upsample_bicubic2d_aa.default": ((img, [4, 5], False), {}),
        "aten._upsample_bicubic2d_aa.vec": ((img, None, True, [1.4, 0.6]), {}),
        "aten._upsample_bicubic2d_aa_backward.default": (
            (big, [12, 13], [1, 2, 9, 11], True, None, None), {}),
        "aten._upsample_bilinear2d_aa_backward.default": (
            (small, [4, 5], [1, 2, 9, 11], False, 0.5, None), {}),
        "aten._upsample_bilinear2d_aa.out": ((img, [4, 5], False), {"out": Out()}),
        "aten._upsample_bicubic2d_aa.out": ((img, [12, 13], True), {"out": Out()}),
        "aten._upsample_bilinear2d_aa_backward.grad_input": (
            (small, [4, 5], [1, 2, 9, 11], False), {"grad_input": Out()}),
        "aten._upsample_bicubic2d_aa_backward.grad_input": (
            (small, [4, 5], [1, 2, 9, 11], True, 0.4, 0.45), {"grad_input": Out()}),
    }


def ctc_written():
    """CTC loss's overloads: OpInfo's samples (50 x 16 x 20 log-probabilities) are past the
    draw's size limit. float32, on their own generator; _ctc_loss's cases give every item the
    full input and target length, so log_alpha has no cell upstream leaves uninitialised."""
    g = torch.Generator().manual_seed(12)
    lp = torch.randn(8, 3, 5, generator=g).log_softmax(2)
    tg = torch.randint(1, 5, (3, 4), generator=g)
    il, tl = [8, 6, 3], [4, 2, 0]
    cat = torch.cat([tg[0, :3], tg[1, :3], tg[2, :3]])
    nll, la = torch.ops.aten._ctc_loss(lp, tg, il, tl, 0, True)
    grad = torch.randn(3, generator=g)
    bwd = (grad, lp, tg, il, tl, nll, la, 0, True)
    return {
        "aten.ctc_loss.IntList": ((lp, tg, il, tl, 0, 2, False), {}),
        "aten.ctc_loss.Tensor": ((lp, tg.int(), torch.tensor(il), torch.tensor(tl), 0, 1, True),
                                 {}),
        "aten._ctc_loss.default": ((lp, cat, [8, 8, 8], [3, 3, 3], 0, False), {}),
        "aten._ctc_loss.Tensor": ((lp, tg, torch.tensor([8] * 3), torch.tensor([4] * 3), 2),
                                  {}),
        "aten._ctc_loss.out": ((lp, tg.int(), [8, 8, 8], [4, 4, 4]),
                               {"out0": Out(), "out1": Out()}),
        "aten._ctc_loss.Tensor_out": ((lp, cat, torch.tensor([8] * 3), torch.tensor([3] * 3)),
                                      {"out0": Out(), "out1": Out()}),
        "aten._ctc_loss_backward.default": (bwd, {}),
        "aten._ctc_loss_backward.Tensor": (
            (grad, lp, tg, torch.tensor(il), torch.tensor(tl), nll, la, 0, False), {}),
        "aten._ctc_loss_backward.out": (bwd, {"out": Out()}),
    }


def embedding_bag_written():
    """embedding_bag's kernels' out= spellings and its backward kernels called directly (the
    functional form reaches embedding_bag.padding_idx only), float32 on their own generator:
    bags [1, 5], [], [2, 2, 0], [3, 5] of a 6 x 4 table."""
    g = torch.Generator().manual_seed(12)
    w, grad = torch.randn(6, 4, generator=g), torch.randn(4, 4, generator=g)
    idx, off = torch.tensor([1, 5, 2, 2, 0, 3, 5]), torch.tensor([0, 2, 2, 5])
    o2b, bag_size = torch.tensor([0, 0, 2, 2, 2, 3, 3]), torch.tensor([2, 0, 3, 2])
    max_idx = torch.tensor([[5, 1, 1, 5], [0, 0, 0, 0], [2, 0, 2, 0], [3, 5, 5, 3]])
    four = {f"out{i}": Out() for i in range(4)}
    dense = (grad, idx, o2b, bag_size, max_idx, 6, True, 0, None)
    return {
        "aten._embedding_bag.out": ((w, idx, off, False, 1), four),
        "aten._embedding_bag_forward_only.out": ((w, idx, off, False, 2), four),
        "aten._embedding_bag_backward.default": (
            (grad, idx, off, torch.zeros(0, dtype=torch.long), bag_size, bag_size, 6, False, 1,
             False, None), {}),
        "aten._embedding_bag_dense_backward.default": (dense, {}),
        "aten._embedding_bag_dense_backward.out": (
            (grad, idx, o2b, bag_size, max_idx, 6, False, 2, None), {"out": Out()}),
        "aten._embedding_bag_per_sample_weights_backward.out": (
            (grad, w, idx, off, o2b, 0), {"out": Out()}),
    }


def nn_misc_written():
    """prelu's kernels called directly, the out= forms of native_dropout_backward and
    nonzero_static, the batch-norm spellings and gradient overloads OpInfo's samples do not
    reach (float32, on their own generator): a 2x3x4 input, 3 channels."""
    g = torch.Generator().manual_seed(13)
    x, go = torch.randn(2, 3, 4, generator=g), torch.randn(2, 3, 4, generator=g)
    w = torch.randn(1, 3, 1, generator=g)
    x[0, 0, :2] = 0.0
    wt, bs = torch.rand(3, generator=g) + 0.5, torch.randn(3, generator=g)
    stats = (torch.zeros(3), torch.ones(3))
    three = {"out": Out(), "save_mean": Out(), "save_invstd": Out()}
    mean, invstd = x.mean((0, 2)), x.var((0, 2), unbiased=False).add(1e-5).rsqrt()
    return {
        "aten._prelu_kernel.default": ((x, w), {}),
        "aten._prelu_kernel_backward.default": ((go, x, w), {}),
        "aten.native_dropout_backward.out": ((go, x > 0, 1.25), {"out": Out()}),
        "aten.nonzero_static.out": ((x,), {"size": 30, "fill_value": -2, "out": Out()}),
        "aten._native_batch_norm_legit.no_stats": ((x, wt, bs, True, 0.1, 1e-5), {}),
        "aten._native_batch_norm_legit.no_stats_out": ((x, wt, None, True, 0.1, 1e-5), three),
        "aten._native_batch_norm_legit_no_training.default": ((x, wt, bs, *stats, 0.1, 1e-5),
                                                              {}),
        "aten._batch_norm_with_update.out": (
            (x, wt, bs, *stats, 0.1, 1e-5), {**three, "reserve": Out()}),
        # histogramdd's pieces (the samples reach histogramdd's composite spellings): 12 points
        # in 2-d
        "aten.histogramdd.int_bins": ((x.reshape(12, 2), 3), {}),
        "aten._histogramdd_bin_edges.default": ((x.reshape(12, 2), [2, 3]), {}),
        "aten._histogramdd_from_bin_cts.default": (
            (x.reshape(12, 2), [2, 3]), {"weight": go.reshape(12, 2)[:, 0].abs(),
                                         "density": True}),
        "aten._histogramdd_from_bin_tensors.default": (
            (x.reshape(12, 2), [torch.tensor([-1.0, 0.0, 2.0]), torch.tensor([-2.0, 0.5, 3.0])]),
            {}),
        # gradient's overloads torch.gradient's samples do not spell
        "aten.gradient.array": ((x,), {"dim": [1, 2], "edge_order": 2}),
        "aten.gradient.tensorarrayint": (
            (x,), {"spacing": [torch.tensor([0.0, 0.5, 1.7])], "dim": 1}),
        "aten.batch_norm_backward.default": (
            (go, x, wt, *stats, mean, invstd, True, 1e-5, [True, True, True],
             torch.zeros(0, dtype=torch.uint8)), {}),
    }


def linalg_more_written():
    """linalg.matmul's out= spelling (OpInfo's matmul entry calls only the functional alias)."""
    g = torch.Generator().manual_seed(17)
    return {
        "aten.linalg_matmul.out": ((torch.randn(2, 3, 4, generator=g),
                                    torch.randn(4, 5, generator=g)), {"out": Out()}),
    }


def misc_written():
    """repeat_interleave's index-list overload (the OpInfo samples reach it only inside
    self_Tensor, where the harness grades the outer call) and its out= spelling; special_i0.out;
    the in-place dropout variants, max_unpool's and median's outs, which the OpInfo samples never
    call."""
    reps = torch.tensor([2, 0, 3, 1])
    g = torch.Generator().manual_seed(13)
    y2, i2 = torch.nn.functional.max_pool2d(torch.randn(1, 2, 4, 4, generator=g), 2,
                                            return_indices=True)
    y3, i3 = torch.nn.functional.max_pool3d(torch.randn(1, 2, 4, 4, 4, generator=g), 2,
                                            return_indices=True)
    return {
        "aten.repeat_interleave.Tensor": ((reps,), {}),
        "aten.repeat_interleave.Tensor_out": ((reps.int(),), {"output_size": 6, "out": Out()}),
        # special_i0's out= spelling (an alias of i0.out; OpInfo calls only the functional one)
        "aten.special_i0.out": ((torch.linspace(-12, 12, 25),), {"out": Out()}),
        # the dropout variants' in-place forms (F.dropout2d(..., inplace=True) and the like)
        "aten.feature_dropout_.default": ((torch.randn(3, 4, 5), 0.4, True), {}),
        "aten.alpha_dropout_.default": ((torch.randn(3, 4, 5), 0.3, True), {}),
        "aten.feature_alpha_dropout_.default": ((torch.randn(3, 4, 2, 2), 0.6, True), {}),
        # max_unpool's out= spellings (F.max_unpool* call the functional ones)
        "aten.max_unpool2d.out": ((y2, i2, [4, 4]), {"out": Out()}),
        "aten.max_unpool3d.out": ((y3, i3, [4, 4, 4], [2, 2, 2], [0, 0, 0]), {"out": Out()}),
        # median's and nanmedian's out= spellings along a dim (ties and a NaN in the rows)
        # (outs written out: no functional overload is named after dim_values)
        "aten.median.dim_values": ((torch.tensor([[1.0, 2, 2, 0], [3, 1, 1, 3]]), 1),
                                   {"values": torch.zeros(2),
                                    "indices": torch.zeros(2, dtype=torch.long)}),
        "aten.nanmedian.dim_values": ((torch.tensor([[1.0, float("nan"), 2, 2], [3, 1, 1, 3]]),
                                       1, True), {"values": torch.zeros(2, 1),
                                                  "indices": torch.zeros(2, 1, dtype=torch.long)}),
    }


def nn_more_written():
    """_trilinear's out= spelling (bilinear calls the functional one) and grid_sampler_2d's
    backward op called directly (autograd reaches it only inside GridSampler2DBackward0)."""
    g = torch.Generator().manual_seed(17)
    x1, x2 = torch.randn(4, 3, generator=g), torch.randn(4, 2, generator=g)
    w = torch.randn(5, 3, 2, generator=g)
    img, grid = torch.randn(2, 3, 4, 5, generator=g), torch.rand(2, 3, 6, 2, generator=g) * 2 - 1
    go = torch.randn(2, 3, 3, 6, generator=g)
    return {"aten._trilinear.out": ((x1, w, x2, [1, 3], [0], [1, 2], [2, 3], 1),
                                    {"out": Out()}),
            "aten.grid_sampler_2d_backward.default": ((go, img, grid, 0, 2, False,
                                                       [True, True]), {})}


def special_a_written(dtype):
    """special_xlog1py's Scalar spellings and their outs, special_erfinv.out and
    special_multigammaln.out: the OpInfo samples call only the tensor-tensor xlog1py and the
    functional aliases."""
    fdt = dtype if dtype.is_floating_point else torch.float32
    y = torch.tensor([-1.5, -1.0, -0.5, 0.0, 0.7, 3.0, float("nan")]).to(fdt)
    x = torch.tensor([0.0, 2.0, -1.5, 0.0, 1.0, -3.0, 0.5]).to(fdt)
    return {
        "aten.special_xlog1py.self_scalar": ((2.5, y), {}),
        "aten.special_xlog1py.other_scalar": ((x, 0.75), {}),
        "aten.special_xlog1py.self_scalar_out": ((0.0, y), {"out": Out()}),
        "aten.special_xlog1py.other_scalar_out": ((x, -2.0), {"out": Out()}),
        "aten.special_erfinv.out": ((torch.linspace(-1, 1, 9).to(fdt),), {"out": Out()}),
        # mvlgamma's alias's out= (OpInfo calls the functional spellings only)
        "aten.special_multigammaln.out": ((torch.linspace(2, 9, 8).to(fdt), 2), {"out": Out()}),
    }


def special_b_written(dtype):
    """logit's backward kernel (.default and .grad_input: autograd calls it, OpInfo does not)
    and special_logit.out, on values in and outside [0, 1] with and without eps."""
    fdt = dtype if dtype.is_floating_point else torch.float32
    x = torch.tensor([-0.5, 0.0, 1e-4, 0.3, 0.5, 0.9, 1.0, 1.5, float("nan")]).to(fdt)
    dy = torch.linspace(-2, 2, 9).to(fdt)
    return {
        "aten.logit_backward.default": ((dy, x), {}),
        "aten.logit_backward.grad_input": ((dy, x, 0.01), {"grad_input": Out()}),
        "aten.special_logit.out": ((x, 1e-3), {"out": Out()}),
    }


def scans_written(dtype):
    """quantile's and nanquantile's tensor-q overloads and their outs (the OpInfo samples pass
    q as a float), in the draw's dtype (int64 is refused by both), NaN in one row."""
    x = torch.randn(3, 5, generator=torch.Generator().manual_seed(21)).to(dtype)
    if dtype.is_floating_point:
        x[1, 2] = float("nan")
    q = torch.tensor([0.1, 0.5, 0.9], dtype=x.dtype)
    return {
        "aten.quantile.default": ((x, q, 1), {"interpolation": "midpoint"}),
        "aten.quantile.out": ((x, q, None, True), {"out": torch.zeros(0, dtype=x.dtype)}),
        "aten.nanquantile.default": ((x, q, -1, True), {"interpolation": "nearest"}),
        "aten.nanquantile.out": ((x, q, 0), {"out": torch.zeros(0, dtype=x.dtype)}),
    }


def linalg_written(dtype):
    """The linear algebra overloads whose schema-drawn 3x4 case never reaches them (square
    matrices, a string argument, an out= spelling of a composite): a well-conditioned 3x3."""
    gen = torch.Generator().manual_seed(9)
    m = (torch.randn(3, 3, generator=gen) + 3 * torch.eye(3)).to(dtype)
    b = torch.randn(3, 2, generator=gen).to(dtype)
    tall = torch.randn(4, 3, generator=gen).to(dtype)
    info = torch.zeros(2, dtype=torch.int32)
    return {
        "aten._linalg_check_errors.default": ((info, "linalg.inv_ex"), {"is_matrix": False}),
        # (out= tensors written out where the functional form's name is not the out form's)
        "aten._linalg_solve_ex.result": ((m, b), {
            "result": torch.zeros(3, 2, dtype=dtype), "LU": torch.zeros(3, 3, dtype=dtype),
            "pivots": torch.zeros(3, dtype=torch.int32),
            "info": torch.zeros((), dtype=torch.int32)}),
        "aten.inverse.out": ((m,), {"out": Out()}),
        "aten.linalg_cond.p_str": ((m, "fro"), {}),
        "aten.linalg_cond.p_str_out": ((m, "nuc"), {"out": Out()}),
        "aten.slogdet.out": ((m,), {"sign": Out(), "logabsdet": Out()}),
        "aten.linalg_matrix_norm.out": ((m, 2), {"out": Out()}),
        "aten.linalg_matrix_rank.out_tol_tensor": ((m, torch.tensor(0.5)),
                                                   {"out": torch.zeros((), dtype=torch.int64)}),
        "aten.linalg_norm.ord_str": ((m, "fro"), {}),
        "aten.linalg_norm.ord_str_out": ((m, "nuc"), {"out": Out()}),
        "aten.linalg_pinv.out_rcond_tensor": ((tall, torch.tensor(0.1)),
                                              {"out": torch.zeros(3, 4, dtype=dtype)}),
        "aten.orgqr.out": ((tall, torch.tensor([1.5, 1.25, 0.5]).to(dtype)), {"out": Out()}),
    }


def backward_written():
    """Valid arguments for differentiable overloads the schema's rules give invalid ones (a
    3x4 where an image or a batch of sequences is needed, a float index): adaptive pooling, the
    padding ops, padded convolutions, nll_loss, scatter's Scalar value, embedding's backward
    kernel, the foreach matrix product and CPU flash attention."""
    g = torch.Generator().manual_seed(10)

    def r(*shape):
        return torch.randn(*shape, generator=g)

    img, seq, vol = r(1, 2, 5, 5), r(2, 3, 4), r(1, 1, 2, 3, 4)
    small, q = r(1, 2, 3, 4), r(1, 2, 3, 4)
    index = torch.tensor([[0], [3], [1]])
    return {
        "aten._adaptive_avg_pool2d.default": ((img, [3, 2]), {}),
        "aten._adaptive_avg_pool2d_backward.default": ((r(1, 2, 3, 2), img), {}),
        "aten.embedding_dense_backward.default": (
            (r(3, 4), torch.tensor([0, 2, 4]), 6, -1, False), {}),
        "aten.nll_loss.default": (
            (torch.log_softmax(r(3, 4), 1), torch.tensor([0, 3, 1]), None, 1, -100), {}),
        "aten.scatter.value": ((r(3, 4), 1, index, 2.0), {}),
        "aten.scatter_.value": ((r(3, 4), 1, index, 2.0), {}),
        "aten.reflection_pad1d.default": ((seq, [2, 1]), {}),
        "aten.reflection_pad2d.default": ((small, [1, 1, 2, 0]), {}),
        "aten.reflection_pad3d.default": ((vol, [1, 0, 0, 1, 1, 1]), {}),
        "aten.replication_pad1d.default": ((seq, [3, 1]), {}),
        "aten.replication_pad2d.default": ((small, [2, 1, 2, 0]), {}),
        "aten.replication_pad3d.default": ((vol, [1, 1, 0, 1, 1, 1]), {}),
        "aten._pad_enum.default": ((small, [1, 2, 1, 0], 0), {}),  # mode 0: reflect
        "aten.conv1d.padding": ((r(1, 2, 7), r(3, 2, 3), r(3), [1], "same", [1], 1), {}),
        "aten.conv2d.padding": ((img, r(3, 2, 3, 3), r(3), [1, 1], "valid", [1, 1], 1), {}),
        "aten._foreach_mm.default": (([r(3, 4), r(2, 3)], [r(4, 2), r(3, 5)]), {}),
        "aten._scaled_dot_product_flash_attention_for_cpu.default": ((q, r(1, 2, 3, 4),
                                                                      r(1, 2, 3, 4)), {}),
    }


def distance_written():
    """cdist's and pdist's pieces, which OpInfo reaches only inside cdist / pdist: the forward
    kernels (and _cdist_forward's out=), their backward kernels on real forward results, and
    _euclidean_dist (cdist's p = 2 matrix-product path); segment_reduce's out= and backward."""
    g = torch.Generator().manual_seed(23)
    a, b, x = torch.randn(2, 4, 5, generator=g), torch.randn(3, 5, generator=g), \
        torch.randn(5, 3, generator=g)
    d = torch.cdist(a, b, p=1.5)
    pd = torch.pdist(x, p=3.0)
    sr_x, sr_len = torch.randn(5, 2, generator=g), torch.tensor([2, 0, 3])
    sr_x[3, 1] = 0.0
    sr_y = torch.segment_reduce(sr_x, "prod", offsets=torch.tensor([0, 2, 2, 5]), initial=2.0)
    return {
        "aten._cdist_forward.default": ((a, b, 0.5, None), {}),
        "aten._cdist_forward.out": ((a, b, 2.0, 2), {"out": Out()}),
        "aten._cdist_backward.default": ((torch.randn(2, 4, 3, generator=g), a,
                                          b.expand(2, 3, 5).contiguous(), 1.5, d), {}),
        "aten._euclidean_dist.default": ((a, b), {}),
        "aten._pdist_forward.default": ((x, 1.0), {}),
        "aten._pdist_backward.default": ((torch.randn(10, generator=g), x, 3.0, pd), {}),
        # segment_reduce's out= spelling and its backward kernel on a real forward result
        "aten.segment_reduce.out": ((sr_x, "max"), {"lengths": sr_len, "out": Out()}),
        "aten._segment_reduce_backward.default": (
            (torch.randn(3, 2, generator=g), sr_y, sr_x, "prod"),
            {"offsets": torch.tensor([0, 2, 2, 5]), "initial": 2.0}),
    }


def _layer_norm_backward_case(dtype):
    ln_gen = torch.Generator().manual_seed(9)  # its own stream
    dt = dtype if dtype.is_floating_point and dtype in (torch.float32, torch.float64) \
        else torch.float32
    x = torch.randn(3, 5, generator=ln_gen, dtype=dt)
    w = torch.randn(5, generator=ln_gen, dtype=dt)
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, [5], w, None, 1e-5)
    dy = torch.randn(3, 5, generator=ln_gen, dtype=dt)
    b = torch.randn(5, generator=ln_gen, dtype=dt)
    # Every gradient, so both parameters are given (asked for a parameter's gradient without
    # the parameter, upstream raises: tests/autograd/test_norms.py).
    return {"aten.native_layer_norm_backward.default": (
        (dy, x, [5], mean, rstd, w, b, [True, True, True]), {})}


def rnn_written():
    """The recurrent ops and the packing helpers (float32 whatever the draw's dtype), on their
    own generator: 3 input features, hidden size 4, a batch of 2 (padded: 5 steps; packed:
    lengths 3 and 2, so batch sizes [2, 2, 1]), weights shaped as upstream's per gate count."""
    g = torch.Generator().manual_seed(9)

    def r(*shape):
        return torch.randn(*shape, generator=g) * 0.5

    def params(gates, layers=1, dirs=1, bias=True):
        ps = []
        for layer in range(layers):
            for _ in range(dirs):
                ps += [r(gates * 4, 3 if layer == 0 else 4 * dirs), r(gates * 4, 4)]
                ps += [r(gates * 4), r(gates * 4)] if bias else []
        return ps

    x, xb, data = r(5, 2, 3), r(2, 5, 3), r(5, 3)
    h1, h2, c1 = r(1, 2, 4), r(2, 2, 4), r(1, 2, 4)
    sizes = torch.tensor([2, 2, 1])
    cx, ch, cc = r(2, 3), r(2, 4), r(2, 4)
    return {
        "aten.lstm.input": ((x, [h1, c1], params(4), True, 1, 0.0, False, False, False), {}),
        "aten.lstm.data": ((data, sizes, [h2, r(2, 2, 4)], params(4, dirs=2), True, 1, 0.0,
                            False, True), {}),
        "aten.gru.input": ((xb, h2, params(3, layers=2), True, 2, 0.0, False, False, True),
                           {}),
        "aten.gru.data": ((data, sizes, h1, params(3, bias=False), False, 1, 0.0, False, False),
                          {}),
        "aten.rnn_tanh.input": ((x, h2, params(1, dirs=2), True, 1, 0.0, False, True, False),
                                {}),
        "aten.rnn_tanh.data": ((data, sizes, h1, params(1), True, 1, 0.0, False, False), {}),
        "aten.rnn_relu.input": ((xb, h1, params(1, bias=False), False, 1, 0.0, False, False,
                                 True), {}),
        "aten.rnn_relu.data": ((data, sizes, h2, params(1, layers=2), True, 2, 0.0, False,
                                False), {}),
        "aten.lstm_cell.default": ((cx, [ch, cc], *params(4)), {}),
        "aten.gru_cell.default": ((cx, ch, *params(3)), {}),
        "aten.rnn_tanh_cell.default": ((cx, ch, *params(1)), {}),
        "aten.rnn_relu_cell.default": ((cx, ch, *params(1, bias=False)), {}),
        "aten.unsafe_split_with_sizes.default": ((r(3, 4), [1, 3], 1), {}),
        "aten._pack_padded_sequence.default": ((r(4, 3, 2), torch.tensor([4, 2, 1]), False),
                                               {}),
        "aten._pack_padded_sequence_backward.default": (
            (r(7, 2), [3, 4, 2], torch.tensor([3, 2, 1, 1]), True), {}),
        "aten._pad_packed_sequence.default": (
            (r(7, 2), torch.tensor([3, 2, 1, 1]), True, 0.5, 5), {}),
    }


def synthesize(overload: str, dtype):
    """(args, kwargs) for an overload from its schema alone, or None when a type has no rule."""
    schema = getattr(torch.ops.aten, overload.split(".")[1]).__getattr__(
        overload.split(".")[2])._schema
    pool = iter(tensors(dtype, 16))  # the foreach ops take up to six lists of two
    scalar = 2.5 if dtype.is_floating_point else 2
    args, kwargs = [], {}
    for arg in schema.arguments:
        t = str(arg.type)
        if arg.name == "out" or (arg.alias_info is not None and arg.alias_info.is_write
                                 and arg.kwarg_only):
            value = Out()
        elif arg.has_default_value():
            continue
        elif t == "Tensor":
            value = next(pool)
        elif t in ("Scalar", "number"):
            value = scalar
        elif t == "int":
            value = 1
        elif t in ("int[]", "SymInt[]", "int[1]", "List[int]"):
            value = [1]
        elif t == "bool":
            value = False
        elif t == "float":
            value = 0.5
        elif t in ("Tensor[]", "List[Tensor]"):
            value = [next(pool), next(pool)]  # the foreach ops' lists
        elif t in ("Scalar[]", "List[number]"):
            value = [scalar, scalar + 1]
        else:
            return None
        (kwargs.__setitem__(arg.name, value) if arg.kwarg_only else args.append(value))
    return tuple(args), kwargs


def functional_of(overload: str) -> list[str]:
    """Candidate functional overloads of an out= overload ("aten.add.Scalar_out" -> Scalar)."""
    _, name, ov = overload.split(".")
    if ov == "out":
        names = ["default", "Tensor", "dim_IntList"]
    elif ov == "out_mode":
        names = ["Tensor_mode"]
    elif ov == "grad_input":  # the backward kernels' out= spelling
        names = ["default"]
    else:
        names = [ov.removesuffix("_out"), ov.removesuffix("_out") + "_int",
                 "dim_" + ov.removesuffix("_out")]
    return [f"aten.{name}.{n}" for n in names]


def zeros_like(r):
    """Zeros shaped like a result; a Tensor[] result (the foreach ops') gets a list of them."""
    if isinstance(r, (list, tuple)):
        return [torch.zeros(x.shape, dtype=x.dtype) for x in r]
    return torch.zeros(r.shape, dtype=r.dtype)


def fill_outs(overload: str, args, kwargs):
    """Replaces Out() placeholders by zeros shaped like the functional form's result."""
    if not any(isinstance(v, Out) for v in kwargs.values()):
        return kwargs
    rest = {k: v for k, v in kwargs.items() if not isinstance(v, Out)}
    for candidate in functional_of(overload):
        _, name, ov = candidate.split(".")
        packet = getattr(torch.ops.aten, name)
        if ov not in packet.overloads():
            continue
        try:
            result = getattr(packet, ov)(*args, **rest)
        except Exception:  # noqa: BLE001 - try the next candidate
            continue
        results = result if isinstance(result, tuple) else (result,)
        outs = [k for k, v in kwargs.items() if isinstance(v, Out)]
        if len(outs) != len(results):
            continue
        return {**rest, **{k: zeros_like(r) for k, r in zip(outs, results)}}
    raise codec.Unencodable(f"no functional form of {overload} gives its out= shape")


DTYPES = ("float32", "int64")


def draw_overload(overload: str, max_samples: int) -> dict:
    key = f"extra:{overload}"
    record = {"key": key, "name": key, "variant": "", "aten_name": overload,
              "spellings": [("aten", "torch.ops." + overload)], "full": True, "cases": [],
              "refs": {}, "reached": {}, "skipped": [], "version": DRAW_VERSION}
    for dtype in DTYPES:
        torch.manual_seed(seed_of(f"{key}|{dtype}"))
        tdtype = getattr(torch, dtype)
        spec = written(tdtype).get(overload) or synthesize(overload, tdtype)
        if spec is None:
            record["skipped"].append(f"{dtype}: no written case and no rule for its schema")
            continue
        args, kwargs = spec
        try:
            kwargs = fill_outs(overload, args, kwargs)
            enc = codec.Encoder()
            a, k = enc.encode(tuple(args)), enc.encode(dict(kwargs))
        except codec.Unencodable as e:
            record["skipped"].append(f"{dtype}: {e}")
            continue
        state = enc.state()
        stem = f"{key}|{dtype}|0"
        seed = seed_of(stem)
        fn = getattr(getattr(torch.ops.aten, overload.split(".")[1]), overload.split(".")[2])
        names = [x.name for x in fn._schema.arguments]
        ref = {"dtype": dtype, "reached": [overload],
               "outcome": run_call(fn, state, a, k, seed)}
        if dtype == "float32":
            ref["outcome64"] = run_call(fn, widened(state), a, k, seed)
        record["refs"][f"{dtype}|0"] = ref
        calls = traced(fn, state, a, k, seed)
        record["reached"][overload] = 1
        for c in calls:
            record["reached"][c["overload"]] = record["reached"].get(c["overload"], 0) + 1
        positional = {"id": f"{stem}|aten:{overload}", "op": key, "dtype": dtype, "sample": 0,
                      "spelling": "aten", "call": "torch.ops." + overload, "args": a,
                      "kwargs": k, "state": state, "seed": seed, "reached": [overload],
                      "same_as_entry": True}
        named = dict(positional, id=f"{stem}|aten_kw:{overload}", spelling="aten_kw", args=(),
                     kwargs={**dict(zip(names, a)), **k})
        for case in (positional, named):
            case["upstream"] = run_call(fn, state, case["args"], case["kwargs"], seed)
            case["dispatch"] = logged(fn, state, case["args"], case["kwargs"], seed)
            record["cases"].append(case)
        if overload in WRAPPED:
            record["cases"].append(wrapped_case(overload, positional, state, a, k, seed))
    return record


def wrapped_case(overload: str, positional: dict, state: dict, a, k, seed: int) -> dict:
    """The same arguments given to the overload's function in wrapped.py, which opens the state
    the call needs (a forward-AD dual level for _make_dual); what it reaches is traced."""
    path = WRAPPED[overload]
    fn = resolve(path)
    reached = list(dict.fromkeys(c["overload"] for c in traced(fn, state, a, k, seed)))
    case = dict(positional, id=f"{positional['id'].rpartition('|')[0]}|wrapped:{overload}",
                spelling="wrapped", call=path, reached=reached or [overload])
    case["upstream"] = run_call(fn, state, a, k, seed)
    case["dispatch"] = logged(fn, state, a, k, seed)
    return case


def draw_all(overloads: list[str], max_samples: int) -> list[dict]:
    return [draw_overload(ov, max_samples) for ov in overloads]
