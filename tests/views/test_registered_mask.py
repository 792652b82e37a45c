"""A mask registered in one place is offered, explained and computed by the text page.

The test registers "even": each query may attend only the keys at even positions
0, 2, 4, … (a mask no page knows about), runs views/text.py with AppTest (in this
process, so the registration is visible to the page) and withdraws it afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from tests.plotly_specs import decode as decode_array
from tests.plotly_specs import figures

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "text.py")
SENTENCE = "the cat sat on the mat"  # 6 tokens: keys 0, 2, 4 allowed, 1, 3, 5 forbidden


def even_keys(
    n_q: int, n_k: int, window: int, key_is_padding: np.ndarray | None, custom: np.ndarray | None
) -> np.ndarray:
    r"""Keys at even positions only, ``(n_q, n_k)``: :math:`M_{ij} = [\, j \bmod 2 = 0 \,]`."""
    return np.broadcast_to(np.arange(n_k) % 2 == 0, (n_q, n_k)).copy()


EVEN = ac.Option(
    "even keys",
    "Only the keys at even positions 0, 2, 4, …",
    even_keys,
    formula=r"\hat S_{ij} = \begin{cases} \tilde S_{ij} & j \text{ even} \\ -\infty & "
    r"j \text{ odd} \end{cases}",
    words="Every query may look only at the keys in even positions. The odd columns are grey "
    "and get weight 0.",
)


@pytest.fixture
def even_mask() -> Iterator[str]:
    """The mask "even", registered for one test only."""
    ac.MASKS.register("even", EVEN)
    try:
        yield "even"
    finally:
        ac.MASKS.unregister("even")


def run_page(**params: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_a_mask_registered_in_one_place_is_offered_explained_and_computed(even_mask: str) -> None:
    at = run_page(text=SENTENCE, mask=even_mask, view="4 Weights", numbers="true")
    assert not at.exception, [exception.value for exception in at.exception]
    assert not at.error and not at.warning

    # Offered: a choice of the mask widget, chosen by the link, its help in the widget's help.
    widget = at.selectbox(key="mask")
    assert even_mask in widget.options
    assert widget.value == even_mask
    assert "**even** (even keys): Only the keys at even positions 0, 2, 4, …" in widget.help

    # Explained: the masked step shows the entry's formula and plain words.
    assert f"$$\n{EVEN.formula}\n$$" in [latex.value for latex in at.latex]
    assert EVEN.words in [markdown.value for markdown in at.markdown]

    # Computed: the drawn weights are masked exactly on the odd keys; each row sums to 1.
    forbidden = np.arange(6) % 2 == 1
    spec = next(
        spec
        for spec in figures(at)
        if spec["layout"]["title"]["text"] == "Attention weights · head 1"
    )
    plotted = decode_array(spec["data"][0]["z"])  # (6, 6), NaN where masked
    assert np.isnan(plotted[:, forbidden]).all()
    assert not np.isnan(plotted[:, ~forbidden]).any()
    np.testing.assert_allclose(plotted[:, ~forbidden].sum(axis=1), 1.0, rtol=1e-6)
    table = at.dataframe[3].value.to_numpy()  # the weights as numbers: 0 where forbidden
    assert (table[:, forbidden] == 0).all()
    assert (table[:, ~forbidden] > 0).all()


def test_a_withdrawn_mask_is_no_longer_a_choice() -> None:
    ac.MASKS.register("even", EVEN)
    ac.MASKS.unregister("even")
    assert "even" not in ac.MASKS
    with pytest.raises(ac.InputError, match="Unknown mask 'even'"):
        ac.AttentionConfig(mask="even")
