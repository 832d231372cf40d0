/**
 * HTTP Basic credentials as Rails reads them (`ActionController::HttpAuthentication::Basic`): the `Basic` scheme in any
 * case, base64 of `login:password` split at the first colon. Anything else (no header, another scheme, no colon) is no
 * credentials at all: GitLab then treats the request as anonymous.
 */
export function basicCredentials(authorization: string | undefined): { login: string; password: string } | undefined {
  if (!authorization) return undefined;
  const space = authorization.indexOf(' ');
  if (space < 0 || authorization.slice(0, space).toLowerCase() !== 'basic') return undefined;
  const decoded = Buffer.from(authorization.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
