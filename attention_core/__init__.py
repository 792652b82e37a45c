"""attention_core: every computation of the Attention Visualizer, in plain NumPy.

The attention computation itself is one file, ``attention_core/attention.py``,
read top to bottom; ``api.py`` checks a caller's input and runs it. No Streamlit,
no Plotly. The
PyTorch model and its training loop live in ``attention_core.timeseries.model`` and
``attention_core.timeseries.training``, imported only on demand,
so ``import attention_core`` stays fast.
"""

from . import limits
from .api import (
    combine_heads,
    hardmax,
    masked_fill,
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    softmax,
    split_heads,
    with_temperature,
)
from .attention import AttentionTrace, MultiHeadTrace
from .backward import AttentionGradients, attention_backward, softmax_backward
from .config import AttentionConfig
from .errors import InputError
from .masks import causal_mask, padding_mask, sliding_window_mask
from .options import (
    ACTIVATIONS,
    COMBINATIONS,
    EMBEDDINGS,
    MASKS,
    POSITIONAL_ENCODINGS,
    SCALINGS,
    Option,
)
from .pipeline import (
    PAD_TOKENS,
    AttentionRun,
    build_mask,
    embed,
    positional_encoding,
    run_attention,
    run_text_attention,
)
from .positional import learned_encoding, rotary_embedding, sinusoidal_encoding
from .projections import Projections, glorot_uniform, init_projections
from .teaching import examples
from .teaching.pitfalls import (
    multiplicative_mask_pitfall,
    sequence_length_scale_pitfall,
    wrong_axis_softmax_pitfall,
)
from .text import Tokens, one_hot_embeddings, random_embeddings, tokenize
from .timeseries.csv_reader import SeriesReport, read_series, series_report
from .timeseries.samples import SEASONAL_PERIOD, seasonal_series, synthetic_ohlcv
from .timeseries.windows import (
    FEATURE_ACTIVATIONS,
    SERIES_SCALINGS,
    FeatureEmbedding,
    ForecastErrors,
    Scaler,
    SeriesAttention,
    SeriesDataset,
    check_window,
    fit_scaler,
    forecast_errors,
    init_feature_embedding,
    prepare_dataset,
    row_labels,
    scaling_rows,
    series_attention,
    windows_at,
)
from .validation import valid_head_counts

__all__ = [
    "ACTIVATIONS",
    "COMBINATIONS",
    "EMBEDDINGS",
    "FEATURE_ACTIVATIONS",
    "MASKS",
    "PAD_TOKENS",
    "POSITIONAL_ENCODINGS",
    "SCALINGS",
    "SEASONAL_PERIOD",
    "SERIES_SCALINGS",
    "AttentionConfig",
    "AttentionGradients",
    "AttentionRun",
    "AttentionTrace",
    "FeatureEmbedding",
    "ForecastErrors",
    "InputError",
    "MultiHeadTrace",
    "Option",
    "Projections",
    "Scaler",
    "SeriesAttention",
    "SeriesDataset",
    "SeriesReport",
    "Tokens",
    "attention_backward",
    "build_mask",
    "causal_mask",
    "check_window",
    "combine_heads",
    "embed",
    "examples",
    "fit_scaler",
    "forecast_errors",
    "glorot_uniform",
    "hardmax",
    "init_feature_embedding",
    "init_projections",
    "learned_encoding",
    "limits",
    "masked_fill",
    "merge_heads",
    "multi_head_attention",
    "multiplicative_mask_pitfall",
    "one_hot_embeddings",
    "padding_mask",
    "positional_encoding",
    "prepare_dataset",
    "random_embeddings",
    "read_series",
    "rotary_embedding",
    "row_labels",
    "run_attention",
    "run_text_attention",
    "scaled_dot_product_attention",
    "scaling_rows",
    "seasonal_series",
    "sequence_length_scale_pitfall",
    "series_attention",
    "series_report",
    "sinusoidal_encoding",
    "sliding_window_mask",
    "softmax",
    "softmax_backward",
    "split_heads",
    "synthetic_ohlcv",
    "tokenize",
    "valid_head_counts",
    "windows_at",
    "with_temperature",
    "wrong_axis_softmax_pitfall",
]
