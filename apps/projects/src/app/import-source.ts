import type { PoolClient } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { forbidden, invalid, notFound, type Actor } from '@glp/service-kit';
import { IMPORT_SCHEMES, maskedUrl, vetUrl } from '@glp/url-guard';
import { applyMirrorSettings, importUrlBlocked, mirrorSettingsErrors, NO_MIRROR, type MirrorConfig } from '../domain/import-rules';
import { findImportSource, upsertImportSource } from '../store/import-sources-store';
import type { ProjectsDeps } from './deps';

/** An import URL that passed GitLab's model validation, ready to be stored with its project. */
export interface VettedImport {
  url: string;
  mirror: MirrorConfig;
}

/**
 * `import_url` on create (GitLab's `Project` validation with `Gitlab::UrlBlocker`: schemes http, https, git; no
 * loopback or private target unless the operator allows it; the host must resolve): 400
 * `{"message":{"import_url":["is blocked: <reason>"]}}` otherwise. Whether it answers as a git repository was asked
 * of repo-admin by the gateway before (GitLab's API probes first).
 */
export async function vetImport(deps: ProjectsDeps, url: string, mirror: projectsV1.MirrorSettings | undefined): Promise<VettedImport> {
  if (!deps.secretBox) throw invalid(importUrlBlocked('Imports are not enabled on this instance'));
  const settingsErrors = mirrorSettingsErrors(mirror);
  if (settingsErrors) throw invalid(settingsErrors);
  const vetted = await vetUrl(url, { schemes: IMPORT_SCHEMES, allowLocalNetwork: deps.importRules?.allowLocalNetwork ?? false, allowlist: deps.importRules?.allowlist ?? [] });
  if (!vetted.ok) throw invalid(importUrlBlocked(vetted.reason));
  return { url, mirror: applyMirrorSettings(NO_MIRROR, mirror) };
}

/** Stores the vetted import source of a new project (sealed URL, masked copy, mirror configuration). */
export async function storeImportSource(deps: ProjectsDeps, client: PoolClient, projectId: number, v: VettedImport): Promise<void> {
  await upsertImportSource(client, { projectId, urlSealed: deps.secretBox!.seal(v.url), urlMasked: maskedUrl(v.url), ...v.mirror });
}

/** GetImportSource: the URL with its credentials, for repo-admin only (a system actor). */
export async function importSourceFor(deps: ProjectsDeps, actor: Actor, projectId: number): Promise<{ url: string; mirror: MirrorConfig }> {
  if (actor.kind !== 'system') throw forbidden();
  const source = await findImportSource(deps.pool, projectId);
  if (!source || !deps.secretBox) throw notFound('Import source');
  const { urlSealed, urlMasked: _masked, importType: _type, projectId: _id, ...mirror } = source;
  return { url: deps.secretBox.open(urlSealed), mirror };
}
