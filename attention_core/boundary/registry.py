r"""Every choice a user makes about a run, defined once: one :class:`Option` each.

An option holds everything about a choice: its label and help (the widget),
its builder (the core dispatches through ``table[name].build``), its formula and
plain words (the page's stage text) and the inputs it needs beyond the choice
itself (a sliding window's width, the padding tokens, a grid). Each table is a
:class:`Registry`; adding a choice is one call, ``MASKS.register(name, Option(...))``,
and every widget, stage text and page reads it from there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from attention_core.boundary.errors import InputError

if TYPE_CHECKING:
    from attention_core.maths.projections import Projections

# The inputs a choice may need besides its name (see Option.needs).
WINDOW = "window"  #: a sliding window's width w
PADDING = "padding"  #: which key tokens are padding
GRID = "grid"  #: a (T, S) grid of allowed pairs drawn by the user
TEMPERATURE = "temperature"  #: the temperature τ


@dataclass(frozen=True)
class Option:
    """One choice: what a widget shows, what it runs, how a page explains it.

    ``label``/``help``: the widget's text; ``build``: the function the core
    calls; ``code``: the functions whose source "The code" shows when ``build``
    only adapts their signature; ``formula`` (LaTeX) and ``words`` (two plain
    sentences): the stage text for this choice; ``needs``: the inputs it takes
    besides its name (:data:`WINDOW`, :data:`PADDING`, :data:`GRID`, :data:`TEMPERATURE`).

    What a choice changes beyond its own stage, so that pages ask the entry
    instead of testing its name: ``rotary_base``: the base θ with which attention
    rotates each head's queries and keys by position (RoPE), None to leave them as
    projected; ``formulas``: the formulas of other stages it rewrites (stage key ->
    LaTeX); ``more_code``: the functions it adds to other stages' code (stage key ->
    functions); ``shows``: the extra stages a page draws before this one (the heads
    side by side before :math:`W^O`); ``caption``: the learned numbers it uses, in
    words (the heads' weights), made from the run's projections.
    """

    label: str
    help: str
    build: Callable[..., Any]
    code: tuple[Callable[..., Any], ...] = ()
    formula: str = ""
    words: str = ""
    needs: frozenset[str] = frozenset()
    rotary_base: float | None = None
    formulas: Mapping[str, str] = field(default_factory=dict, compare=False)
    more_code: Mapping[str, tuple[Callable[..., Any], ...]] = field(
        default_factory=dict, compare=False
    )
    shows: tuple[str, ...] = ()
    caption: Callable[[Projections], str] | None = None

    @property
    def shown(self) -> tuple[Callable[..., Any], ...]:
        """The functions that compute this choice, for "The code"."""
        return self.code or (self.build,)


class Registry(Mapping[str, Option]):
    """The choices of one kind by name (the name a config and a link hold), in offer order.

    ``what`` names the kind in messages ("mask"); ``label`` and ``help`` are the
    widget's own label and the sentence above the choices' help.
    """

    def __init__(self, what: str, label: str, help: str) -> None:
        self.what, self.label, self.help = what, label, help
        self._options: dict[str, Option] = {}

    def register(self, name: str, option: Option) -> Option:
        """Offer ``option`` as ``name`` everywhere (widgets, configs, stage texts)."""
        if name in self._options:
            raise ValueError(f"A {self.what} called {name!r} is already registered.")
        self._options[name] = option
        return option

    def unregister(self, name: str) -> None:
        """Withdraw the choice ``name`` (tests that register one clean up with this)."""
        del self._options[name]

    def __getitem__(self, name: str) -> Option:
        return self._options[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._options)

    def __len__(self) -> int:
        return len(self._options)

    def taking(self, inputs: frozenset[str] | set[str]) -> tuple[str, ...]:
        """The names of the choices that need no input besides ``inputs``."""
        return tuple(name for name, option in self.items() if option.needs <= inputs)


def choose(table: Mapping[str, Option], name: object, what: str) -> Option:
    """The option called ``name``, or an InputError that lists the choices."""
    if not isinstance(name, str) or name not in table:
        raise InputError(f"Unknown {what} {name!r}; choose one of: {', '.join(table)}.")
    return table[name]
