"""Numerics over archived series: bursts, cell accounting, TCP window advice, and the traffic
statistics of the analysis pages (gaps, summary, correlation, spectrum, Hurst estimators, stationarity,
selfsim). Pure: numpy, scipy, statsmodels, PyWavelets and collector.core.facts only, no Django (an
import-linter contract keeps it so); the pages and the API read the archive and call these
functions with arrays."""
