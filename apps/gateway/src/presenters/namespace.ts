import type { identityV1 } from '@glp/proto';
import type { UrlBuilder } from './urls';

/**
 * `Entities::Namespace` (`lib/api/entities/namespace_basic.rb`, `namespace.rb`): id, name, path, kind, full_path,
 * parent_id (null at the top level), avatar_url, web_url — a personal namespace's web_url is its owner's page
 * (`user_url(owner || route.path)`), a group's `<base>/groups/<full_path>`. One object literal.
 *
 * Left out: `members_count_with_descendants` (only for group administrators; the Namespace message has no count) and
 * the EE plan / seat fields of licensed instances.
 */
export function namespaceEntity(ns: identityV1.Namespace, urls: UrlBuilder) {
  const group = ns.kind === 'group';
  return {
    id: ns.id,
    name: ns.name,
    path: ns.path,
    kind: ns.kind,
    full_path: ns.fullPath,
    parent_id: ns.parentId || null,
    avatar_url: ns.avatarUrl || null,
    web_url: group ? urls.group(ns.fullPath) : urls.web(ns.owner?.username || ns.fullPath),
  };
}
