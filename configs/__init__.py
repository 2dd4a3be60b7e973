"""Preset configurations, installed as ``meteorx.configs`` and read with importlib.resources."""
