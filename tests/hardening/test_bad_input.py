"""The core refuses what it cannot hold (issue 7, item 8): hostile arguments, compared with
upstream in child processes.

Acceptance: for every snippet below, ours does not crash (no signal, no abort: the child exits
normally), and it ends as upstream's does: where upstream raises, ours raises the same exception
type (taken from upstream's run, never typed here); where upstream returns, ours returns the same
value. For the snippets in SAME_TEXT the exception's text must be upstream's too.

Upstream itself crashes on a few (reading a tensor whose storage was resized to 0, other than
through tolist); there ours must raise what upstream raises for the same tensor's tolist()
(UPSTREAM_CRASHES maps each to that reference snippet).
"""

from __future__ import annotations

import pytest

from helpers import OURS, UPSTREAM

from .batch import describe, run_cases

S = "class S(torch.Tensor): pass\ns = torch.ones(3).as_subclass(S)\n"
R = ("class R(torch.Tensor):\n    seen = []\n    @classmethod\n"
     "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
     "        cls.seen.append(getattr(func, '__name__', ''))\n"
     "        return super().__torch_function__(func, types, args, kwargs or {})\n"
     "r = torch.ones(3).as_subclass(R)\n")
GONE = "x = torch.ones(4)\nx.untyped_storage().resize_(0)\n"
DEEP = "l = [1]\nfor _ in range({n}): l = [l]\n"

# Snippets run with every warning an error (warnings.simplefilter("error")), so a warning
# upstream gives is an exception type to match.
CASES = {
    # sizes, strides and offsets: every product and sum is checked
    "empty_2_62": "torch.empty(2**62)",
    "ones_2_61_x4": "torch.ones(2**61, 4)",
    "expand_contiguous": "torch.ones(1).expand(2**62).contiguous()",
    "empty_numel_wraps": "torch.empty(2**32, 2**32).numel()",
    "zeros_3d_wraps": "torch.zeros(2**31, 2**31, 4)",
    "new_empty_2_62": "torch.ones(2).new_empty(2**62)",
    "zeros_like_expanded": "torch.zeros_like(torch.ones(1).expand(2**62))",
    "arange_2_62": "torch.arange(0, 2**62)",
    "empty_strided_big_stride": "torch.empty_strided((4,), (2**62,))",
    "empty_strided_big": "torch.empty_strided((2**40,), (2**30,))",
    "expand_numel_overflow": "torch.ones(1, 1).expand(2**40, 2**40).numel()",
    "reshape_numel_overflow": "torch.ones(0).reshape(2**32, 2**32, 0)",
    "empty_strides_overflow": "torch.empty(0, 2**62, 4).stride()",
    "eye_2_32": "torch.eye(2**32)",
    "repeat_2_62": "torch.ones(3).repeat(2**62)",
    "cat_sizes_overflow": "torch.cat([torch.ones(1).expand(2**62), torch.ones(1).expand(2**62)])",
    "view_infer_overflow": "torch.ones(4).view(-1, 2**62, 4)",
    "index_select_past_end": "torch.ones(2).index_select(0, torch.tensor([2**40]))",
    "index_select_2d_past_end": "torch.ones(2, 3).index_select(1, torch.tensor([3]))",
    "index_tensor_past_end": "torch.ones(2)[torch.tensor([2**40])]",
    "empty_2_40_alloc_fails": "torch.empty(2**40)",
    "storage_2_62_alloc_fails": "torch.UntypedStorage(2**62)",
    "storage_negative": "torch.UntypedStorage(-1)",
    "storage_resize_negative": "torch.ones(4).untyped_storage().resize_(-1)",
    # views and set_ against their storage
    "as_strided_big_stride": "torch.ones(4).as_strided((2,), (2**62,)).tolist()",
    "as_strided_big_size": "torch.ones(4).as_strided((2**62, 4), (4, 1)).tolist()",
    "as_strided_big_offset": "torch.ones(4).as_strided((2,), (1,), 2**62).tolist()",
    "as_strided_past_end": "torch.ones(4).as_strided((2,), (1,), 3).tolist()",
    "as_strided_negative_stride": "torch.ones(4).as_strided((2,), (-1,), 3)",
    "set_big_stride": "torch.empty(0).set_(torch.ones(4).untyped_storage(), 0, (2,), (2**62,))",
    "set_big_offset": "torch.empty(0).set_(torch.ones(4).untyped_storage(), 2**61, (2,), (1,))",
    "set_negative_stride": "torch.empty(0).set_(torch.ones(4).untyped_storage(), 3, (2,), (-1,))",
    "set_grows_storage": "x = torch.empty(0)\n"
                         "x.set_(torch.ones(4).untyped_storage(), 2, (3,), (1,))\n"
                         "(x.untyped_storage().nbytes(), x[:2].tolist())",
    # a storage resized under its tensor
    "resized_tolist": GONE + "x.tolist()",
    "resized_select_item": GONE + "x[0].item()",
    "resized_print": GONE + "str(x)",
    "resized_add": GONE + "x + 1",
    "resized_sum": GONE + "x.sum()",
    "resized_clone": GONE + "x.clone()",
    "resized_fill": GONE + "x.fill_(2)",
    # torch.tensor of hostile data
    "tensor_self_referencing": "l = [1]\nl.append(l)\ntorch.tensor(l)",
    "tensor_self_referencing_nested": "l = [[1], [2]]\nl.append(l)\ntorch.tensor(l)",
    "tensor_bytes": "torch.tensor(b'abc')",
    "tensor_str": "torch.tensor('abc')",
    "tensor_bytearray": "torch.tensor(bytearray(b'abc'))",
    "tensor_nested_5000": DEEP.format(n=5000) + "torch.tensor(l)",
    "tensor_nested_128": DEEP.format(n=128) + "torch.tensor(l)",
    "tensor_nested_127": DEEP.format(n=127) + "torch.tensor(l).dim()",
    "tensor_2_64": "torch.tensor([2**64])",
    "tensor_2_63_scalar": "torch.tensor(2**63)",
    "tensor_below_int64": "torch.tensor([-2**63 - 1])",
    "tensor_300_uint8": "torch.tensor([300], dtype=torch.uint8)",
    "tensor_minus1_uint8": "torch.tensor([-1], dtype=torch.uint8)",
    "tensor_1e10_int32": "torch.tensor([1e10], dtype=torch.int32)",
    "tensor_2_64_float": "torch.tensor([2**64], dtype=torch.float64)",
    # Python ints beyond int64
    "add_2_70": "torch.ones(2) + 2**70",
    "mul_long_2_64": "torch.ones(2, dtype=torch.long) * 2**64",
    "full_2_70": "torch.full((2,), 2**70)",
    "fill_2_70": "torch.ones(2).fill_(2**70)",
    "narrow_2_63": "torch.ones(4).narrow(0, 2**63, 1)",
    "select_2_63": "torch.ones(4).select(0, 2**63)",
    "sum_dim_2_63": "torch.ones(4).sum(2**63)",
    "index_2_63": "torch.ones(2)[2**63]",
    "index_below_int64": "torch.ones(2)[-2**63 - 1]",
    "setitem_index_2_63": "x = torch.ones(2)\nx[2**63] = 1",
    "setitem_value_2_70": "x = torch.ones(2)\nx[0] = 2**70",
    "manual_seed_2_64": "torch.manual_seed(2**64)",
    "manual_seed_below_int64": "torch.manual_seed(-2**63 - 1)",
    "manual_seed_2_63": "torch.manual_seed(2**63)\ntorch.initial_seed()",
    "manual_seed_minus1": "torch.manual_seed(-1)\ntorch.initial_seed()",
    "tensor_size_2_63": "torch.ones(2).size(2**63)",
    "tensor_stride_2_63": "torch.ones(2).stride(2**63)",
    "size_numel_2_63": "torch.Size([2**63]).numel()",
    "size_numel_wraps": "torch.Size([2**32, 2**32]).numel()",
    "storage_2_64": "torch.UntypedStorage(2**64)",
    "device_index_2_70": "torch.device('cpu', 2**70)",
    "generator_seed_2_64": "torch.Generator().manual_seed(2**64)",
    # indexing keeps a subclass
    "subclass_int": S + "type(s[0]).__name__",
    "subclass_slice": S + "type(s[1:]).__name__",
    "subclass_tensor": S + "type(s[torch.tensor([0, 1])]).__name__",
    "subclass_setitem": R + "r[0] = 5\n('__setitem__' in R.seen, r.tolist())",
    # out= and in-place rules
    "out_float_into_long": "torch.add(torch.ones(2), torch.ones(2), out=torch.empty(2, "
                           "dtype=torch.long))",
    "out_mm_into_long": "torch.mm(torch.ones(2, 2), torch.ones(2, 2), "
                        "out=torch.empty(2, 2, dtype=torch.long))",
    "out_resized_warns": "torch.add(torch.ones(2), torch.ones(2), out=torch.empty(3))",
    "out_sum_resized_warns": "torch.sum(torch.ones(2, 2), 0, out=torch.empty(3))",
    "out_mm_resized_warns": "torch.mm(torch.ones(2, 2), torch.ones(2, 2), out=torch.empty(3))",
    "out_zeros_resized_silently": "torch.zeros(2, out=torch.empty(3))",
    "out_cat_into_long": "torch.cat([torch.ones(2)], out=torch.empty(2, dtype=torch.long))",
    "out_empty_resized_silently": "torch.add(torch.ones(2), torch.ones(2), "
                                  "out=torch.empty(0)).shape",
    "addmm_inplace_shape": "torch.ones(5).addmm_(torch.ones(5, 3), torch.ones(3, 5))",
    "addmm_inplace_expanded": "torch.ones(1, 1).expand(2, 2).addmm_(torch.ones(2, 3), "
                              "torch.ones(3, 2))",
    "add_inplace_expanded": "torch.ones(1).expand(3).add_(1)",
    "copy_into_expanded": "torch.ones(1).expand(3).copy_(torch.arange(3.))",
    "add_inplace_broadcast": "torch.ones(3).add_(torch.ones(2, 3))",
    # out= dtypes: exact where upstream's structured out= (or its kernel) says so
    "argmax_out_float": "torch.argmax(torch.ones(2, 3), 0, out=torch.empty(3))",
    "argmin_out_int32": "torch.argmin(torch.ones(2, 3), 1, out=torch.empty(2, dtype=torch.int32))",
    "argmax_out_long": "torch.argmax(torch.tensor([[1., 3.], [4., 2.]]), 1, "
                       "out=torch.empty(2, dtype=torch.long))",
    "amax_out_dtype": "torch.amax(torch.ones(3, dtype=torch.double), 0, "
                      "out=torch.empty((), dtype=torch.bfloat16))",
    "amin_out_dtype": "torch.amin(torch.ones(3, dtype=torch.int8), 0, out=torch.empty(()))",
    "sum_out_dtype": "torch.sum(torch.ones(3), 0, dtype=torch.float16, out=torch.empty(()))",
    "prod_out_dtype": "torch.prod(torch.ones(3), 0, dtype=torch.int32, out=torch.empty(()))",
    "sum_out_dtype_same": "torch.sum(torch.ones(3), 0, dtype=torch.double, "
                          "out=torch.empty((), dtype=torch.double))",
    "cumsum_out_dtype": "torch.cumsum(torch.ones(3), 0, dtype=torch.bool, out=torch.empty(3))",
    "cumsum_inplace_dtype": "torch.ones(3).cumsum_(0, dtype=torch.int8)",
    "tril_out_dtype": "torch.tril(torch.ones(2, 2, dtype=torch.bool), out=torch.empty(2, 2))",
    "triu_out_dtype": "torch.triu(torch.ones(2, 2, dtype=torch.bfloat16), "
                      "out=torch.empty(2, 2, dtype=torch.double))",
    "mm_out_double": "torch.mm(torch.ones(2, 3), torch.ones(3, 2), "
                     "out=torch.empty(2, 2, dtype=torch.double))",
    "addmm_out_double": "torch.addmm(torch.ones(2, 2), torch.ones(2, 3), torch.ones(3, 2), "
                        "out=torch.empty(2, 2, dtype=torch.double))",
    "mv_out_double": "torch.mv(torch.ones(2, 3), torch.ones(3), out=torch.empty(2, "
                     "dtype=torch.double))",
    "dot_out_double": "torch.dot(torch.ones(3), torch.ones(3), out=torch.empty((), "
                      "dtype=torch.double))",
    "outer_out_double": "torch.outer(torch.ones(2), torch.ones(2), out=torch.empty(2, 2, "
                        "dtype=torch.double))",
    "matmul_out_dot": "torch.matmul(torch.ones(3), torch.ones(3), out=torch.empty((), "
                      "dtype=torch.double))",
    "matmul_out_mv": "torch.matmul(torch.ones(4, 1, 3), torch.ones(3), out=torch.empty(4, 1, "
                     "dtype=torch.bfloat16))",
    "matmul_out_mm": "torch.matmul(torch.ones(3), torch.ones(3, 2), out=torch.empty(2, "
                     "dtype=torch.double))",
    # written tensors that hold one element twice, and out= sharing memory with an input
    "cumsum_out_expanded": "torch.cumsum(torch.ones(2, 3), 1, out=torch.ones(1, 3).expand(2, 3))",
    "cumsum_inplace_expanded": "torch.ones(1, 3).expand(2, 3).cumsum_(1)",
    "uniform_expanded": "torch.ones(1).expand(3).uniform_()",
    "normal_expanded": "torch.ones(1).expand(3).normal_()",
    "random_expanded": "torch.ones(1).expand(3).random_()",
    "random_from_expanded": "torch.ones(1, dtype=torch.long).expand(3).random_(0, 5)",
    "bernoulli_expanded": "torch.ones(1).expand(3).bernoulli_(0.5)",
    "bernoulli_tensor_expanded": "torch.ones(1).expand(3).bernoulli_(torch.full((3,), 0.5))",
    "uniform_bounds_before_overlap": "torch.ones(1).expand(3).uniform_(5, 1)",
    "cat_out_expanded": "torch.cat([torch.ones(5, 5), torch.ones(5, 5)], "
                        "out=torch.ones(1, 5).expand(10, 5))",
    "cat_out_is_input": "y = torch.ones(4, 6)\ntorch.cat([torch.zeros(0), y], out=y)",
    "cat_out_is_skipped_input": "x = torch.zeros(0)\ntorch.cat([x, torch.ones(4, 6)], out=x)",
    "cat_out_partial": "z = torch.zeros(4, 6)\ntorch.cat([torch.ones(4, 6), z], out=z[:2])",
    "cat_out_apart": "z = torch.zeros(8, 6)\ntorch.cat([z[:2], z[2:4]], out=z[4:])",
    # meta next to the CPU
    "exp_out_meta_cpu_scalar": "torch.exp(torch.tensor(1.), out=torch.empty((), device='meta'))",
    "add_out_meta_cpu_scalars": "torch.add(torch.tensor(1.), torch.tensor(2.), "
                                "out=torch.empty((), device='meta'))",
    "add_out_meta_meta_and_scalar": "torch.add(torch.ones(2, device='meta'), torch.tensor(2.), "
                                    "out=torch.empty(2, device='meta')).shape",
    "cat_out_meta_cpu": "torch.cat([torch.ones(2)], out=torch.empty(2, device='meta'))",
    "stack_out_meta_cpu": "torch.stack([torch.ones(2)], out=torch.empty(1, 2, device='meta'))",
    "triu_out_meta_cpu": "torch.triu(torch.ones(2, 2), out=torch.empty(2, 2, device='meta'))",
    "mv_meta_vec": "torch.mv(torch.ones(3, 2), torch.ones(2, device='meta'))",
    "sdpa_meta_key": "q = torch.ones(1, 1, 3)\ntorch.nn.functional.scaled_dot_product_attention("
                     "q, torch.ones(1, 1, 3, device='meta'), q)",
    "randint_meta_empty_range": "torch.randint(0, (2, 3), device='meta')",
    "randint_low_meta_empty_range": "torch.randint(5, 0, (2,), device='meta')",
    "randint_meta_ok": "torch.randint(0, 5, (2,), device='meta').shape",
    "randint_generator_meta_empty_range": "torch.randint(0, (2,), generator=None, "
                                          "device='meta').shape",
    "randint_like_meta_empty_range": "torch.randint_like(torch.ones(2), -2, device='meta').shape",
    "random_meta_empty_range": "torch.empty(3, device='meta').random_(0, 0).shape",
    "random_meta_past_dtype": "torch.empty(3, dtype=torch.int8, device='meta').random_(0, 1000)"
                              ".shape",
    "linspace_pin_memory": "torch.linspace(0, 1, 2, pin_memory=True)",
    "linspace_meta_pin_memory": "torch.linspace(0, 1, 2, device='meta', pin_memory=True).shape",
    "squeeze_inplace_0dim": "torch.ones(()).squeeze_(2**31)",
    "baddbmm_2d_operands": "torch.baddbmm(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 3))",
    "baddbmm_0d_batch1": "torch.baddbmm(torch.ones(2, 3), torch.ones(()), torch.ones(2, 3))",
    "baddbmm_4d_self": "torch.baddbmm(torch.ones(1, 1, 1, 1), torch.ones(1, 1, 1), "
                       "torch.ones(1, 1, 1))",
    "addmm_3d_self": "torch.addmm(torch.ones(2, 2, 2), torch.ones(2, 3), torch.ones(3, 2))",
    "mv_0d_matrix": "torch.mv(torch.ones(()), torch.ones(3))",
    # ints past int64 through torch.ops (the JIT's schema matcher) and elsewhere
    "ops_int_2_64": "torch.ops.aten._softmax.default(torch.ones(3), 2**64, True)",
    "ops_int_list_2_64": "torch.ops.aten.amax.default(torch.ones(3), (0, 2**64), False)",
    "ops_optional_int_list_2_64": "torch.ops.aten.sum.dim_IntList(torch.ones(3), [2**64])",
    "ops_optional_int_2_64": "torch.ops.aten.argmax.default(torch.ones(3), 2**64)",
    "ops_scalar_2_70": "torch.ops.aten.add.Tensor(torch.ones(2), torch.ones(2), alpha=2**70)",
    "softmax_int_2_64": "torch.softmax(torch.ones(3), 2**64)",
    "storage_resize_2_64": "torch.ones(4).untyped_storage().resize_(2**64)",
    # tensor options upstream's CPU build refuses
    "empty_pin_memory": "torch.empty(2, pin_memory=True)",
    "ones_pin_memory": "torch.ones(2, pin_memory=True)",
    "rand_pin_memory": "torch.rand(2, pin_memory=True)",
    "new_zeros_pin_memory": "torch.ones(2).new_zeros(2, pin_memory=True)",
    "zeros_like_pin_memory": "torch.zeros_like(torch.ones(2), pin_memory=True)",
    "empty_meta_pin_memory": "torch.empty(2, device='meta', pin_memory=True).shape",
    "zeros_sparse_pin_memory": "torch.zeros(2, layout=torch.sparse_coo, pin_memory=True)",
    "empty_channels_last_2d": "torch.empty(2, 3, memory_format=torch.channels_last)",
    "clone_channels_last_2d": "torch.ones(2, 3).clone(memory_format=torch.channels_last)",
    "contiguous_channels_last_3d_2d": "torch.ones(2, 3).contiguous("
                                      "memory_format=torch.channels_last_3d)",
    "to_channels_last_2d": "torch.ones(2, 3).to(torch.half, memory_format=torch.channels_last)",
    "zeros_like_channels_last_1d": "torch.zeros_like(torch.ones(3), "
                                   "memory_format=torch.channels_last)",
    # an out= made from the functional op: the functional's own refusal comes first
    "bitwise_scalar_tensor_out": "torch.ops.aten.bitwise_and.Scalar_Tensor_out(2, torch.ones(3), "
                                 "out=torch.empty(3, dtype=torch.int32))",
    "from_numpy_empty_strides": "import numpy as np\n"
                                "[torch.from_numpy(np.zeros(s, dtype=np.float32)).stride() "
                                "for s in [(0,), (0, 3), (2, 0), (3, 0, 2), (1, 3)]]",
    "view_dtype_empty_from_numpy": "import numpy as np\n"
                                   "torch.from_numpy(np.zeros(0, dtype=np.float32))"
                                   ".view(torch.bfloat16)",
    # values outside the dtype's range
    "full_300_uint8": "torch.full((2,), 300, dtype=torch.uint8)",
    "full_minus200_int8": "torch.full((2,), -200, dtype=torch.int8)",
    "full_minus1_uint8": "torch.full((2,), -1, dtype=torch.uint8)",
    "full_inf_long": "torch.full((2,), float('inf'), dtype=torch.long)",
    "full_1e6_half": "torch.full((2,), 1e6, dtype=torch.half)",
    "full_inf_half": "torch.full((2,), float('inf'), dtype=torch.half)",
    "full_2_bool": "torch.full((2,), 2, dtype=torch.bool)",
    "fill_300_uint8": "torch.zeros(2, dtype=torch.uint8).fill_(300)",
    "fill_2_31_int32": "torch.zeros(2, dtype=torch.int32).fill_(2**31)",
    "linspace_300_uint8": "torch.linspace(0, 300, 5, dtype=torch.uint8)",
    "linspace_255_uint8": "torch.linspace(0, 255, 5, dtype=torch.uint8)",
    "randperm_300_uint8": "torch.randperm(300, dtype=torch.uint8)",
    "randperm_129_int8": "torch.randperm(129, dtype=torch.int8)",
    "randperm_256_uint8": "sorted(torch.randperm(256, dtype=torch.uint8).tolist())",
    # shape arguments
    "squeeze_repeated_dim": "torch.ones(1, 2).squeeze((0, 0))",
    "squeeze_repeated_negative_dim": "torch.ones(1, 2).squeeze((0, -2))",
    "unfold_negative_size": "torch.ones(5).unfold(0, -1, 1)",
    "unfold_zero_step": "torch.ones(5).unfold(0, 2, 0)",
    "layer_norm_weight_dtype": "torch.nn.functional.layer_norm(torch.ones(2, 3), (3,), "
                               "torch.ones(3, dtype=torch.double))",
    "layer_norm_bias_dtype": "torch.nn.functional.layer_norm(torch.ones(2, 3), (3,), "
                             "torch.ones(3), torch.ones(3, dtype=torch.double))",
}

# Snippets upstream crashes on -> the snippet whose upstream outcome ours must match instead.
UPSTREAM_CRASHES = {
    "resized_print": "resized_tolist",
    "resized_add": "resized_tolist",
    "resized_sum": "resized_tolist",
    "resized_clone": "resized_tolist",
    "resized_fill": "resized_tolist",
}

# Exception text that must be upstream's, word for word.
SAME_TEXT = {
    "empty_2_62", "empty_numel_wraps", "arange_2_62", "empty_strided_big_stride",
    "empty_strided_big", "expand_numel_overflow", "empty_strides_overflow",
    "index_select_past_end", "index_select_2d_past_end", "index_tensor_past_end", "reshape_numel_overflow",
    "as_strided_big_stride", "as_strided_big_size", "as_strided_big_offset",
    "as_strided_past_end", "as_strided_negative_stride", "set_big_stride", "set_big_offset",
    "set_negative_stride", "resized_tolist", "resized_select_item", "tensor_self_referencing",
    "tensor_bytes", "tensor_str", "tensor_nested_5000", "tensor_nested_128", "tensor_2_64",
    "tensor_300_uint8", "tensor_1e10_int32", "add_2_70", "full_2_70", "narrow_2_63",
    "index_2_63", "setitem_value_2_70", "manual_seed_2_64", "generator_seed_2_64",
    "out_float_into_long", "out_cat_into_long", "addmm_inplace_shape", "addmm_inplace_expanded",
    "add_inplace_expanded", "full_300_uint8", "full_inf_long", "full_1e6_half",
    "fill_300_uint8", "fill_2_31_int32", "linspace_300_uint8", "randperm_300_uint8",
    "randperm_129_int8", "squeeze_repeated_dim", "unfold_negative_size",
    "layer_norm_weight_dtype", "layer_norm_bias_dtype",
    "argmax_out_float", "argmin_out_int32", "amax_out_dtype", "amin_out_dtype", "sum_out_dtype",
    "prod_out_dtype", "cumsum_out_dtype", "cumsum_inplace_dtype", "tril_out_dtype",
    "triu_out_dtype", "mm_out_double", "addmm_out_double", "mv_out_double", "dot_out_double",
    "matmul_out_dot", "matmul_out_mv", "matmul_out_mm", "cumsum_out_expanded", "uniform_expanded",
    "normal_expanded", "random_expanded", "random_from_expanded", "bernoulli_expanded",
    "bernoulli_tensor_expanded", "uniform_bounds_before_overlap", "cat_out_expanded",
    "cat_out_is_input", "cat_out_is_skipped_input", "cat_out_partial", "exp_out_meta_cpu_scalar",
    "add_out_meta_cpu_scalars", "cat_out_meta_cpu", "stack_out_meta_cpu", "triu_out_meta_cpu",
    "mv_meta_vec", "sdpa_meta_key", "randint_meta_empty_range", "randint_low_meta_empty_range",
    "linspace_pin_memory", "squeeze_inplace_0dim", "view_dtype_empty_from_numpy",
    "baddbmm_2d_operands", "baddbmm_0d_batch1", "baddbmm_4d_self", "mv_0d_matrix",
    "ops_int_2_64", "ops_int_list_2_64", "ops_optional_int_list_2_64", "ops_optional_int_2_64",
    "ops_scalar_2_70", "softmax_int_2_64", "storage_resize_2_64", "empty_pin_memory",
    "ones_pin_memory", "rand_pin_memory", "new_zeros_pin_memory", "zeros_like_pin_memory",
    "zeros_sparse_pin_memory", "empty_channels_last_2d", "clone_channels_last_2d",
    "contiguous_channels_last_3d_2d", "to_channels_last_2d", "zeros_like_channels_last_1d",
    "bitwise_scalar_tensor_out", "addmm_3d_self",
}


@pytest.fixture(scope="module")
def outcomes():
    return run_cases(OURS, CASES), run_cases(UPSTREAM, CASES)


def upstream_text(text: str) -> str:
    """Upstream's text without its C++ source position ("[enforce fail at alloc_cpu.cpp:127] ")."""
    return text.split("] ", 1)[1] if text.startswith("[enforce fail at ") else text


@pytest.mark.parametrize("name", sorted(CASES))
def test_refuses_as_upstream(outcomes, name):
    ours_all, upstream_all = outcomes
    ours, upstream = ours_all[name], upstream_all[name]
    assert "crashed" not in ours, f"ours {describe(ours)}"
    if name in UPSTREAM_CRASHES:
        assert "crashed" in upstream, f"upstream no longer crashes: {describe(upstream)}"
        upstream = upstream_all[UPSTREAM_CRASHES[name]]
    assert "crashed" not in upstream, f"upstream {describe(upstream)}"
    if "raised" in upstream:
        assert "raised" in ours, f"upstream {describe(upstream)}; ours {describe(ours)}"
        assert ours["raised"] == upstream["raised"], (
            f"upstream {describe(upstream)}; ours {describe(ours)}")
        if name in SAME_TEXT:
            assert ours["text"] == upstream_text(upstream["text"])
    else:
        assert ours == upstream, f"upstream {describe(upstream)}; ours {describe(ours)}"
