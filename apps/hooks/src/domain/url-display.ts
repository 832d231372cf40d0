/**
 * The URL with its user and password masked (`http://*****:*****@host/...`), placeholders and everything else kept
 * byte for byte: what the API, events and the delivery log may show of a URL that carries credentials.
 */
export function maskUrlCredentials(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i, (_m, scheme: string, userinfo: string) =>
    `${scheme}${userinfo.includes(':') ? '*****:*****' : '*****'}@`);
}
