"""Groups of series: models (Group, Member, Rule, Tag), the rule language (rules),
the one resolution function (resolve.resolve), saving with checks (edit) and tags (tags)."""
