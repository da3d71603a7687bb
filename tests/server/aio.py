"""Run a coroutine to completion on a fresh event loop in its own thread.

The browser tests' sync Playwright keeps an event loop running in the main thread for the whole
session, so ``asyncio.run`` there raises "cannot be called from a running event loop"."""

import asyncio
from concurrent.futures import ThreadPoolExecutor


def run(coro):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()
