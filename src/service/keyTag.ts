import { createHmac } from 'node:crypto';

/**
 * A one-way tag of an API key, to tell which key a thread was asked with: it is kept beside the run in globalState,
 * where the key itself never goes. An HMAC keyed by the key and cut to 64 bits names the key and tells nothing of it.
 */
export const keyTag = (key: string): string =>
  createHmac('sha256', key).update('research-desk: the key a thread was asked with').digest('hex').slice(0, 16);
