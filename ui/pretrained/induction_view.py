"""The induction experiment on "Turn heads off": the strongest induction heads off, one, three,
then ten, against as many random heads; copying accuracy as a bar chart, in words and as a
table, all from one :class:`~attention_core.pretrained.induction_experiment.Experiment`
(computed once per server, ``ui.pretrained.ablation_runs``).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention_core.pretrained.induction_experiment import RANDOM_SEEDS, Experiment
from ui.pretrained.ablation_runs import experiment
from ui.pretrained.decoder_figures import experiment_alt, experiment_bars
from ui.pretrained.passes import COPY_LENGTH
from ui.pretrained.state import PretrainedState
from ui.shared.heads_off import head_label
from ui.shared.matrix_view import chart
from ui.shared.safe import show_info

SEEDS = ", ".join(map(str, RANDOM_SEEDS))


def plural(size: int) -> str:
    return f"{size} head{'s' if size > 1 else ''}"


def bars_of(found: Experiment) -> tuple[list[str], list[float], list[bool]]:
    """Labels, accuracies and which runs turned the top induction heads off, in chart order."""
    labels, values, induction = ["every head on"], [found.intact], [False]
    for row in found.rows:
        labels += [
            f"top {plural(row.size)} off (induction)",
            f"{plural(row.size)} at random off (mean of {len(RANDOM_SEEDS)})",
        ]
        values += [row.top_accuracy, row.random_mean]
        induction += [True, False]
    return labels, values, induction


def experiment_frame(found: Experiment) -> pd.DataFrame:
    """One row per size: the heads, the accuracy without them, each random draw's and their mean."""
    rows = []
    for row in found.rows:
        rows.append(
            {
                "heads off": row.size,
                "top induction heads": ", ".join(head_label(*head) for head in row.top),
                "accuracy, top heads off": round(row.top_accuracy, 3),
                **{
                    f"accuracy, random (seed {seed})": round(value, 3)
                    for seed, value in zip(RANDOM_SEEDS, row.random_accuracies, strict=True)
                },
                "accuracy, random (mean)": round(row.random_mean, 3),
            }
        )
    return pd.DataFrame(rows)


def experiment_words(found: Experiment) -> str:
    """What the chart shows, in a sentence per size."""
    parts = [
        f"with the top {plural(row.size)} off it falls to {row.top_accuracy:.0%}, with "
        f"{plural(row.size)} drawn at random to {row.random_mean:.0%} on average"
        for row in found.rows
    ]
    return f"With every head on the model copies {found.intact:.0%} of the second copy; " + (
        "; ".join(parts) + "."
    )


def experiment_section(state: PretrainedState) -> None:
    st.subheader("The induction experiment")
    found = experiment(state.model)
    if not found.rows:
        show_info("This model has too few heads to turn some off and keep as many as a control.")
        return
    sizes = ", ".join(str(row.size) for row in found.rows)
    st.markdown(
        f'Turn off the heads with the highest induction score ("Heads that copy"): {sizes} of '
        "them, and measure the copying accuracy: the share of the second copy's "
        f"{COPY_LENGTH - 1} predictable tokens the model guesses first. As a control, turn off "
        f"as many heads drawn at random from the others (not among the top {found.rows[-1].size})"
        f", with seeds {SEEDS}, and average the {len(RANDOM_SEEDS)} draws. Heads are zeroed."
    )
    labels, values, induction = bars_of(found)
    chart(
        experiment_bars(labels, values, induction, state.style),
        key="induction_experiment",
        alt=experiment_alt(labels, values),
    )
    st.markdown(experiment_words(found))
    st.dataframe(experiment_frame(found), hide_index=True, width="stretch")
