"""Reading the archive: the one way pages, the API, the CLI, exports and analyses read what was polled.

selection (a request's series, range, resolution and unit: the query grammar shared by page, API,
CSV and CLI), catalog (series, their names and search), resolution (which tier or raw samples a
range reads), reading (plan and fetch: buckets, the raw tail, gaps with their reasons, p95),
queries (the SQL that knows the archive's array layout), points (numpy columns, gaps, statistics),
units (a counter's delta in bits/s, cells/s, % ...), csvrows (the COPY of exactly what a plot
shows), prefetch (a plot's buckets sent with its series). Above the inventory, archive, events and
groups; nothing here knows a request or a page.
"""
