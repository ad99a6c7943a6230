"""Who changed which switch, host, link, credential or experiment run, and when.

context.py holds the acting person or process (a contextvar set by the middleware, the
management commands and token authentication); capture.py turns saves and deletes of the
models registered in tracked.py into AuditEvent rows (models.py), secrets only as
set/changed/cleared; admin.py shows them read-only to those with audit.view_auditevent.
"""
