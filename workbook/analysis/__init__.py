"""What is computed from a defined book: scenarios as overlays (scenarios), the tornado (sensitivity), risk
ranges (risk), Shapley attributions (shapley) and the Summary that shows the results (summary)."""

__all__ = ["risk", "scenarios", "sensitivity", "shapley", "summary"]
