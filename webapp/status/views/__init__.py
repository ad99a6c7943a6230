"""Status pages: answered from what the collector already stored, never by polling on request.

Every page runs a fixed number of queries whatever the number of rows (tests count them), and
shows when each figure was measured. The only writes are the "check now" buttons (POST, login
required), which run one host check or one discovery + poll of a switch, then redirect back.

One module per family of pages (webapp/status/urls.py maps the URLs to them):
  dashboard    the dashboard, the switch list, the search
  hosts        table 1, one host, check a host now
  switches     one switch (tables 2b/2c), check a switch now, one port
  connections  table 2d (PVCs), figure 4 (VCCs of a switch), figure 3 (path between hosts), one VC traced
  common       what several of them share (URLs, 404s, lookups, health and summary, trace rows)
"""
