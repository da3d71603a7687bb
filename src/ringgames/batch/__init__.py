"""Batched simulation: B games in one array, stepped by compiled kernels in parallel (pgx-style)."""

from __future__ import annotations

from .env import BatchedEnv, make

__all__ = ["BatchedEnv", "make"]
