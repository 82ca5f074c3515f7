"""gpu-site-workbook: one site description in, a live, verified planning workbook out.

The API (workbook.api) from the package itself: `workbook.load(path)` -> Model, `workbook.build(path, out)`,
`workbook.save(model, out)`, `workbook.analysis.risk(path)`, `workbook.explain(old, new)`, `workbook.evaluation(model)`.
It is imported when first asked for, so `python -m workbook` and `workbook.__version__` stay light.
"""

from typing import Any

from workbook.version import __version__

__all__ = ["Model", "__version__", "build", "evaluation", "explain", "load", "risk", "save"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from workbook import api

        return getattr(api, name)
    raise AttributeError(f"module 'workbook' has no attribute {name!r}")
