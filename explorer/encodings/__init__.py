"""The maths that is not one scheme's: what schemes share (the rotation of every rotary scheme), what a panel
draws beyond them (Waves' sinusoids, learned tables, real models' RoPE configs), blocks, attention, the error
type.  A scheme's own maths lives in its module in :mod:`explorer.schemes`.  No Qt here, float64 throughout,
formula and source in each docstring.

Everything raises :class:`EncodingError` on a bad parameter; torch is imported lazily
(only the learned table and attention need it).
"""

from .errors import MAX_ELEMENTS, EncodingError
from .rope import (
    CONVENTIONS,
    SCALINGS,
    RopeScaling,
    apply_rope,
    halves_to_interleaved,
    inv_freq,
    llama3_band_edges,
    roformer_bound,
    rope_scores,
    scaled_inv_freq,
    score_by_distance,
    yarn_attention_factor,
    yarn_correction_range,
    yarn_ramp,
)
from .sinusoidal import VARIANTS, frequencies, rotation, rotation_error, sinusoidal, wavelengths

__all__ = [
    "CONVENTIONS",
    "MAX_ELEMENTS",
    "SCALINGS",
    "VARIANTS",
    "EncodingError",
    "RopeScaling",
    "apply_rope",
    "frequencies",
    "halves_to_interleaved",
    "inv_freq",
    "llama3_band_edges",
    "roformer_bound",
    "rope_scores",
    "rotation",
    "rotation_error",
    "scaled_inv_freq",
    "score_by_distance",
    "sinusoidal",
    "wavelengths",
    "yarn_attention_factor",
    "yarn_correction_range",
    "yarn_ramp",
]
