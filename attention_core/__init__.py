"""attention_core: every computation of the Attention Visualizer, in plain NumPy.

The attention computation itself is one file, ``attention_core/maths/attention.py``,
read top to bottom; ``api.py`` checks a caller's input and runs it. No Streamlit,
no Plotly. The
PyTorch model and its training loop live in ``attention_core.timeseries.model`` and
``attention_core.timeseries.training``, imported only on demand,
so ``import attention_core`` stays fast.
"""

from attention_core.boundary import limits
from attention_core.boundary.api import (
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
from attention_core.boundary.config import AttentionConfig
from attention_core.boundary.errors import InputError
from attention_core.boundary.gradients import attention_backward, softmax_backward
from attention_core.boundary.options import (
    COMBINATIONS,
    EMBEDDINGS,
    MASKS,
    NORMALISERS,
    POSITIONAL_ENCODINGS,
    SCALINGS,
)
from attention_core.boundary.pipeline import (
    PAD_TOKENS,
    AttentionRun,
    build_mask,
    embed,
    positional_encoding,
    run_attention,
    run_text_attention,
)
from attention_core.boundary.registry import Option
from attention_core.boundary.text import Tokens, one_hot_embeddings, random_embeddings, tokenize
from attention_core.boundary.validation import valid_head_counts
from attention_core.maths.ablation import (
    ABLATION_KINDS,
    Ablation,
    OutputChange,
    checked_ablation,
    output_change,
)
from attention_core.maths.attention import AttentionTrace, MultiHeadTrace
from attention_core.maths.backward import AttentionGradients
from attention_core.maths.masks import causal_mask, padding_mask, sliding_window_mask
from attention_core.maths.positional import learned_encoding, rotary_embedding, sinusoidal_encoding
from attention_core.maths.projections import Projections, glorot_uniform, init_projections
from attention_core.teaching import examples
from attention_core.teaching.pitfalls import (
    multiplicative_mask_pitfall,
    sequence_length_scale_pitfall,
    wrong_axis_softmax_pitfall,
)
from attention_core.timeseries.column_kinds import default_target
from attention_core.timeseries.csv_reader import SeriesReport, read_series, series_report
from attention_core.timeseries.diagnosis import LossDiagnosis, diagnose_loss
from attention_core.timeseries.differencing import difference, integrate
from attention_core.timeseries.embedding import (
    FeatureEmbedding,
    SeriesAttention,
    init_feature_embedding,
    series_attention,
)
from attention_core.timeseries.options import FEATURE_ACTIVATIONS, SERIES_SCALINGS
from attention_core.timeseries.samples import SEASONAL_PERIOD, seasonal_series, synthetic_ohlcv
from attention_core.timeseries.windows import (
    ForecastErrors,
    Scaler,
    SeriesDataset,
    check_window,
    fit_scaler,
    forecast_errors,
    prepare_dataset,
    row_labels,
    scaling_rows,
    windows_at,
)

__all__ = [
    "ABLATION_KINDS",
    "COMBINATIONS",
    "EMBEDDINGS",
    "FEATURE_ACTIVATIONS",
    "MASKS",
    "NORMALISERS",
    "PAD_TOKENS",
    "POSITIONAL_ENCODINGS",
    "SCALINGS",
    "SEASONAL_PERIOD",
    "SERIES_SCALINGS",
    "Ablation",
    "AttentionConfig",
    "AttentionGradients",
    "AttentionRun",
    "AttentionTrace",
    "FeatureEmbedding",
    "ForecastErrors",
    "InputError",
    "LossDiagnosis",
    "MultiHeadTrace",
    "Option",
    "OutputChange",
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
    "checked_ablation",
    "combine_heads",
    "default_target",
    "diagnose_loss",
    "difference",
    "embed",
    "examples",
    "fit_scaler",
    "forecast_errors",
    "glorot_uniform",
    "hardmax",
    "init_feature_embedding",
    "init_projections",
    "integrate",
    "learned_encoding",
    "limits",
    "masked_fill",
    "merge_heads",
    "multi_head_attention",
    "multiplicative_mask_pitfall",
    "one_hot_embeddings",
    "output_change",
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
