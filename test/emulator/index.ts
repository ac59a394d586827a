// Public entry of the service emulator: startEmulator(options) → { url, close(), control } and DEMO_KEYS.
// Used by every test, the benchmark and the demo, over real HTTP on 127.0.0.1.
import { getEngine, matchesFilters, tokenize, type Filters, type Hit } from './engine';
import { getCorpus, type Paper } from './corpus';
import { DEMO_KEYS, EmulatorServer, type EmulatorControl, type EmulatorOptions } from './server';
import { TOPICS } from './vocab';

export { DEMO_KEYS, getCorpus, getEngine, matchesFilters, tokenize };
export type { Filters, Hit, Paper, EmulatorControl, EmulatorOptions };
export type {
  ChargeEntry,
  DemoKeyName,
  FaultSpec,
  KeyEncoding,
  McpRpcLogEntry,
  Plan,
  ProvisionOptions,
  RateLimitOption,
  RequestLogEntry,
  RouteName,
  RunOutcomeOptions,
  UsageInfo,
} from './server';
export {
  PLANS,
  THREAD_COST,
  RUN_MS,
  STATUS_WINDOW_MS,
  BODY_LIMIT,
  MONTHLY_MESSAGE,
  RATE_MESSAGE,
  KEY_ENCODINGS,
  encodeKey,
} from './server';
export { STUDY_TYPES, DOMAINS } from './vocab';
export {
  MCP_ANONYMOUS_PAGE_SIZE,
  MCP_PAGE_SIZE,
  MCP_SEARCH_PARAMS,
  MCP_SEARCH_TOOL,
  MCP_STUDY_TYPES,
  validateMcpSearch,
} from './mcpTool';
export type { McpSearchArgs, McpStudyType } from './mcpTool';
export { parseStudyTypes } from './validation';
export { corpusForms, coverageSample, isTitleCase, sameTitleGroups } from './coverage';
export type { CorpusForm, CoverageSample, SampledPaper } from './coverage';

export interface RunningEmulator {
  /** Base URL, e.g. http://127.0.0.1:43121 (no trailing slash). */
  url: string;
  close(): Promise<void>;
  control: EmulatorControl;
}

/** Start an emulator. The corpus is generated once per process and shared between instances. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const server = new EmulatorServer(options);
  const url = await server.listen();
  return { url, close: () => server.close(), control: server.control };
}

/**
 * Deterministic, varied search queries for benchmarks (topic phrases, single terms, multi-topic
 * mixes and a few that match nothing).
 */
export function sampleQueries(n = 200, seed = 42): string[] {
  let a = seed >>> 0;
  const rnd = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = pick(TOPICS);
    switch (i % 6) {
      case 0:
        out.push(`${pick(t.exposures)} ${pick(t.outcomes)}`);
        break;
      case 1:
        out.push(`effect of ${pick(t.exposures)} on ${pick(t.outcomes)} in ${pick(t.populations)}`);
        break;
      case 2:
        out.push(pick(t.outcomes));
        break;
      case 3:
        out.push(`${pick(t.mechanisms)} ${pick(t.instruments)}`);
        break;
      case 4:
        out.push(`${pick(t.exposures)} ${pick(pick(TOPICS).outcomes)}`);
        break;
      default:
        out.push(i % 30 === 5 ? `zyxqv nonexistent ${i}` : `${pick(t.exposures)} randomized trial meta-analysis`);
    }
  }
  return out;
}
