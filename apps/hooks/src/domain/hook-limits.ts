/**
 * GitLab's plan limit on project hooks (`ProjectHook` includes `Limitable` with `limit_name = 'project_hooks'`, checked on
 * create only; `plan_limits.project_hooks` is 100 on every plan): one push fans out to every hook of its project, so a
 * project may not collect hooks without bound. 0 turns the limit off (GitLab: a limit of 0 is no limit).
 */
export const DEFAULT_PROJECT_HOOKS_LIMIT = 100;

/** `Limitable#validate_plan_limit_not_exceeded`: the project already has `limit` hooks. */
export const hooksLimitReached = (count: number, limit: number) => limit > 0 && count >= limit;

/** The model error (`errors.add(:base, …)`), which GitLab's create service answers as the whole message. */
export const hooksLimitError = (limit: number) => `Maximum number of project hooks (${limit}) exceeded`;
