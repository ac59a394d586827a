/**
 * Starts the project's emulator (test/emulator/index.ts) for the real-VS Code runs. The
 * module is loaded at run time so these scripts keep compiling while it is being built.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, UserFacingError, log } from './util';

export interface RunningEmulator {
  url: string;
  close(): Promise<void>;
  control: unknown;
}

export interface EmulatorModule {
  startEmulator(options: Record<string, unknown>): Promise<RunningEmulator>;
  DEMO_KEYS: Record<string, string>;
}

const EMULATOR_ENTRY = join(REPO_ROOT, 'test', 'emulator', 'index.ts');

export function emulatorAvailable(): boolean {
  return existsSync(EMULATOR_ENTRY);
}

export function loadEmulator(): EmulatorModule {
  if (!emulatorAvailable()) throw new UserFacingError(`The emulator is missing (${EMULATOR_ENTRY}).`);
  // Runs under tsx, which compiles the .ts on require.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(EMULATOR_ENTRY) as Partial<EmulatorModule>;
  if (typeof mod.startEmulator !== 'function' || typeof mod.DEMO_KEYS !== 'object') {
    throw new UserFacingError(`${EMULATOR_ENTRY} does not export startEmulator and DEMO_KEYS.`);
  }
  return mod as EmulatorModule;
}

/** Starts the emulator for tests: any port, control API on, no rate limits, fast agent. */
export async function startTestEmulator(extra: Record<string, unknown> = {}): Promise<RunningEmulator | undefined> {
  if (!emulatorAvailable()) {
    log('emulator', 'test/emulator/index.ts not found: running without an emulator');
    return undefined;
  }
  const mod = loadEmulator();
  const emu = await mod.startEmulator({
    port: 0,
    controlApi: true,
    rateLimits: false,
    speed: 50,
    quiet: true,
    ...extra,
  });
  log('emulator', `listening on ${emu.url}`);
  return emu;
}
