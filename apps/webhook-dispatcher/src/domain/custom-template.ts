/**
 * GitLab's custom webhook template (`WebHookService#render_custom_template` with `custom_webhook_template_serialization`):
 * each `{{path.to.field}}` becomes the payload's value there, JSON-encoded (strings without their quotes, so they can
 * sit inside a JSON string of the template); the result must parse as JSON, else the delivery fails with
 * "Error while parsing rendered custom webhook template: <reason>". The parsed object is what is sent (re-serialized).
 */
export class CustomTemplateError extends Error {
  constructor(reason: string) {
    super(`Error while parsing rendered custom webhook template: ${reason}`);
    this.name = 'CustomTemplateError';
  }
}

const PLACEHOLDER = /{{(.+?)}}/g;

function dig(data: unknown, path: string[]): unknown {
  let value: unknown = data;
  for (const key of path) {
    if (value === null || value === undefined) return null;
    // Ruby's Array#dig with a String key raises TypeError.
    if (Array.isArray(value)) throw new CustomTemplateError('You may be trying to access an array value, which is not supported.');
    if (typeof value !== 'object') throw new CustomTemplateError('You may be trying to access an array value, which is not supported.');
    value = (value as Record<string, unknown>)[key];
  }
  return value ?? null;
}

/** The rendered template as an object (throws CustomTemplateError). */
export function renderCustomTemplate(template: string, payload: unknown): unknown {
  const rendered = template.replace(PLACEHOLDER, (_, path: string) => {
    const value = dig(payload, path.split('.'));
    const json = JSON.stringify(value) ?? 'null';
    return typeof value === 'string' ? json.slice(1, -1) : json;
  });
  try {
    return JSON.parse(rendered);
  } catch (err) {
    throw new CustomTemplateError((err as Error).message);
  }
}
