"""Two versions of a site and what moved the headline outputs between them: the versions (versions: files or a
git revision), what differs (diff), Shapley values (shapley), the bridge (bridge) and its report (report)."""

__all__ = ["bridge", "diff", "report", "shapley", "versions"]
