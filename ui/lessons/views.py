"""A lesson step's view, checked as each page checks its link, before any page runs.

A step's view is a link: its page and its query parameters. :func:`check_view` refuses,
naming the step and the setting, what the page's link would not take:

* a setting the page does not bind to its link (not in its ``URL_KEYS``);
* a number beyond float range, which every link loses before its page runs
  (:func:`ui.shared.url.overflowing`);
* a model setting that is not one the page's own widgets write or offer, read by the very
  function that reads a follower's link (:class:`ui.classroom.listed_settings.FromLink` over
  :func:`ui.shared.controls.model_settings`), and a combination the core refuses.

A setting with several values (a multiselect's) travels packed under ``class_lists``, as
a class's view carries it (:mod:`hosting.classroom.views`); each name in it must be one
the page binds. The pages' other settings (a view, a head, a layer …) are checked by their
widgets when the step opens, as for any link (:func:`ui.shared.url.warn_rejected`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

import attention_core as ac
from attention_core.learning.tasks import TASKS
from attention_core.teaching.lesson import Lesson, LessonStep
from hosting.classroom.views import LISTS_PARAM, unpack_lists
from ui.classroom.listed_settings import FromLink, NotPlainError
from ui.learning import state as learning
from ui.positional_encoding import state as positional_encoding
from ui.pretrained import state as pretrained
from ui.shared import url
from ui.shared.control_source import Controls
from ui.shared.controls import ControlOptions, model_settings
from ui.text import state as text
from ui.time_series import state as time_series
from ui.walkthrough import state as walkthrough


@dataclass
class StepLink(FromLink):
    """A lesson step's query parameters, read as :class:`FromLink` reads a link's."""

    params: Mapping[str, str] = field(default_factory=dict)

    def _raw(self, key: str) -> str | None:
        return self.params.get(key)

    def done(self) -> None:
        """Nothing is drawn: the step is only checked."""


def _learning_keys(params: Mapping[str, str]) -> Collection[str]:
    """The open task's keys (a learning link holds one task's settings)."""
    task = params.get(f"{learning.PREFIX}task", next(iter(TASKS)))
    if task not in learning.URL_KEYS:
        raise NotPlainError(f"{learning.PREFIX}task")  # the task radio offers no such task
    return learning.URL_KEYS[task]


@dataclass(frozen=True)
class PageLink:
    """What a page's link may hold, and the page's own reading of it (None: its widgets')."""

    keys: Callable[[Mapping[str, str]], Collection[str]]
    read: Callable[[Controls], object] | None = None


def _keys(keys: Collection[str]) -> Callable[[Mapping[str, str]], Collection[str]]:
    return lambda params: keys


#: Every page a lesson step may show (``attention_core.teaching.lesson_schema.PAGE_QUESTIONS``).
PAGE_LINKS: dict[str, PageLink] = {
    "text": PageLink(
        _keys(text.URL_KEYS),
        lambda source: model_settings(source, text.PREFIX, ControlOptions()),
    ),
    "time_series": PageLink(
        _keys(time_series.URL_KEYS),
        lambda source: model_settings(source, time_series.PREFIX, time_series.OPTIONS),
    ),
    "positional_encoding": PageLink(_keys(positional_encoding.URL_KEYS)),
    "walkthrough": PageLink(_keys(walkthrough.URL_KEYS)),
    "learning": PageLink(_learning_keys),
    "pretrained": PageLink(_keys(pretrained.URL_KEYS)),
}


def _shown(key: str, raw: str) -> str:
    return f"{key}={url.shorten(raw)}"


def check_view(number: int, page: str, params: Mapping[str, str]) -> None:
    """Refuse step ``number``'s view as its page refuses a link: one InputError naming both."""
    where = f"Step {number}"
    if page not in PAGE_LINKS:
        raise ac.InputError(f'{where}: there is no page "{page}".')
    link = PAGE_LINKS[page]
    try:
        bound = link.keys(params)
        read = link.read or (lambda source: None)
        read(StepLink(hint="", params=params))
    except NotPlainError as error:
        key = str(error)
        raise ac.InputError(
            f"{where}: the {page} page refuses {_shown(key, params[key])}; "
            "open the view, set it there and copy its link."
        ) from None
    except ac.InputError as error:
        raise ac.InputError(f"{where}: {error}") from None
    lists = _lists(where, page, params)
    unknown = [key for key in [*params, *lists] if key not in bound and key != LISTS_PARAM]
    if unknown:
        raise ac.InputError(f'{where}: the {page} page has no setting "{unknown[0]}" in its link.')
    overflowing = url.overflowing(params)
    if overflowing:
        key, raw = next(iter(overflowing.items()))
        raise ac.InputError(f"{where}: the {page} page refuses {_shown(key, raw)}.")


def _lists(where: str, page: str, params: Mapping[str, str]) -> list[str]:
    """The names of the settings with several values that ``params`` packs (a multiselect's,
    packed as a class packs them: :mod:`hosting.classroom.views`)."""
    if LISTS_PARAM not in params:
        return []
    lists = unpack_lists(params[LISTS_PARAM])
    if not lists or set(lists) & set(params):
        raise ac.InputError(
            f"{where}: the {page} page cannot read its settings of several values "
            f"({_shown(LISTS_PARAM, params[LISTS_PARAM])}); open the view and add it again."
        )
    return list(lists)


def check_step(number: int, step: LessonStep) -> None:
    check_view(number, step.page, step.params)


def check_lesson(lesson: Lesson) -> None:
    """Every step's view, in order; the first one refused raises."""
    for number, step in enumerate(lesson.steps, start=1):
        check_step(number, step)
