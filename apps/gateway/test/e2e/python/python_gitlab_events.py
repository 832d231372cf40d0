"""A project's events through python-gitlab: filters (action, sort, before/after), pagination, a hidden project."""
import datetime
import json
import os

import gitlab

gl = gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=os.environ["GITLAB_TOKEN"])
project = gl.projects.get(int(os.environ["PROJECT_ID"]))
out = {}


def names(events):
    return [e.action_name for e in events]


out["all_asc"] = names(project.events.list(sort="asc", get_all=True))
pushed = project.events.list(action="pushed", sort="asc", get_all=True)
out["pushed"] = [[e.action_name, e.push_data["ref_type"], e.push_data["ref"]] for e in pushed]
out["pushed_authors"] = sorted({e.author_username for e in pushed})

today = datetime.datetime.now(datetime.timezone.utc).date()
day = datetime.timedelta(days=1)
out["before_tomorrow"] = len(project.events.list(before=(today + day).isoformat(), get_all=True))
out["after_yesterday"] = len(project.events.list(after=(today - day).isoformat(), get_all=True))
out["before_today"] = len(project.events.list(before=today.isoformat(), get_all=True))
out["after_today"] = len(project.events.list(after=today.isoformat(), get_all=True))

page = project.events.list(per_page=3, iterator=True)
out["pages"] = [page.total, page.total_pages, page.per_page]
out["page2"] = names(project.events.list(per_page=3, page=2, sort="asc"))

outsider = gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=os.environ["OUTSIDER_TOKEN"])
try:
    outsider.projects.get(project.id, lazy=True).events.list()
    out["outsider"] = "listed"
except gitlab.exceptions.GitlabListError as e:
    out["outsider"] = [e.response_code, e.error_message]

print(json.dumps(out))
