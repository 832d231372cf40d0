import { DomainError } from '@glp/service-kit';
import { fullMessagesSentence, type FieldErrors } from './hook-attributes';

/**
 * GitLab's answers to a hook that does not save. Two shapes, carried as DomainError fields the gateway renders:
 * - `{ error: [message] }` → Grape's `error!(message, status)` → `{"error": message}`;
 * - model errors → `render_validation_error!(hook, 422)` → `{"message": {attr: [...]}}`.
 */

export const INVALID_URL = 'Invalid url given';
export const INVALID_BRANCH_FILTER = 'Invalid branch filter given';
export const NO_PARAMETERS = 'No parameters provided';

/** Grape `error!(message, 422)`. */
export const errorBody422 = (message: string) => new DomainError('unprocessable', message, { error: [message] });
/** Grape `error!(message, 400)`. */
export const errorBody400 = (message: string) => new DomainError('bad_request', message, { error: [message] });

/**
 * POST (`WebHooks::CreateService#execute`): url errors → "Invalid url given", filter errors → "Invalid branch filter
 * given", custom headers → "Custom headers must be a valid json schema", else the full messages as one sentence.
 */
export function createRefused(errors: FieldErrors): DomainError {
  if (errors.url) return errorBody422(INVALID_URL);
  if (errors.push_events_branch_filter) return errorBody422(INVALID_BRANCH_FILTER);
  if (errors.custom_headers) return errorBody422('Custom headers must be a valid json schema');
  return errorBody422(fullMessagesSentence(errors));
}

/**
 * PUT (`API::Helpers::WebHooksHelpers#save_hook`): the same first two, "Custom headers validation failed", else
 * `render_validation_error!(hook, 422)`.
 */
export function updateRefused(errors: FieldErrors): DomainError {
  if (errors.url) return errorBody422(INVALID_URL);
  if (errors.push_events_branch_filter) return errorBody422(INVALID_BRANCH_FILTER);
  if (errors.custom_headers) return errorBody422('Custom headers validation failed');
  return new DomainError('unprocessable', fullMessagesSentence(errors), errors);
}
