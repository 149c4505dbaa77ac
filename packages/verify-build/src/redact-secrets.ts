/** What a redacted secret reads as. */
export const REDACTED = '[redacted]';

/** Secrets by their own shape: bearer/basic credentials, provider keys, bvl's API tokens, private keys. */
const SHAPES: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}/g,
  /\bbvl_[0-9a-f]{16}_[A-Za-z0-9_-]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/** `Authorization: Bearer x`, `Basic x`: the scheme stays, the credential goes. */
const SCHEME = /\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi;

/**
 * A key that names a secret (`api_key`, `apiKey`, `OPENAI_API_KEY`, `password`, `secret`,
 * `authorization`, `access_token`, …) followed by `:` or `=` and a value, in JSON, env or header form.
 * Counters such as `tokensIn: 5` are not secrets: a value is redacted only when it is not a number
 * or a boolean.
 */
const KEYED =
  /(["']?)([A-Za-z0-9_-]*(?:api[_-]?key|apikey|secret|passw(?:or)?d|authorization|access[_-]?token|refresh[_-]?token|auth[_-]?token|private[_-]?key|client[_-]?secret|credential)[A-Za-z0-9_-]*)\1(\s*[:=]\s*)(?:"((?:\\.|[^"\\])*)"|([^\s,;}&"]+))/gi;

/**
 * Text with every secret it holds replaced by {@link REDACTED}: the exact values given (an API key
 * the caller knows), secrets by their shape, and values of keys that name a secret. Pure; applied
 * to everything a transcript stores, so a key the model echoes (or a tool answer quotes) is never kept.
 */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const k of known) if (k.length >= 6) out = out.split(k).join(REDACTED);
  for (const shape of SHAPES) out = out.replace(shape, REDACTED);
  out = out.replace(SCHEME, (_m, scheme: string, space: string) => `${scheme}${space}${REDACTED}`);
  return out.replace(KEYED, (whole, q: string, key: string, sep: string, quoted: string | undefined, bare: string | undefined) => {
    const value = quoted ?? bare ?? '';
    if (/^(?:-?\d+(?:\.\d+)?|true|false|null)?$/i.test(value) || value === REDACTED) return whole;
    return `${q}${key}${q}${sep}${quoted !== undefined ? `"${REDACTED}"` : REDACTED}`;
  });
}
