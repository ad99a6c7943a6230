"""Bills: a group of series billed per period by the 95th percentile of its summed
sample-interval rates, or by its volume (quota), from the raw archived deltas (models, periods,
samples, compute, closing; the numerics in numerics/billing.py)."""
