/**
 * Shared sink for benchmark figures: every benchmark records `{ name, value, unit, goal }`
 * entries here; they are merged by name into bench/results.json and printed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  /** Human-readable goal, e.g. "<= 1.10" or "< 20 ms". */
  goal?: string;
  /** Whether the measured value meets the goal (undefined when there is no goal). */
  met?: boolean;
  note?: string;
}

export const RESULTS_FILE = join(__dirname, 'results.json');

export function recordResults(entries: BenchResult[], file = RESULTS_FILE): BenchResult[] {
  let existing: BenchResult[];
  try {
    existing = JSON.parse(readFileSync(file, 'utf8')) as BenchResult[];
  } catch {
    existing = [];
  }
  const byName = new Map(existing.map((e) => [e.name, e]));
  for (const e of entries) byName.set(e.name, e);
  const merged = [...byName.values()];
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(merged, null, 2) + '\n');
  for (const e of entries) {
    const verdict = e.met === undefined ? '' : e.met ? '  [goal met]' : '  [goal MISSED]';
    console.log(`${e.name}: ${round(e.value)} ${e.unit}${e.goal ? `  (goal ${e.goal})` : ''}${verdict}`);
  }
  return merged;
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function round(v: number): number {
  return Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 1000) / 1000;
}

/**
 * A bench file run by itself (`npx tsx bench/<name>.ts [--record]`): its figures printed, or recorded with --record.
 */
export function runAsScript(bench: () => Promise<BenchResult[]>): void {
  bench()
    .then((r) => {
      if (process.argv.includes('--record')) recordResults(r);
      else
        for (const e of r)
          console.log(`${e.name}: ${e.value} ${e.unit}${e.goal ? ` (goal ${e.goal})` : ''} — ${e.note ?? ''}`);
    })
    .catch((e: unknown) => {
      console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
      process.exit(1);
    });
}
