"""python-gitlab against the stack: every step asserts, and the script prints a JSON summary.

Run by apps/gateway/test/e2e/python-gitlab-client.test.ts with GITLAB_URL and GITLAB_TOKEN.
"""
import json
import os
import sys

import gitlab

url, token = os.environ["GITLAB_URL"], os.environ["GITLAB_TOKEN"]
gl = gitlab.Gitlab(url, private_token=token)
summary = {}

gl.auth()
assert gl.user.username == "root", gl.user.username
summary["user"] = gl.user.username
version, revision = gl.version()
assert version != "unknown", version
summary["version"] = version

project = gl.projects.create({"name": "Py Demo", "description": "from python-gitlab", "visibility": "public", "topics": ["python", "e2e"]})
assert project.path == "py-demo", project.path
assert project.path_with_namespace == "root/py-demo"
assert sorted(project.topics) == ["e2e", "python"], project.topics
summary["created"] = project.id

assert gl.projects.get(project.id).description == "from python-gitlab"
assert gl.projects.get("root/py-demo").id == project.id

for name in ("py-1", "py-2"):
    gl.projects.create({"name": name})
page = gl.projects.list(per_page=2, page=1, order_by="id", sort="asc")
assert len(page) == 2, len(page)
listing = gl.projects.list(per_page=1, iterator=True)
assert listing.total == 3 and listing.total_pages == 3 and listing.per_page == 1, (listing.total, listing.total_pages)
assert len(list(listing)) == 3  # follows the Link headers
summary["total"] = listing.total

try:
    gl.projects.get(987654321)
    raise AssertionError("expected 404")
except gitlab.exceptions.GitlabGetError as e:
    assert e.response_code == 404 and "404 Project Not Found" in str(e.error_message), (e.response_code, e.error_message)

try:
    gl.projects.create({"name": "Py Demo"})
    raise AssertionError("expected 400")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 400, e.response_code

try:
    gitlab.Gitlab(url, private_token="glpat-not-a-token-at-all").auth()
    raise AssertionError("expected 401")
except gitlab.exceptions.GitlabAuthenticationError as e:
    assert e.response_code == 401, e.response_code

user = gl.users.create({"email": "py@example.com", "username": "py-user", "name": "Py User", "password": "py-password-1", "skip_confirmation": True})
pat = gl.users.get(user.id).personal_access_tokens.create({"name": "py", "scopes": ["api"]})
assert pat.token.startswith("glpat-")
as_user = gitlab.Gitlab(url, private_token=pat.token)
as_user.auth()
assert as_user.user.username == "py-user"
mine = as_user.projects.create({"name": "mine"})
assert mine.path_with_namespace == "py-user/mine"
summary["user_project"] = mine.path_with_namespace

# Forks: fork (answers at once, import scheduled), list forks, link and unlink a fork relation.
fork = project.forks.create({"name": "Py Demo Fork", "path": "py-demo-fork"})
assert fork.import_status == "scheduled", fork.import_status
forked = gl.projects.get(fork.id)
assert forked.forked_from_project["id"] == project.id, forked.forked_from_project
assert [p.id for p in project.forks.list()] == [fork.id]
loose = gl.projects.create({"name": "py-loose"})
loose.create_fork_relation(project.id)
assert gl.projects.get(loose.id).forked_from_project["id"] == project.id
loose.delete_fork_relation()
assert not hasattr(gl.projects.get(loose.id), "forked_from_project")
summary["fork"] = forked.path_with_namespace

# Project hooks: create (token never returned), list, get, edit, test against a closed port (GitLab's 422), delete.
hook_url = os.environ["HOOK_URL"]
hook = project.hooks.create({"url": hook_url, "push_events": True, "token": "py-hook-secret", "push_events_branch_filter": "main"})
assert hook.push_events and hook.push_events_branch_filter == "main", hook.attributes
assert "token" not in hook.attributes
assert [x.id for x in project.hooks.list()] == [hook.id]
hook.tag_push_events = True
hook.save()
assert project.hooks.get(hook.id).tag_push_events is True
try:
    hook.test("not_a_trigger")
    raise AssertionError("expected 400")
except gitlab.exceptions.GitlabError as e:
    assert e.response_code == 400, e.response_code
project.hooks.delete(hook.id)
assert project.hooks.list() == []
summary["hooks"] = "ok"

# Project push rules: create, get (GetWithoutIdMixin), edit, second create (422), invalid RE2 (400, not saved), delete.
pr = project.pushrules.create({"commit_message_regex": "^(feat|fix): ", "deny_delete_tag": True, "max_file_size": 3})
assert pr.project_id == project.id and pr.deny_delete_tag is True and pr.max_file_size == 3, pr.attributes
got = project.pushrules.get()
assert got.id == pr.id and got.commit_message_regex == "^(feat|fix): ", got.attributes
got.member_check = True
got.save()
assert project.pushrules.get().member_check is True
try:
    project.pushrules.create({"prevent_secrets": True})
    raise AssertionError("expected 422")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 422, e.response_code
try:
    project.pushrules.update(new_data={"file_name_regex": "("})
    raise AssertionError("expected 400")
except gitlab.exceptions.GitlabUpdateError as e:
    assert e.response_code == 400, e.response_code
assert project.pushrules.get().file_name_regex is None
project.pushrules.delete()
project.pushrules.delete()  # idempotent (spec 4.8): no error the second time
summary["push_rules"] = "ok"

json.dump(summary, sys.stdout)
