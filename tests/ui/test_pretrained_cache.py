"""The pretrained page's figures: built once per server, shared unchanged by every session."""

from __future__ import annotations

import json

import plotly.io
import pytest
from streamlit.testing.v1 import AppTest

from tests.plotly_specs import figures, held, walkable_matrices
from tests.views.expanders import open_expanders
from tests.views.pretrained_pages import PLOTLY, WALK_ONE, page
from ui.figures.style import NORMAL
from ui.pretrained import cache
from ui.pretrained.models import BUNDLED_KEY
from ui.pretrained.passes import PageModel
from ui.pretrained.stage_table import stage_matrix
from ui.pretrained.stages import FAMILY_STAGES
from ui.pretrained.state import PretrainedState, default_query
from ui.shared.walkable_data import selecting

TEXT = "A sentence only the shared-figure tests use, 4c1e."


def state_for(text: str, layer: int = 1, head: int = 1) -> PretrainedState:
    """The page's state for ``text`` on the bundled model, as a session opening it has."""
    model = PageModel(BUNDLED_KEY)
    encoded = model.encode(text)
    query = default_query(encoded)
    trace = model.trace(encoded)
    return PretrainedState(model, text, None, encoded, trace, layer, head, query, False, NORMAL)


def head_view_of(state: PretrainedState, query: int | None) -> cache.CachedChart:
    return cache.head_view_drawn(
        digest=state.digest,
        layer=state.layer,
        heads=(state.head,),
        query=query,
        style=state.style,
        _state=state,
    )


def test_a_builder_returns_the_same_object_for_the_same_view_and_another_for_another() -> None:
    state, again = state_for(TEXT), state_for(TEXT)
    assert state.digest == again.digest and state is not again
    first = head_view_of(state, state.query)
    assert head_view_of(again, state.query) is first
    assert head_view_of(state, None) is not first
    other = state_for(TEXT + " More.")
    assert other.digest != state.digest
    assert head_view_of(other, other.query) is not first


def test_every_steps_heatmaps_are_one_shared_object_per_layer_and_head() -> None:
    state = state_for(TEXT)
    steps = state.steps(state.layer)
    stage = FAMILY_STAGES["bert"].layer_stages(state.model.info, state.layer)["weights"]
    shown = (("weights", stage, stage_matrix(steps, "weights", state.head), "Attention weights"),)

    def built(head: int) -> dict[str, cache.CachedChart]:
        return cache.stage_figures(
            digest=state.digest,
            layer=state.layer,
            head=head,
            steps=("weights",),
            style=NORMAL,
            _state=state,
            _steps=shown,
        )

    assert built(0) is built(0)
    assert built(0) is not built(2)


def test_two_sessions_on_one_view_build_its_head_view_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    original = cache.head_view

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(cache, "head_view", counting)
    text = TEXT + " Counted."
    first = page(text=text, view="Head view", layer="2")
    second = page(text=text, view="Head view", layer="2")
    assert len(calls) == 1
    assert figures(first) == figures(second)


def shared_figures_of(view: str, state: PretrainedState) -> list[cache.CachedChart]:
    """The shared charts a session on ``view`` drew, in page order (cache hits: a miss would
    build others)."""
    if view == "Head view":
        return [
            head_view_of(state, state.query),
            cache.head_weights_drawn(  # the drawn head's weights, walkable
                digest=state.digest, layer=1, head=1, style=NORMAL, _state=state
            ),
        ]
    if view == "Model view":
        return [
            cache.model_view_drawn(
                digest=state.digest, first=0, stop=6, style=NORMAL, _state=state
            ),  # the bundled model's 6 layers are one group
            cache.head_weights_drawn(
                digest=state.digest, layer=1, head=1, style=NORMAL, _state=state
            ),
        ]
    if view == "Rollout":
        return [cache.rollout_drawn(digest=state.digest, layer=1, style=NORMAL, _state=state)]
    shown = tuple(FAMILY_STAGES["bert"].layer_stages(state.model.info, 1))
    built = cache.stage_figures(  # the page's steps; already built by its run
        digest=state.digest,
        layer=1,
        head=1,
        steps=shown,
        style=NORMAL,
        _state=state,
        _steps=(),
    )
    assert len(built) == len(shown), "the page's run built the shared step figures"
    return list(built.values())


def every_chart_opened(at: AppTest) -> AppTest:
    """``at`` rerun with every chart sent whole: each walkable matrix's plotly heatmap, and a
    grid's first matrix walked."""
    for label in (PLOTLY, WALK_ONE):
        open_expanders(at, label)
    assert not at.exception, [e.value for e in at.exception]
    return at


def sent(chart: cache.CachedChart) -> str:
    """Everything a shared chart holds, as the text it is sent as: its figure and walk data."""
    return held(chart.figure) + json.dumps(chart.walk)


@pytest.mark.parametrize("view", ["Head view", "Model view", "Every step", "Rollout"])
def test_a_second_session_draws_the_same_spec_and_leaves_the_shared_figures_as_they_were(
    view: str,
) -> None:
    text = f"{TEXT} {view}."
    first = every_chart_opened(page(text=text, view=view, layer="2"))
    state = state_for(text)
    shown = shared_figures_of(view, state)
    before = [sent(chart) for chart in shown]
    second = every_chart_opened(page(text=text, view=view, layer="2"))
    assert figures(first) == figures(second)
    assert [sent(chart) for chart in shown] == before
    # what the sessions drew is what the shared charts send: each plotly figure, then each
    # walkable matrix (a lone matrix's, and a grid's first one) unselected
    assert [json.loads(plotly.io.to_json(c.figure, validate=False)) for c in shown] == [
        json.loads(chart.proto.spec) for chart in second.get("plotly_chart")
    ]
    walked = [json.loads(json.dumps(selecting(c.walk[0], None))) for c in shown if c.walk]
    assert walked == [spec["walkable"] for spec in walkable_matrices(second)]
