r"""Every choice a user makes about a run, defined once: one :class:`Option` each.

An option holds everything about a choice: its label and help (the widget),
its builder (the core dispatches through ``table[name].build``), its formula and
plain words (the page's stage text) and the inputs it needs beyond the choice
itself (a sliding window's width, the padding tokens, a grid). Each table is a
:class:`Registry`; adding a choice is one call, ``MASKS.register(name, Option(...))``,
and every widget, stage text and page reads it from there.

A :class:`Table` is the same pattern for entries that are not a user's choice (the
pretrained page's stages of each model family): one entry per name, registered once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

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


Entry = TypeVar("Entry")


class Table(Mapping[str, Entry]):
    """Entries of one kind by name, in the order they were registered; ``what`` names the kind
    in messages ("mask")."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._entries: dict[str, Entry] = {}

    def register(self, name: str, entry: Entry) -> Entry:
        """Offer ``entry`` as ``name`` to everything that reads the table (widgets, stage texts)."""
        if name in self._entries:
            raise ValueError(f"A {self.what} called {name!r} is already registered.")
        self._entries[name] = entry
        return entry

    def unregister(self, name: str) -> None:
        """Withdraw the entry ``name`` (tests that register one clean up with this)."""
        del self._entries[name]

    def __getitem__(self, name: str) -> Entry:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


class Registry(Table[Option]):
    """The choices of one kind by name (the name a config and a link hold), in offer order.

    ``what`` names the kind in messages ("mask"); ``label`` and ``help`` are the
    widget's own label and the sentence above the choices' help.
    """

    def __init__(self, what: str, label: str, help: str) -> None:
        super().__init__(what)
        self.label, self.help = label, help

    def taking(self, inputs: frozenset[str] | set[str]) -> tuple[str, ...]:
        """The names of the choices that need no input besides ``inputs``."""
        return tuple(name for name, option in self.items() if option.needs <= inputs)


def choose(table: Mapping[str, Option], name: object, what: str) -> Option:
    """The option called ``name``, or an InputError that lists the choices."""
    if not isinstance(name, str) or name not in table:
        raise InputError(f"Unknown {what} {name!r}; choose one of: {', '.join(table)}.")
    return table[name]
