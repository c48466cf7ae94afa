"""``tvm.tir`` (TileLang's IR) is not provided: importing it says so."""

from .tvm import *  # noqa: F401,F403 (raises the ImportError)
