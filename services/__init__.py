"""The app processes of `make run`, under this checkout's supervisord: which programs and how
they run (programs.py), driving supervisord (supervisor.py), and `python -m services
up|stop|status` (__main__.py). Standard library only; provisioning stays in scripts/."""
