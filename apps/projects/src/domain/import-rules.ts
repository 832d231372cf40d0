import type { projectsV1 } from '@glp/proto';
import { untrustedRegexpError } from '@glp/untrusted-regexp';

/** The pull mirror configuration as stored (defaults: GitLab's). */
export interface MirrorConfig {
  mirror: boolean;
  mirrorTriggerBuilds: boolean;
  onlyMirrorProtectedBranches: boolean;
  mirrorOverwritesDivergedBranches: boolean;
  mirrorUserId: number | null;
  mirrorBranchRegex: string | null;
}

export const NO_MIRROR: MirrorConfig = {
  mirror: false, mirrorTriggerBuilds: false, onlyMirrorProtectedBranches: false, mirrorOverwritesDivergedBranches: false,
  mirrorUserId: null, mirrorBranchRegex: null,
};

/** The configuration after applying what a request set (unset fields keep their value). */
export function applyMirrorSettings(current: MirrorConfig, set: projectsV1.MirrorSettings | undefined): MirrorConfig {
  if (!set) return current;
  return {
    mirror: set.mirror ?? current.mirror,
    mirrorTriggerBuilds: set.mirrorTriggerBuilds ?? current.mirrorTriggerBuilds,
    onlyMirrorProtectedBranches: set.onlyMirrorProtectedBranches ?? current.onlyMirrorProtectedBranches,
    mirrorOverwritesDivergedBranches: set.mirrorOverwritesDivergedBranches ?? current.mirrorOverwritesDivergedBranches,
    mirrorUserId: set.mirrorUserId ?? current.mirrorUserId,
    mirrorBranchRegex: set.mirrorBranchRegex ?? current.mirrorBranchRegex,
  };
}

/** GitLab's `ProjectSetting` validation of `mirror_branch_regex`: at most 255 characters. */
export const MIRROR_BRANCH_REGEX_MAX = 255;

/**
 * The model errors of the mirror settings sent (`ee/app/models/ee/project_setting.rb`: `mirror_branch_regex` is an
 * `untrusted_regexp` — RE2, checked when saved — of at most 255 characters), keyed as GitLab reports an autosaved
 * association's errors; undefined when there are none.
 */
export function mirrorSettingsErrors(set: projectsV1.MirrorSettings | undefined): Record<string, string[]> | undefined {
  const regex = set?.mirrorBranchRegex;
  if (!regex) return undefined;
  const messages: string[] = [];
  const syntax = untrustedRegexpError(regex);
  if (syntax) messages.push(syntax);
  if ([...regex].length > MIRROR_BRANCH_REGEX_MAX) messages.push(`is too long (maximum is ${MIRROR_BRANCH_REGEX_MAX} characters)`);
  return messages.length ? { 'project_setting.mirror_branch_regex': messages } : undefined;
}

/** The model error of a blocked import URL (`Project` validates `import_url` with the URL blocker). */
export const importUrlBlocked = (reason: string) => ({ import_url: [`is blocked: ${reason}`] });

/** The import source after an edit: the new URL (when sent) and mirror configuration, or the model's errors. */
export type ImportEditResult =
  | { kind: 'unchanged' }
  | { kind: 'changed'; url: string | undefined; mirror: MirrorConfig; changed: string[] }
  | { kind: 'invalid'; errors: Record<string, string[]> };

/**
 * An edit of the import source (PUT /projects/:id `import_url`, mirror params): a mirror needs an import URL
 * (`import_url can't be blank`); turning mirroring on without a mirror user makes the editor the mirror user (GitLab
 * sets `mirror_user_id` to the current user). `changed` names what ProjectUpdated reports (`import_url`, `mirror`).
 */
export function planImportEdit(
  current: MirrorConfig | undefined, edit: { url?: string; mirror?: projectsV1.MirrorSettings }, editorId: number,
): ImportEditResult {
  if (edit.url === undefined && !edit.mirror) return { kind: 'unchanged' };
  const settingsErrors = mirrorSettingsErrors(edit.mirror);
  if (settingsErrors) return { kind: 'invalid', errors: settingsErrors };
  const before = current ?? NO_MIRROR;
  const next = applyMirrorSettings(before, edit.mirror);
  if (next.mirror && !current && edit.url === undefined) return { kind: 'invalid', errors: { import_url: ["can't be blank"] } };
  // Mirror settings (branch regex, triggers …) on a project with no import URL, not turning mirroring on: nothing to
  // attach them to (they live with the import source), so nothing changes.
  if (!current && edit.url === undefined) return { kind: 'unchanged' };
  if (next.mirror && next.mirrorUserId === null) next.mirrorUserId = editorId;
  const changed = [
    ...(edit.url !== undefined ? ['import_url'] : []),
    ...(JSON.stringify(next) !== JSON.stringify(before) ? ['mirror'] : []),
  ];
  return changed.length ? { kind: 'changed', url: edit.url, mirror: next, changed } : { kind: 'unchanged' };
}
