"""Tables of the groups app: groups, their static members and rules, and tags on inventory objects.

A group's members are its static series (Member) plus every series its rules (Rule, one line of
the rule language of rules.py each) match; resolve.resolve computes them. Rules are kept as the
text the operator wrote and parsed again at each resolution (one parser, no second copy of the
meaning in columns). Tags name switches, ports, VPs or VCs for rules (`tag=transit`).
"""
from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q

from collector.archive.models import Series
from collector.inventory.models import Port, Switch, VirtualChannel, VirtualPath

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,99}$"
NAME_RULE = "1 to 100 characters: letters, digits, spaces, '.', '_', '/' or '-', not starting with a sign"
TAG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
TAG_RULE = "1 to 64 characters: letters, digits, '.', '_' or '-' (no spaces)"


class Group(models.Model):
    name = models.CharField(max_length=100, unique=True, validators=[RegexValidator(NAME_PATTERN, NAME_RULE)],
                            help_text=NAME_RULE)
    description = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "groups_group"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Member(models.Model):
    """A series chosen by hand (a static member)."""
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="members")
    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="+")

    class Meta:
        db_table = "groups_member"
        constraints = [models.UniqueConstraint(fields=["group", "series"], name="group_member_unique")]


class Rule(models.Model):
    """One rule line: every series matching all of its conditions is a member (rules.py)."""
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="rules")
    position = models.PositiveSmallIntegerField(default=0)
    text = models.CharField(max_length=500, help_text="e.g. switch=asx* port=A* entity=vc vpi=0-15 direction=in")

    class Meta:
        db_table = "groups_rule"
        ordering = ["group", "position", "id"]


class Tag(models.Model):
    """A name on one switch, port, VP or VC (exactly one of them)."""
    name = models.CharField(max_length=64, validators=[RegexValidator(TAG_PATTERN, TAG_RULE)], help_text=TAG_RULE)
    switch = models.ForeignKey(Switch, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    port = models.ForeignKey(Port, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    vp = models.ForeignKey(VirtualPath, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    vc = models.ForeignKey(VirtualChannel, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "groups_tag"
        ordering = ["name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(switch__isnull=False, port__isnull=True, vp__isnull=True, vc__isnull=True)
                           | Q(switch__isnull=True, port__isnull=False, vp__isnull=True, vc__isnull=True)
                           | Q(switch__isnull=True, port__isnull=True, vp__isnull=False, vc__isnull=True)
                           | Q(switch__isnull=True, port__isnull=True, vp__isnull=True, vc__isnull=False)),
                name="tag_one_target"),
            models.UniqueConstraint(fields=["name", "switch", "port", "vp", "vc"], name="tag_unique",
                                    nulls_distinct=False),
        ]

    def __str__(self) -> str:
        return f"{self.name}: {self.target_text()}"

    def target_text(self) -> str:
        if self.switch is not None:
            return f"switch {self.switch.name}"
        if self.port is not None:
            return f"{self.port.switch.name} {self.port.name}"
        if self.vp is not None:
            return f"{self.vp.switch.name} {self.vp.port.name} VP:{self.vp.vpi}"
        if self.vc is not None:
            return f"{self.vc.switch.name} {self.vc.port.name} VP:{self.vc.vpi} VC:{self.vc.vci}"
        raise ValueError(f"tag {self.pk} has no target (the constraint tag_one_target forbids it)")
