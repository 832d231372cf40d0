"""GitLab 18 delayed group deletion and GET /projects?active= through python-gitlab."""
import datetime
import json
import os
import time

import gitlab

gl = gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=os.environ["GITLAB_TOKEN"])
today = datetime.date.today().isoformat()
out = {}

group = gl.groups.create({"name": "py-grp", "path": "py-grp"})
project = gl.projects.create({"name": "pygd-inside", "namespace_id": group.id})
live = gl.projects.create({"name": "pygd-live"})

group.delete()  # GitLab 18: 202, the group is only marked
marked = gl.groups.get(group.id)
out["marked"] = [marked.full_path, marked.name, marked.marked_for_deletion_on == today]

try:
    marked.delete()
    out["second_delete"] = "accepted"
except gitlab.exceptions.GitlabDeleteError as e:
    out["second_delete"] = [e.response_code, e.error_message]

# The group's project is not active while its group is marked (identity's event reaches projects asynchronously).
deadline = time.time() + 15
while True:
    out["inactive"] = sorted(p.name for p in gl.projects.list(active=False, search="pygd-", get_all=True))
    if "pygd-inside" in out["inactive"] or time.time() > deadline:
        break
    time.sleep(0.1)
out["active"] = sorted(p.name for p in gl.projects.list(active=True, search="pygd-", get_all=True))

marked.restore()
back = gl.groups.get(group.id)
out["restored"] = [back.full_path, back.name, back.marked_for_deletion_on]

try:
    gl.groups.delete(group.id, query_data={"permanently_remove": True, "full_path": "py-grp"})
    out["permanent_unmarked"] = "accepted"
except gitlab.exceptions.GitlabDeleteError as e:
    out["permanent_unmarked"] = [e.response_code, e.error_message]

back.delete()
renamed = f"py-grp-deletion_scheduled-{group.id}"
try:
    gl.groups.delete(group.id, query_data={"permanently_remove": True, "full_path": "py-grp"})
    out["permanent_wrong_path"] = "accepted"
except gitlab.exceptions.GitlabDeleteError as e:
    out["permanent_wrong_path"] = [e.response_code, e.error_message]
gl.groups.delete(group.id, query_data={"permanently_remove": True, "full_path": renamed})
try:
    gl.groups.get(group.id)
    out["after_permanent"] = "still there"
except gitlab.exceptions.GitlabGetError as e:
    out["after_permanent"] = e.response_code

out["project_id"] = project.id
out["live_id"] = live.id
print(json.dumps(out))
