from django.apps import AppConfig


class OnboardPagesConfig(AppConfig):
    """Adding switches: by address (the credentials that answer, discovery, the first poll), from
    the candidates the network's neighbour claims and sweeps offer; and the progress of network
    jobs (add, sweep, check now), which the group's worker runs. Writes only through
    collector/poller/jobs.py."""
    name = "webapp.onboard"
    label = "onboard_pages"
