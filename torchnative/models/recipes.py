"""What the architecture sweep builds and feeds, the same code in both interpreters.

For a model type that the installed transformers registers (CONFIG_MAPPING), `small_config`
makes its default config small (every size attribute it knows shrunk, in nested configs too,
caches off), `heads_for` names the model classes to build (the base model and one task head),
and `make_inputs` draws seeded inputs for the model's main input (token ids with an attention
mask, pixel values), plus decoder ids for encoder-decoder models. `float_outputs` flattens a
forward's result to its floating tensors, in order. Only upstream builds from the config: ours
loads upstream's saved weights with the real from_pretrained, so both run the same weights.
"""

from __future__ import annotations

import inspect

SEED = 0
BATCH, SEQ, DECODER_SEQ = 2, 7, 5
VOCAB = 1000  # vocabularies above this are shrunk to it (token ids are clamped below it)

# Size attributes and the value each is shrunk to (only where the config has it as an int
# larger than that value).
SIZES = {
    "hidden_size": 32, "d_model": 32, "n_embd": 32, "embed_dim": 32, "dim": 32, "d_embed": 32,
    "intermediate_size": 64, "ffn_dim": 64, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64,
    "n_inner": 64, "hidden_dim": 64, "d_ff": 64, "d_inner": 64, "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 32,
    "num_hidden_layers": 2, "n_layer": 2, "n_layers": 2, "num_layers": 2, "encoder_layers": 2,
    "decoder_layers": 2, "num_decoder_layers": 2, "num_encoder_layers": 2,
    "num_attention_heads": 4, "n_head": 4, "n_heads": 4, "encoder_attention_heads": 4,
    "decoder_attention_heads": 4, "num_heads": 4,
    "num_key_value_heads": 2, "head_dim": 8, "d_kv": 8,
    "num_local_experts": 4, "num_experts": 4, "n_routed_experts": 4, "num_experts_per_tok": 2,
    "image_size": 32, "patch_size": 8,
    "max_position_embeddings": 64, "n_positions": 64,
}
# Attributes tied to the number of layers that must not exceed it.
LAYER_BOUND = ("first_k_dense_replace",)


def _is_config(obj) -> bool:
    from transformers import PretrainedConfig

    return isinstance(obj, PretrainedConfig)


LAYER_COUNTS = ("num_hidden_layers", "n_layer", "n_layers", "num_layers", "encoder_layers",
                "decoder_layers")


def _cut_layer_lists(config, before: dict) -> None:
    """Lists with one entry per layer (layer_types, per-layer windows) keep the entries of the
    layers left; a backbone's stage names and the stages it outputs follow its new depth."""
    for key, old in before.items():
        new = getattr(config, key)
        if new >= old:
            continue
        for name, value in list(vars(config).items()):
            if isinstance(value, (list, tuple)) and len(value) == old and not name.startswith(
                    ("_out", "out_", "stage_names")):
                setattr(config, name, type(value)(value[:new]))
    names = getattr(config, "stage_names", None)
    layers = next((getattr(config, k) for k in LAYER_COUNTS if isinstance(
        getattr(config, k, None), int)), None)
    if isinstance(names, (list, tuple)) and layers is not None and len(names) > layers + 1:
        kept = list(names[:layers + 1])
        outs = [f for f in (getattr(config, "out_features", None) or []) if f in kept]
        for attr, value in (("stage_names", kept), ("_out_features", outs or kept[-1:]),
                            ("_out_indices", [kept.index(f) for f in (outs or kept[-1:])])):
            if hasattr(config, attr):
                setattr(config, attr, value)


def _shrink(config) -> None:
    before = {k: getattr(config, k) for k in LAYER_COUNTS
              if isinstance(getattr(config, k, None), int)}
    for key, small in SIZES.items():
        value = getattr(config, key, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > small:
            try:
                setattr(config, key, small)
            except Exception:  # noqa: BLE001 - a read-only attribute stays as it is
                pass
    vocab = getattr(config, "vocab_size", None)
    if isinstance(vocab, int) and vocab > VOCAB:
        config.vocab_size = VOCAB
    vocab = getattr(config, "vocab_size", None)
    if isinstance(vocab, int):
        for key, value in list(vars(config).items()):
            if key.endswith("_token_id") and isinstance(value, int) and value >= vocab:
                setattr(config, key, vocab - 1)
    _cut_layer_lists(config, before)
    if hasattr(config, "use_cache"):
        config.use_cache = False
    for key, value in list(vars(config).items()):
        if _is_config(value):
            _shrink(value)


def small_config(model_type: str):
    """The model type's default config, shrunk (a fresh object each call)."""
    from transformers import CONFIG_MAPPING

    config = CONFIG_MAPPING[model_type]()
    _shrink(config)
    return config


# (head, the auto mapping naming its class), in the order a task head is chosen.
TASK_HEADS = (("causal-lm", "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES"),
              ("seq2seq-lm", "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES"),
              ("masked-lm", "MODEL_FOR_MASKED_LM_MAPPING_NAMES"),
              ("image-cls", "MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES"),
              ("seq-cls", "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES"))


def model_types() -> list[str]:
    from transformers import CONFIG_MAPPING

    return sorted(CONFIG_MAPPING.keys())


def heads_for(model_type: str) -> list[tuple[str, str]]:
    """(head, class name): the base model where the type has one, and the first task head."""
    from transformers.models.auto import modeling_auto

    def named(mapping: str):
        name = getattr(modeling_auto, mapping).get(model_type)
        return name[0] if isinstance(name, (tuple, list)) else name

    out = []
    if named("MODEL_MAPPING_NAMES"):
        out.append(("base", named("MODEL_MAPPING_NAMES")))
    for head, mapping in TASK_HEADS:
        if named(mapping):
            out.append((head, named(mapping)))
            break
    return out


def model_class(name: str):
    import transformers

    return getattr(transformers, name)


def make_inputs(model, config) -> dict:
    """Seeded inputs for the model's main input, among the arguments its forward takes; raises
    LookupError for a main input no recipe covers."""
    import torch

    g = torch.Generator().manual_seed(SEED)
    accepted = set(inspect.signature(model.forward).parameters)
    main = getattr(model, "main_input_name", "input_ids")
    inputs = {}
    if main == "input_ids":
        vocab = getattr(config, "vocab_size", None) or getattr(
            getattr(config, "text_config", None), "vocab_size", VOCAB)
        high = min(int(vocab), VOCAB)
        inputs["input_ids"] = torch.randint(3, max(high, 4), (BATCH, SEQ), generator=g)
        if "attention_mask" in accepted:
            mask = torch.ones(BATCH, SEQ, dtype=torch.long)
            mask[1, -2:] = 0
            inputs["attention_mask"] = mask
        if getattr(config, "is_encoder_decoder", False) and "decoder_input_ids" in accepted:
            inputs["decoder_input_ids"] = torch.randint(3, max(high, 4), (BATCH, DECODER_SEQ),
                                                        generator=g)
    elif main == "pixel_values":
        vision = getattr(config, "vision_config", None) or config
        size = getattr(vision, "image_size", 32)
        size = size if isinstance(size, int) else 32
        channels = getattr(vision, "num_channels", 3)
        inputs["pixel_values"] = torch.randn(BATCH, channels, size, size, generator=g)
    else:
        raise LookupError(f"no input recipe for main input {main!r}")
    return {k: v for k, v in inputs.items() if k in accepted or k == main}


def float_outputs(result) -> list:
    """The floating tensors of a forward's result, depth first (ModelOutput fields in order,
    tuples and lists); anything else (a cache object, None, an integer tensor) is left out."""
    import torch

    if isinstance(result, torch.Tensor):
        return [result] if result.is_floating_point() else []
    if hasattr(result, "to_tuple"):
        result = result.to_tuple()
    if isinstance(result, (tuple, list)):
        return [t for x in result for t in float_outputs(x)]
    return []
