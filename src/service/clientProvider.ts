import { createClient, type Client } from '../api/index';
import type { KeyStore } from './keyStore';
import type { Logger } from '../platform/logger';
import type { ServiceSettings, SettingsStore } from '../platform/settings';
import { Disposable } from '../shared/disposable';

export type ResearchClient = Client;

/**
 * Builds the API client from the user-level settings and the key store, and rebuilds it
 * when a setting that shapes it changes. The key is read on every request (never cached
 * here), so a key set or cleared in another window applies at once.
 */
export class ClientProvider extends Disposable {
  private cached: { signature: string; client: ResearchClient } | undefined;

  constructor(
    private readonly settings: SettingsStore,
    private readonly keys: KeyStore,
    private readonly log: Logger,
  ) {
    super();
    this.register(settings.onDidChange(() => this.drop()));
    this.register({ dispose: () => this.drop() });
  }

  private drop(): void {
    const old = this.cached?.client;
    this.cached = undefined;
    // Requests in flight on the old client finish; its connection pool is then released.
    void old?.close().catch(() => undefined);
  }

  /** The current service settings, without making a client (which loads the HTTP stack). */
  service(): ServiceSettings {
    return this.settings.service;
  }

  /**
   * A client for the current settings that sends `key` instead of the stored one: to check a key before it is
   * stored. The caller closes it.
   */
  withKey(key: string): { client: ResearchClient; service: ServiceSettings } {
    const service = this.settings.service;
    return {
      client: createClient({
        baseUrl: service.baseUrl,
        apiKey: key,
        authScheme: service.authScheme,
        timeoutMs: service.timeoutMs,
        proxy: service.proxy,
      }),
      service,
    };
  }

  /** The client for the current settings, with the settings it was built from. */
  get(): { client: ResearchClient; service: ServiceSettings } {
    const service = this.settings.service;
    const signature = JSON.stringify([service.baseUrl, service.authScheme, service.timeoutMs, service.proxy]);
    if (this.cached?.signature !== signature) {
      this.drop();
      const origin = service.origin;
      this.cached = {
        signature,
        client: createClient({
          baseUrl: service.baseUrl,
          // Read per request, for the origin this client talks to only.
          apiKey: async () => (origin ? this.keys.get(origin) : undefined),
          authScheme: service.authScheme,
          timeoutMs: service.timeoutMs,
          proxy: service.proxy,
          logger: {
            debug: (m: string) => this.log.debug(m),
            info: (m: string) => this.log.info(m),
            warn: (m: string) => this.log.warn(m),
            error: (m: string) => this.log.error(m),
          },
        }),
      };
    }
    return { client: this.cached.client, service };
  }
}
