from django.apps import AppConfig


class TalkersConfig(AppConfig):
    """Top talkers: the busiest (or least used) ports, VPs and VCs over any window, network-wide,
    per switch, per poller group or per group, from the rollup tiers. A page app: it only reads."""
    name = "webapp.talkers"
    label = "talkers"
