"""The play site: an ASGI app (FastAPI) over the game protocol, with SQLite/PostgreSQL storage.

Start it with ``ringgames serve``; build it in code with :func:`ringgames.server.app.create_app`.
"""
