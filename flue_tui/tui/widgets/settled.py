"""Widgets that take the size a layout gives them without asking for a second layout.

Textual's `Widget.virtual_size` is a reactive with `layout=True`: when a layout gives a widget a
new size, setting it asks for another layout of the whole screen, and its repaint marks the whole
widget dirty. A growing reply changes the size of the conversation, the reply, its Markdown and
its newest blocks on every flush, so every frame was laid out and composited twice, the second
time finding the same geometry (about a third of a frame's layout and compositing, issue 28).
Here the size is only recorded: the layout that set it already placed everything at that size,
the scrollbars follow it directly (`show_vertical_scrollbar` is its own layout reactive), and a
widget whose size changed is repainted by the layout itself.

For containers whose height is their content's (`height: auto`) and for the scroll view holding
them; not for widgets that set their own `virtual_size` (a ScrollView such as TextArea).

The same for a layout asked before the widget is mounted (a Markdown block gets its text before
its Markdown mounts it): mounting lays out the parent (Textual's `AwaitMount` refreshes it with
`layout=True`), so the block's own request came due right after that layout, as a second one.
Only for widgets mounted with an awaited mount or composed, as all of these are.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Self, TypeVar, cast

from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.widget import Widget

W = TypeVar("W", bound=Widget)

# A plain class at run time: Textual takes a class's CSS type names (what `MarkdownBlock` or
# `VerticalGroup` rules and queries match) from its first DOMNode base, which must stay the
# Textual class. Typed as a Widget for the override below.
_Mixin = Widget if TYPE_CHECKING else object


class Settled(_Mixin):
    """A mixin, before the Textual base class: `class ReplyView(Settled, VerticalGroup)`."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        layout = layout and self.is_mounted
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


@cache
def settled(cls: type[W]) -> type[W]:
    """`cls` (a Textual class, e.g. a Markdown block) as a Settled subclass of the same name, so
    the stylesheet's rules for `cls` apply to it unchanged."""
    return cast("type[W]", type(cls.__name__, (Settled, cls), {"__module__": __name__}))
