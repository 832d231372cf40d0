import type { projectsV1 } from '@glp/proto';
import { memberUserBasic } from './member';
import type { UrlBuilder } from './urls';

/** `Entities::PushEventPayload` (`lib/api/entities/push_event_payload.rb`). ONE object literal. */
function pushData(p: projectsV1.PushEventData) {
  return {
    commit_count: p.commitCount,
    action: p.action,
    ref_type: p.refType,
    commit_from: p.commitFrom ?? null,
    commit_to: p.commitTo ?? null,
    ref: p.ref ?? null,
    commit_title: p.commitTitle ?? null,
    ref_count: p.refCount ?? null,
  };
}

/**
 * `Entities::Event` (`lib/api/entities/event.rb`) of this system's events: none has a target (target fields null) or
 * a note or wiki page; none is imported from another instance (`imported` false, `imported_from` "none"); `author`
 * only while the author is known; `push_data` for push events only.
 */
export function eventEntity(e: projectsV1.ProjectEvent, urls: UrlBuilder) {
  return {
    id: e.id,
    project_id: e.projectId,
    action_name: e.actionName,
    target_id: null,
    target_iid: null,
    target_type: null,
    author_id: e.authorId,
    target_title: null,
    created_at: e.createdAt ? e.createdAt.toISOString() : null,
    ...(e.author ? { author: memberUserBasic(e.author, urls) } : {}),
    imported: false,
    imported_from: 'none',
    ...(e.pushData ? { push_data: pushData(e.pushData) } : {}),
    author_username: e.author ? e.author.username : null,
  };
}
