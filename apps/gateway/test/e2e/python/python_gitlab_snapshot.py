"""python-gitlab's project.snapshot() of projects created a moment before: always a tar, never an empty body.

Run by apps/gateway/test/e2e/snapshot-new-repository.test.ts with GITLAB_URL and GITLAB_TOKEN; prints, per project,
the members of the tar it got.
"""
import io
import json
import os
import sys
import tarfile

import gitlab

gl = gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=os.environ["GITLAB_TOKEN"])
out = {}
for name, readme in (("py-snap-empty", False), ("py-snap-readme", True), ("py-snap-empty-2", False)):
    project = gl.projects.create({"name": name, "initialize_with_readme": readme})
    data = project.snapshot()  # at once: the repository may still be being created
    assert len(data) > 0, f"{name}: empty body"
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        out[name] = {"id": project.id, "members": sorted(m.name for m in tar.getmembers())}
json.dump(out, sys.stdout)
