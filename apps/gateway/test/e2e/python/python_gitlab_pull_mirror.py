"""python-gitlab's pull mirror API (project.pull_mirror: create/update = PUT, get = GET, start = POST) against the stack.

Run by apps/gateway/test/e2e/pull-mirror-clients.test.ts with GITLAB_URL, GITLAB_TOKEN, UPSTREAM_URL (a git repository
over dumb HTTP that wants UPSTREAM_USER / UPSTREAM_PASSWORD), BLOCKED_URL (a URL the outbound rules refuse) and
NOT_GIT_URL (allowed, but no repository there). Every step asserts; the script prints a JSON summary.
"""
import json
import os
import sys
import time

import gitlab

env = os.environ
gl = gitlab.Gitlab(env["GITLAB_URL"], private_token=env["GITLAB_TOKEN"])
gl.auth()
upstream, user, password = env["UPSTREAM_URL"], env["UPSTREAM_USER"], env["UPSTREAM_PASSWORD"]
host_and_path = upstream.split("://", 1)[1]
summary = {}


def eventually(check, seconds=60):
    deadline = time.time() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.time() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.3)


def expect_error(cls, status, call):
    try:
        call()
    except cls as e:
        assert e.response_code == status, (e.response_code, e.error_message)
        return e.error_message
    raise AssertionError(f"expected {status}")


project = gl.projects.create({"name": "py-pull-mirror"})

# Configure: the caller becomes the mirror user, credentials are kept but never shown (masked URL), an update starts.
mirror = project.pull_mirror.create({
    "url": upstream, "enabled": True, "auth_user": user, "auth_password": password,
    "mirror_overwrites_diverged_branches": True, "only_mirror_protected_branches": False,
})
assert mirror.enabled is True, mirror.attributes
assert mirror.url == f"http://*****:*****@{host_and_path}", mirror.url
assert mirror.mirror_overwrites_diverged_branches is True and mirror.mirror_trigger_builds is False, mirror.attributes
assert mirror.mirror_branch_regex is None and mirror.only_mirror_protected_branches is False, mirror.attributes
assert password not in json.dumps(mirror.attributes)
done = eventually(lambda: (lambda m: m if m.update_status == "finished" and m.last_successful_update_at else None)(project.pull_mirror.get()))
assert done.last_error is None, done.last_error
seen = gl.projects.get(project.id)
assert seen.mirror is True and seen.mirror_user_id == gl.user.id, seen.attributes
assert seen.import_url == f"http://*****:*****@{host_and_path}", seen.import_url
summary["mirrored"] = project.id

# Update through the object (SaveMixin sends only what changed): a branch regex turns "only protected branches" off.
current = project.pull_mirror.get()
current.mirror_branch_regex = "^(main|release/.*)$"
current.save()
again = project.pull_mirror.get()
assert again.mirror_branch_regex == "^(main|release/.*)$" and again.only_mirror_protected_branches is False, again.attributes
assert again.url == mirror.url, again.url  # the credentials stay
# ... and "only protected branches" clears the regex.
assert project.pull_mirror.create({"only_mirror_protected_branches": True}).mirror_branch_regex is None
project.pull_mirror.start()

# One model: PUT /projects/:id changes what GET /mirror/pull shows, and the other way round (GitLab's edit wants
# `mirror` or `import_url` among its at-least-one params: mirror_trigger_builds alone is a 400 there).
project.mirror = True
project.mirror_trigger_builds = True
project.save()
assert project.pull_mirror.get().mirror_trigger_builds is True
project.pull_mirror.create({"mirror_trigger_builds": False})
assert gl.projects.get(project.id).mirror_trigger_builds is False

# GitLab's refusals, nothing saved.
errors = {}
errors["regex"] = expect_error(gitlab.exceptions.GitlabCreateError, 400, lambda: project.pull_mirror.create({"mirror_branch_regex": "(unclosed"}))
assert project.pull_mirror.get().mirror_branch_regex is None
errors["blocked"] = expect_error(gitlab.exceptions.GitlabCreateError, 400, lambda: project.pull_mirror.create({"url": env["BLOCKED_URL"], "enabled": True}))
errors["not_git"] = expect_error(gitlab.exceptions.GitlabCreateError, 400, lambda: project.pull_mirror.create({"url": env["NOT_GIT_URL"]}))
assert project.pull_mirror.get().url == mirror.url
errors["none"] = expect_error(gitlab.exceptions.GitlabCreateError, 400, lambda: project.pull_mirror.create({}))
plain = gl.projects.create({"name": "py-not-mirrored"})
errors["get_plain"] = expect_error(gitlab.exceptions.GitlabGetError, 400, lambda: plain.pull_mirror.get())
errors["start_plain"] = expect_error(gitlab.exceptions.GitlabCreateError, 400, lambda: plain.pull_mirror.start())
errors["url_missing"] = expect_error(gitlab.exceptions.GitlabCreateError, 400, lambda: plain.pull_mirror.create({"mirror_trigger_builds": True}))
errors["enable_without_url"] = expect_error(gitlab.exceptions.GitlabCreateError, 400, lambda: plain.pull_mirror.create({"enabled": True}))
assert gl.projects.get(plain.id).mirror is False
summary["errors"] = errors

# Turning it off drops the credentials and keeps the URL; the mirror endpoints then say it is not mirrored.
off = project.pull_mirror.create({"enabled": False})
assert off.enabled is False and off.url == upstream, off.attributes
expect_error(gitlab.exceptions.GitlabGetError, 400, lambda: project.pull_mirror.get())
expect_error(gitlab.exceptions.GitlabCreateError, 400, lambda: project.pull_mirror.start())
# On again without credentials: the upstream refuses, the update fails and says so.
project.pull_mirror.create({"enabled": True})
failed = eventually(lambda: (lambda m: m if m.update_status == "failed" else None)(project.pull_mirror.get()))
assert failed.last_error, failed.attributes
summary["off"] = "ok"

json.dump(summary, sys.stdout)
