"""The public face of :mod:`docsapi.data.models`, the data layer's model classes."""

from docsapi.data import models as _models
from docsapi.data.models import *  # noqa: F403

__all__ = _models.__all__
__doc__ = _models.__doc__
