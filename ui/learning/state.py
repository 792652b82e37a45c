"""The learning page's settings: the task, the model and training widgets, the link's keys.

:func:`read_state` draws the controls and returns a :class:`LearningState`.
Widget keys are ``learn_<task>_<setting>``: each task keeps its own settings in
a link.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

import attention_core as ac
from attention_core.boundary import limits
from attention_core.learning.config import DEFAULTS, TinyTransformerConfig, check_task_training
from attention_core.learning.tasks import TASKS
from attention_core.training.config import TrainingConfig
from ui.figures.style import FigureStyle
from ui.shared import page_mode
from ui.shared.control_source import Controls
from ui.shared.presentation import current_style
from ui.shared.safe import show_error
from ui.shared.url import BIND

PREFIX = "learn_"
LEARNING_RATES = (0.001, 0.003, 0.01, 0.03)
D_MODELS = (16, 32, 64)
SETTINGS = ("layers", "heads", "d_model", "mlp", "lr", "steps", "seed")

TASK_WORDS = {
    "reverse": "Eight digits in, the same digits reversed out. Every output position must read "
    "one input position, n−1−i: the ideal head is the **anti-diagonal**. No mask: a position "
    "may look ahead.",
    "sort": "minGPT's demo: six symbols from {0, 1, 2}, then their sorted copy, one token at a "
    "time (causal mask). To write the next output symbol, a head should look at the input "
    "positions that hold it.",
    "induction": "Random letters, then a few distinct letters twice. Inside the repeat, the "
    "next letter is the one that followed this letter the last time. The textbook circuit "
    "(Olsson et al. 2022) uses two heads: a **previous-token** head in layer 1 writes each "
    "letter's predecessor into it, and an **induction** head in layer 2 looks at the letter "
    "after the latest earlier copy of the current one. The scores above each head say how "
    "close this tiny model comes. With the default settings (two heads per layer), both "
    "heads formed for every seed from 0 to 29, and the loss drops as they do; change the "
    "settings and the model may find a blurrier mix that works as well. Slide back through "
    "training and watch what it tries. Causal mask.",
}


def task_key(task: str, name: str) -> str:
    """The widget and URL key of one of ``task``'s widgets: ``learn_<task>_<name>``."""
    return f"{PREFIX}{task}_{name}"


#: Every URL key the page binds, per task (a link holds the open task's keys).
URL_KEYS: dict[str, tuple[str, ...]] = {
    task: (
        f"{PREFIX}task",
        task_key(task, "replay"),
        task_key(task, "probe"),
        task_key(task, "off"),  # the heads turned off (ui.learning.heads_off)
        task_key(task, "off_kind"),
        task_key(task, "sweep"),  # the sweep shown
        *(task_key(task, name) for name in SETTINGS),
    )
    for task in TASKS
}


@dataclass(frozen=True)
class LearningState:
    """What the controls say: the task, its checked model and training configs, the style."""

    task: str
    model: TinyTransformerConfig
    train: TrainingConfig
    style: FigureStyle


def training_settings(task: str, source: Controls) -> tuple[TinyTransformerConfig, TrainingConfig]:
    """``task``'s settings read from ``source`` (its defaults train to 99 % in seconds): the
    widgets, or a follower's list of the teacher's; checked configs."""
    model, train = DEFAULTS[task]
    key = task_key(task, "")
    first, second, third, fourth = source.columns(4)
    with first:
        layers = source.radio("Layers", (1, 2), model.n_layers - 1, f"{key}layers")
    with second:
        heads = source.radio(
            "Heads per layer", (1, 2, 4), (1, 2, 4).index(model.n_heads), f"{key}heads"
        )
    with third:
        d_model = source.select_slider("d_model", D_MODELS, model.d_model, f"{key}d_model")
    with fourth:
        mlp = source.toggle(
            "MLP after attention",
            f"{key}mlp",
            "Off: attention only, as in Olsson et al.'s induction-head models.",
            value=model.mlp,
        )
    first, second, third = source.columns(3)
    with first:
        rate = source.select_slider(
            "Learning rate", LEARNING_RATES, train.learning_rate, f"{key}lr"
        )
    with second:
        steps = source.slider(
            "Step budget",
            100,
            limits.MAX_LEARNING_STEPS,
            train.steps,
            f"{key}steps",
            "Training stops at 100 % held-out accuracy, or here, or after "
            f"{train.max_seconds:g} s, whichever comes first.",
            step=100,
        )
    with third:
        seed = source.number_input(
            "Seed",
            0,
            limits.MAX_SEED,
            0,
            f"{key}seed",
            "Sets the initial weights and the training batches.",
        )
    source.done()
    model = TinyTransformerConfig(task, int(layers), int(heads), int(d_model), bool(mlp))
    chosen = replace(train, learning_rate=float(rate), steps=int(steps), seed=int(seed))
    return model, check_task_training(chosen)


def read_state() -> LearningState:
    """The task picker with its description, then the settings; stops on settings it refuses."""
    style = current_style()
    task = st.radio(
        "Task",
        list(TASKS),  # bound widgets put the option text in the link: short words
        horizontal=True,
        key=f"{PREFIX}task",
        bind=BIND,
    )
    st.markdown(TASK_WORDS[task])
    with st.expander("Model and training settings", icon=":material/tune:"):
        try:
            model, train = page_mode.current().read_settings(
                lambda source: training_settings(task, source)
            )
        except ac.InputError as error:
            show_error(str(error))
            st.stop()
    return LearningState(task, model, train, style)
