"""The learning page's training config: the shared budget checks, with the page's own limits."""

from __future__ import annotations

from dataclasses import replace

import pytest

from attention_core.boundary.errors import InputError
from attention_core.learning.config import TASK_TRAINING, check_task_training


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"steps": 0}, "The number of training steps"),
        ({"batch_size": 513}, "The batch size"),
        ({"eval_every": 0}, "The evaluation interval"),
        ({"learning_rate": 0.2}, "The learning rate must be between 0.00001 and 0.1."),
        ({"max_seconds": 31.0}, "The time budget must be at most 30 seconds."),
        ({"extra_steps": -1}, "The extra steps must be between 0"),
        ({"weight_decay": 2.0}, "The weight decay must be between 0 and 1."),
        ({"target_accuracy": 0.0}, "The target accuracy must be in"),
    ],
)
def test_training_config_refuses_each_out_of_range_value(changes: dict, message: str) -> None:
    with pytest.raises(InputError) as refused:
        check_task_training(replace(TASK_TRAINING, **changes))
    assert str(refused.value).startswith(message)


def test_the_smallest_and_largest_learning_rates_are_accepted() -> None:
    assert replace(TASK_TRAINING, learning_rate=1e-5).learning_rate == 1e-5
    assert replace(TASK_TRAINING, learning_rate=0.1).learning_rate == 0.1
