"""Groups of series (issue 15): models (Group, Member, Rule, Tag), the rule language (rules),
the one resolution function (resolve.resolve), saving with checks (edit) and tags (tags)."""
