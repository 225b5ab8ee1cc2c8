"""The committed value-net weights (safetensors + JSON configs), packaged as data; see agents.nets.store."""
