// Command line: `npm run emulator -- --port 8787 [--host 127.0.0.1] [--speed 10] [--control]
// [--no-rate-limits] [--now 2027-01-15T00:00:00Z] [--corpus-size 5000] [--quiet] [--mcp-no-anonymous]`.
import { DEMO_KEYS, startEmulator } from './index';

function usage(msg?: string): never {
  if (msg) console.error(`emulator: ${msg}`);
  console.error(
    'usage: npm run emulator -- [--port 8787] [--host 127.0.0.1] [--speed N] [--control] [--no-rate-limits] [--now ISO] [--corpus-size N] [--quiet] [--mcp-no-anonymous]',
  );
  process.exit(2);
}

function parseArgs(argv: string[]): Parameters<typeof startEmulator>[0] {
  const o: NonNullable<Parameters<typeof startEmulator>[0]> = { port: 8787, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) usage(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--port': {
        const p = Number(value());
        if (!Number.isInteger(p) || p < 0 || p > 65535) usage('--port must be 0..65535');
        o.port = p;
        break;
      }
      case '--host':
        o.host = value();
        break;
      case '--speed': {
        const s = Number(value());
        if (!(s > 0)) usage('--speed must be > 0');
        o.speed = s;
        break;
      }
      case '--control':
        o.controlApi = true;
        break;
      case '--no-rate-limits':
        o.rateLimits = false;
        break;
      case '--now': {
        const v = value();
        if (Number.isNaN(Date.parse(v))) usage('--now must be an ISO date-time');
        o.now = v;
        break;
      }
      case '--corpus-size': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1) usage('--corpus-size must be a positive integer');
        o.corpusSize = n;
        break;
      }
      case '--quiet':
        o.quiet = true;
        break;
      case '--mcp-no-anonymous':
        o.mcpAnonymous = false;
        break;
      case '--help':
      case '-h':
        usage();
        break;
      default:
        usage(`unknown flag ${a}`);
    }
  }
  return o;
}

function main(): void {
  const opts = parseArgs(process.argv.slice(2));
  startEmulator(opts).then(
    (emu) => {
      console.log(`Research service emulator listening on ${emu.url}`);
      console.log(
        `  clock: ${emu.control.now().toISOString()}  speed: ${opts?.speed ?? 1}  rate limits: ${opts?.rateLimits === false ? 'off' : 'on'}  control API: ${opts?.controlApi ? `${emu.url}/_emulator/*` : 'off'}`,
      );
      console.log('  demo keys (send as x-api-key; enterprise also as Authorization: Bearer):');
      for (const [name, key] of Object.entries(DEMO_KEYS)) console.log(`    ${name.padEnd(10)} ${key}`);
      console.log(
        `  MCP server: ${emu.url}/mcp (${opts?.mcpAnonymous === false ? 'credentials required' : 'no credentials: 3 papers'}; Authorization: Bearer <any demo key> or OAuth at ${emu.url}/.well-known/oauth-authorization-server)`,
      );
      console.log('Press Ctrl+C to stop.');
      const stop = (): void => {
        console.log('\nStopping emulator.');
        emu.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (e: unknown) => {
      console.error(`emulator: could not start: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
}

main();
