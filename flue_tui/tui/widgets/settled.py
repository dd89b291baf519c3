"""The streaming root reply's widgets take the size a layout gives them without asking for a
second layout (issue 28).

Textual's `Widget.virtual_size` is a reactive with `layout=True`: when a layout gives a widget a
new size, setting it asks for another layout of the whole screen, and its repaint marks the whole
widget dirty. A growing reply changes the size of the conversation, the reply, its Markdown and
its newest blocks on every flush, so every frame was laid out and composited twice, the second
time finding the same geometry. While `settling`, the size is only recorded (as Textual itself
does when it scrolls): the layout that set it already placed everything at that size, the
scrollbars follow it directly (`_scroll_update`), and a widget whose size changed is repainted by
the layout itself. The same for a layout asked before the widget is mounted (a Markdown block
gets its text before its Markdown mounts it): mounting lays out the parent (Textual's
`AwaitMount` refreshes it with `layout=True`), so the block's own request came due right after
that layout, as a second one.

Only the live reply at the conversation's root settles, and only while it streams. Doing it for
every reply (c5c8064) was reverted (f2eeb04): a resumed task's steps shown with Ctrl+O once kept
their old height. The cause was Textual's note of what a layout must redo (fixed in
tui/screens/main.py), and the second layouts removed here were what usually mended it; a
finished reply, a resumed or backfilled one and a task child's are left to Textual all the same,
and a reply's last frame (its entry done) is laid out the ordinary way.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Self, TypeVar, cast

from textual.geometry import Region, Size
from textual.widget import Widget

W = TypeVar("W", bound=Widget)

# A plain class at run time: Textual takes a class's CSS type names (what `MarkdownBlock` or
# `VerticalGroup` rules and queries match) from its first DOMNode base, which must stay the
# Textual class. Typed as a Widget for the overrides below.
_Mixin = Widget if TYPE_CHECKING else object


class Settled(_Mixin):
    """A mixin, before the Textual base class: `class ReplyView(Settled, VerticalGroup)`. A
    subclass says when it settles; by default a Settled widget settles when its parent does."""

    @property
    def settling(self) -> bool:
        parent = self.parent
        return isinstance(parent, Settled) and parent.settling

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=layout and not self.settling)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if layout and not self.is_mounted and self.settling:
            layout = False
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


class SettledBlock(Settled):
    """A block made while its Markdown settled: settling with it once mounted, and before its
    mount (no parent yet), since its Markdown only makes such blocks while it settles."""

    @property
    def settling(self) -> bool:
        parent = self.parent
        return parent is None or (isinstance(parent, Settled) and parent.settling)


@cache
def settled(cls: type[W]) -> type[W]:
    """`cls` (a Textual class, e.g. a Markdown block) as a SettledBlock subclass of the same name,
    so the stylesheet's rules for `cls` apply to it unchanged."""
    return cast("type[W]", type(cls.__name__, (SettledBlock, cls), {"__module__": __name__}))
