import type { projectsV1 } from '@glp/proto';
import { withCredentials, withoutCredentials } from '@glp/url-guard';
import { applyMirrorSettings, mirrorSettingsErrors, NO_MIRROR, type MirrorConfig } from './import-rules';

/** PUT /projects/:id/mirror/pull as sent (unset: unchanged). */
export interface PullMirrorEdit {
  enabled?: boolean;
  url?: string;
  authUser?: string;
  authPassword?: string;
  settings?: projectsV1.MirrorSettings;
}

/** The import source as stored: its URL (credentials included) and mirror configuration. */
export interface CurrentImportSource {
  url: string;
  mirror: MirrorConfig;
}

export type PullMirrorPlan =
  | { kind: 'invalid'; errors: Record<string, string[]> }
  | { kind: 'save'; url: string; mirror: MirrorConfig; changed: string[] };

/**
 * GitLab's `Repositories::PullMirrors::Attributes#allowed`: the two branch filters exclude each other, so a branch regex
 * turns "only protected branches" off and "only protected branches" clears the regex.
 */
export function exclusiveBranchFilters(s: projectsV1.MirrorSettings | undefined): projectsV1.MirrorSettings {
  const out: projectsV1.MirrorSettings = { ...s };
  if (out.mirrorBranchRegex) out.onlyMirrorProtectedBranches = false;
  if (out.onlyMirrorProtectedBranches) out.mirrorBranchRegex = '';
  return out;
}

/**
 * A pull mirror configuration change (GitLab's `Repositories::PullMirrors::UpdateService`) on the project's import
 * source, the same record create and edit set: the editor becomes the mirror user; `auth_user` / `auth_password` go
 * into the URL (sealed at rest); turning mirroring off drops the credentials and keeps the URL. Errors are the
 * model's: a branch regex that is not RE2, mirroring without a URL (`import_url can't be blank`), or nothing to attach
 * the settings to (`url is missing`). `changed` names what ProjectUpdated reports.
 */
export function planPullMirrorEdit(current: CurrentImportSource | undefined, edit: PullMirrorEdit, editorId: number): PullMirrorPlan {
  const set: projectsV1.MirrorSettings = { ...exclusiveBranchFilters(edit.settings), mirror: edit.enabled, mirrorUserId: editorId };
  const settingsErrors = mirrorSettingsErrors(set);
  if (settingsErrors) return { kind: 'invalid', errors: settingsErrors };
  const before = current?.mirror ?? NO_MIRROR;
  const next = applyMirrorSettings(before, set);
  next.mirrorBranchRegex = next.mirrorBranchRegex || null;
  const base = edit.url ?? current?.url;
  if (base === undefined) return { kind: 'invalid', errors: next.mirror ? { import_url: ["can't be blank"] } : { url: ['is missing'] } };
  const url = edit.enabled === false ? withoutCredentials(base) : withCredentials(base, { user: edit.authUser, password: edit.authPassword });
  const changed = [
    ...(url !== current?.url ? ['import_url'] : []),
    ...(JSON.stringify(next) !== JSON.stringify(before) ? ['mirror'] : []),
  ];
  return { kind: 'save', url, mirror: next, changed };
}
