"""WSGI entry point for gunicorn: `gunicorn webapp.wsgi:application`.

Once Django is loaded, everything it loaded (modules, settings, the app registry, the URLconf) is
moved out of the garbage collector's generations (gc.freeze): a request allocates enough objects to
trigger full collections, and each of those otherwise walked that whole heap again. The path page
(figure 10b's data) took 215 ms a request in a process with the heap unfrozen, 128 ms frozen.
"""
import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
application = get_wsgi_application()
get_resolver().check()          # the URLconf and the views it imports, loaded now to be frozen too
gc.collect()
gc.freeze()
