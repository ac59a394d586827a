import { EnvVars } from '../platform/ids';
import { isLoopbackHttpUrl } from '../shared/url';
import type { KeyStore } from './keyStore';
import type { Logger } from '../platform/logger';
import type { SettingsStore } from '../platform/settings';

/**
 * Demo hand-off: when `RESEARCH_DESK_DEMO_KEY` is set in the environment of the extension
 * host AND the effective (user-level) base URL is a loopback http address, store that key
 * for that address, so `npm run demo` needs nothing typed. Never honoured for any other URL.
 * A key already stored for that address is kept: the hand-off runs on every start of the
 * extension host (each reload of the window), and a key the writer typed must outlive it.
 * Returns what it did, for the log and the tests.
 */
export async function applyDemoKey(
  env: NodeJS.ProcessEnv,
  settings: SettingsStore,
  keys: KeyStore,
  log: Logger,
): Promise<'stored' | 'unchanged' | 'kept' | 'ignored' | 'absent'> {
  const demoKey = env[EnvVars.demoKey]?.trim();
  if (!demoKey) return 'absent';
  log.addSecret(demoKey);
  const { baseUrl, origin } = settings.service;
  if (!origin || !isLoopbackHttpUrl(baseUrl)) {
    log.warn(`${EnvVars.demoKey} is set but ignored: the service address ${baseUrl} is not a loopback http address.`);
    return 'ignored';
  }
  const stored = await keys.get(origin);
  if (stored === demoKey) return 'unchanged';
  if (stored) {
    log.info(`Kept the key stored for ${origin}; the demo key from ${EnvVars.demoKey} was not stored over it.`);
    return 'kept';
  }
  await keys.set(demoKey, origin);
  log.info(`Stored the demo key from ${EnvVars.demoKey} for ${origin}.`);
  return 'stored';
}
