"""Models: the dense embedder, the late-interaction stage, the cross-encoder, provisioning."""
