"""Lists the server hands out a page at a time (`page_size`, `page_token`, `next_page_token`):
the SDK's one loop that follows the tokens, and the one that stops at a count.

>>> import asyncio
>>> asked = []
>>> async def page(token):  # three pages of two: "", "2", "4"; the last has no next token
...     asked.append(token)
...     start = int(token or 0)
...     return [start, start + 1], str(start + 2) if start < 4 else ""
>>> asyncio.run(first(every(page), 3)), asked
([0, 1, 2], ['', '2'])
>>> asked.clear(); asyncio.run(first(every(page), 100)), asked
([0, 1, 2, 3, 4, 5], ['', '2', '4'])
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


async def every(page: Callable[[str], Awaitable[tuple[Iterable[T], str]]]) -> AsyncIterator[T]:
    """Every item of a paged list, in order: `page(token)` answers one page's items and the
    next page's token ("" after the last page); the first page is asked for with ""."""
    token = ""
    while True:
        items, token = await page(token)
        for item in items:
            yield item
        if not token:
            return


async def first(items: AsyncIterator[T], limit: int) -> list[T]:
    """The first `limit` of `items` (none for 0): no further page is asked for once there
    are enough."""
    out: list[T] = []
    if limit <= 0:
        return out
    async for item in items:
        out.append(item)
        if len(out) >= limit:
            break
    return out
