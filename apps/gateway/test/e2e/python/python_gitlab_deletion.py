"""GitLab 18 delayed deletion through python-gitlab: delete marks, restore brings back, the delay is an instance setting."""
import datetime
import json
import os

import gitlab

gl = gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=os.environ["GITLAB_TOKEN"])
out = {}

project = gl.projects.create({"name": "py-doomed"})
project.delete()  # GitLab 18: 202, the project is only marked
marked = gl.projects.get(project.id)
today = datetime.date.today().isoformat()
assert marked.marked_for_deletion_on == today and marked.marked_for_deletion_at == today, marked.attributes
assert marked.archived is True, marked.attributes
out["marked_path"] = marked.path_with_namespace

try:
    marked.delete()
    out["second_delete"] = "accepted"
except gitlab.exceptions.GitlabDeleteError as e:
    out["second_delete"] = [e.response_code, e.error_message]

marked.restore()
back = gl.projects.get(project.id)
out["restored"] = [back.path_with_namespace, back.name, back.archived, back.marked_for_deletion_on]

settings = gl.settings.get()
out["period"] = settings.deletion_adjourned_period
settings.deletion_adjourned_period = 91
try:
    settings.save()
    out["period_91"] = "saved"
except gitlab.exceptions.GitlabUpdateError as e:
    out["period_91"] = [e.response_code, e.error_message]
settings = gl.settings.get()
settings.deletion_adjourned_period = 30
settings.save()
out["period_after"] = gl.settings.get().deletion_adjourned_period

print(json.dumps(out))
