"""python-gitlab against the stack: hook URLs saved without DNS, idempotent deletes, keyset links, project fields.

Run by apps/gateway/test/e2e/python-gitlab-parity.test.ts with GITLAB_URL and GITLAB_TOKEN. Each step records what
the client saw (an answer or the client's exception) in a JSON summary; the test asserts GitLab's behaviour on it.
"""
import itertools
import json
import os
import sys

import gitlab
import requests

url, token = os.environ["GITLAB_URL"], os.environ["GITLAB_TOKEN"]
session = requests.Session()
calls = []
session.hooks["response"].append(lambda r, *args, **kwargs: calls.append(r.request.url))
gl = gitlab.Gitlab(url, private_token=token, session=session)
gl.auth()
out = {}


def seen(fn):
    """The step's answer, or the client's exception as {"error": class, "code": status, "message": ...}."""
    try:
        return fn()
    except gitlab.exceptions.GitlabError as e:
        return {"error": type(e).__name__, "code": e.response_code, "message": str(e.error_message)}


project = gl.projects.create({"name": "py-parity"})

# Hook URLs: a host that does not resolve is saved (create and edit); a name resolving to a loopback address is not.
created = seen(lambda: project.hooks.create({"url": "http://hook.url", "push_events": True}))
out["hook_create_unresolvable"] = created if isinstance(created, dict) else {"url": created.url}
out["hook_create_example"] = seen(lambda: {"url": project.hooks.create({"url": "https://hooks.example.com/h"}).url})
out["hook_create_localhost"] = seen(lambda: {"url": project.hooks.create({"url": "http://localhost:9/h"}).url})
hook = project.hooks.list(get_all=True)[0] if project.hooks.list(get_all=True) else None
if hook is not None:
    def edit():
        hook.url = "http://still-not-resolvable.invalid/h"
        hook.save()
        return {"url": project.hooks.get(hook.id).url}
    out["hook_edit_unresolvable"] = seen(edit)

# Deleting a hook twice: the record first, then an empty 2xx; python-gitlab raises on neither.
target = project.hooks.create({"url": "http://192.0.2.10/h"}) if hook is None else hook
def raw_delete():
    r = gl.http_delete(f"/projects/{project.id}/hooks/{target.id}")
    return {"status": r.status_code, "id": r.json().get("id")} if r.content else {"status": r.status_code, "body": r.text}
out["hook_delete_first"] = seen(raw_delete)
out["hook_delete_second"] = seen(raw_delete)
out["hook_delete_again_via_manager"] = seen(lambda: project.hooks.delete(target.id) or "ok")

# Deleting a push rule twice, and with none at all.
project.pushrules.create({"deny_delete_tag": True})
out["push_rule_delete_first"] = seen(lambda: project.pushrules.delete() or "ok")
out["push_rule_delete_second"] = seen(lambda: project.pushrules.delete() or "ok")

# Keyset pagination: the client follows Link rel="next"; count the pages it fetched.
for i in range(5):
    gl.projects.create({"name": f"pyks-{i}"})
for n in (5, 4):
    if n == 4:
        # DELETE marks it (GitLab 18, renamed and still listed); permanently_remove with its renamed path removes it.
        doomed = gl.projects.get("root/pyks-4")
        doomed.delete()
        gl.http_delete(f"/projects/{doomed.id}", query_data={"permanently_remove": True, "full_path": f"root/pyks-4-deletion_scheduled-{doomed.id}"})
    calls.clear()
    listing = gl.projects.list(pagination="keyset", order_by="id", sort="asc", per_page=2, search="pyks", iterator=True)
    names = [p.name for p in listing]
    out[f"keyset_{n}"] = {"names": names, "pages": len([c for c in calls if "/api/v4/projects?" in c])}

# Keyset on the other project listings: starred projects and forks follow their links to the end.
me = gl.users.get(gl.user.id)
for name in ("pyks-0", "pyks-1", "pyks-2"):
    gl.projects.get(f"root/{name}").star()
starred = me.starred_projects.list(pagination="keyset", order_by="id", sort="asc", per_page=2, iterator=True)
out["keyset_starred"] = [p.name for p in itertools.islice(starred, 8)]
source = gl.projects.get("root/pyks-0")
for i in range(3):
    source.forks.create({"name": f"pyfork-{i}", "path": f"pyfork-{i}"})
forks = source.forks.list(pagination="keyset", order_by="id", sort="asc", per_page=2, iterator=True)
out["keyset_forks"] = [p.name for p in itertools.islice(forks, 8)]

# Project fields: operations_access_level shown; GitLab EE's merge settings and templates kept and shown, in GET
# /projects/:id and in listings; the checksum filters accepted (no Geo secondary: no checksum ever failed).
FIELDS = ("operations_access_level", "approvals_before_merge", "issues_template", "merge_requests_template",
          "merge_pipelines_enabled", "merge_trains_enabled")
fp = gl.projects.create({"name": "py-fields"})
out["fields_default"] = {k: gl.projects.get(fp.id).attributes.get(k, "<absent>") for k in FIELDS}
edit = {"operations_access_level": "private", "approvals_before_merge": 2, "issues_template": "Issue tmpl",
        "merge_requests_template": "MR tmpl", "merge_pipelines_enabled": True, "merge_trains_enabled": True}
for k, v in edit.items():
    setattr(fp, k, v)
fp.save()
out["fields_get"] = {k: gl.projects.get(fp.id).attributes.get(k, "<absent>") for k in FIELDS}
out["fields_list"] = {k: gl.projects.list(search="py-fields")[0].attributes.get(k, "<absent>") for k in FIELDS}
out["checksum_failed"] = {
    "repository": [p.name for p in gl.projects.list(repository_checksum_failed=True, get_all=True)],
    "wiki": [p.name for p in gl.projects.list(wiki_checksum_failed=True, get_all=True)],
    "off": [p.name for p in gl.projects.list(repository_checksum_failed=False, wiki_checksum_failed=False, search="py-fields")],
}

json.dump(out, sys.stdout)
