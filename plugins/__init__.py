"""First-party meteorx plugins, installed as the ``meteorx_plugins`` package.

Each module here is registered through the ``meteorx`` entry-point group in
``pyproject.toml``, exactly as a third-party plugin would be.
"""
