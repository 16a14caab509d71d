"""The architecture sweep (`make models`): every transformers model type, built from a small
config by upstream, loaded and run by ours, graded against upstream's float64 forward."""
