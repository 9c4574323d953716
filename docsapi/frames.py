"""The public face of :mod:`docsapi.data.frames`, the data layer's list functions and schemas."""

from docsapi.data import frames as _frames
from docsapi.data.frames import *  # noqa: F403

__all__ = _frames.__all__
__doc__ = _frames.__doc__
