/**
 * The machinery of the linear-time proofs: hostile inputs of a given size, grouped in families, and a suite that runs
 * every scanner of a table on every input of its families and asserts a bound so wide that only a super-linear scanner
 * can exceed it (a linear one reads 1 MB in milliseconds; a quadratic one needs minutes, a cubic one hours).
 *
 * Adding scanners: describe them as `Scanner` rows (name, the families of input they read, optionally inputs of their
 * own and a preparation outside the timing) and pass the table to `linearTimeSuite`, in any test file.
 */
import * as assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';

export const MB = 1 << 20;

/** Families of hostile input; a scanner reads the families whose syntax it cares about ('text' always). */
export type Family = 'text' | 'latex' | 'pandoc' | 'typst' | 'yaml' | 'markdown' | 'bibtex';

export interface HostileInput {
  name: string;
  text: string;
}

export interface Scanner<T = string> {
  /** `module: function (what)`, as the report names it. */
  name: string;
  /** Input families besides 'text' (default: none). */
  families?: readonly Family[];
  /** Inputs only this scanner reads, built at `size` characters. */
  extra?: (size: number) => HostileInput[];
  /** Work done outside the timing (wrapping the input in a .bib entry, parsing it…). */
  prepare?(input: string): T;
  /** The scan itself. */
  run(prepared: T): unknown;
}

/** A row whose `run` takes what its `prepare` returns (typed here, erased in the table). */
export const prepared = <T>(row: Scanner<T> & { prepare(input: string): T }): Scanner<unknown> => row;

/** `unit` repeated to `size` characters. */
export const fill = (unit: string, size: number): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
/** `head`, `unit` repeated, `tail`: `size` characters in all. */
export const wrap = (head: string, unit: string, tail: string, size: number): string =>
  head + fill(unit, Math.max(0, size - head.length - tail.length)) + tail;

type Recipe = [name: string, build: (size: number) => string];
const runs = (units: readonly string[]): Recipe[] =>
  units.map((u) => [`${JSON.stringify(u)} repeated`, (n: number) => fill(u, n)]);

/**
 * Recipes per family: long runs of the characters patterns repeat, unclosed delimiters, many openers, deep nesting.
 * Each family holds the inputs that made some scanner of its syntax super-linear, and the generic ones every
 * scanner reads ('text').
 */
const RECIPES: Record<Family, Recipe[]> = {
  text: [
    ...runs(['a', '\n', '\r\n', '\\', '{', '[', '`', '@', '"']),
    ['1 MB line of words without a newline', (n) => wrap('', 'Lorem ipsum dolor sit amet. ', 'x', n)],
    ['white space then a letter', (n) => wrap('', ' \t', 'x', n)],
  ],
  latex: [
    ...runs([
      '\\cite{',
      '\\cite[',
      '\\cite{a}',
      '~\\cite{a} ',
      '\\bibliography{',
      '\\addbibresource[',
      '\\addbibresource{',
      '\\documentclass[',
      '\\%',
      '{\\"',
      '\\c ',
    ]),
    ['\\cite{ and a 1 MB key', (n) => wrap('\\cite{', 'a', '', n)],
    ['\\ and cite repeated', (n) => wrap('\\', 'cite', '', n)],
    ['\\cite[ never closed', (n) => wrap('\\cite[', 'a', '', n)],
    ['% !TeX root = then white space', (n) => wrap('% !TeX root = a', ' ', 'b', n)],
    ['\\documentclass[ never closed', (n) => wrap('\\documentclass[', 'a', '', n)],
    ['backslashes then %', (n) => wrap('', '\\', '%', n)],
    ['accent then white space', (n) => wrap("\\'", ' ', '', n)],
    ['accent, brace, white space', (n) => wrap("\\'{", ' ', '', n)],
  ],
  pandoc: [
    ...runs(['[@', '[@a', '[@a]', '@a ', '-@a ', 'a@', '[a](', '---\n']),
    ['[@ then white space', (n) => wrap('[@', ' ', '', n)],
    ['[ then white space then @', (n) => wrap('[', ' ', '@', n)],
    ['@ and a 1 MB key', (n) => wrap('@', 'a:', '', n)],
    ['[ and a 1 MB key list', (n) => wrap('[', '@a; ', '', n)],
  ],
  typst: [
    ...runs(['@a[', '@a.', '#cite(<', '#cite(<a>', '#bibliography(', '#bibliography((', '"\\', '\\"', '/*', '*/']),
    ['#cite(< never closed', (n) => wrap('#cite(<', 'a', '', n)],
    ['#bibliography(( never closed', (n) => wrap('#bibliography(("a", ', '"b", ', '', n)],
    ['a string never closed', (n) => wrap('"', 'a', '', n)],
    ['a block comment never closed', (n) => wrap('/*', 'a', '', n)],
  ],
  yaml: [
    ...runs(['---\n', 'bibliography: ']),
    ['front matter never closed', (n) => wrap('---\n', 'title: a\n', '', n)],
    ['a 1 MB bibliography list', (n) => wrap('---\nbibliography:\n', '  - a.bib\n', '---\n', n)],
    ['a bibliography value then white space', (n) => wrap('---\nbibliography: a', ' ', 'b\n---\n', n)],
    ['a flow list never closed', (n) => wrap('---\nbibliography: [', 'a, ', '', n)],
    ['a quoted value never closed', (n) => wrap('---\nbibliography: "', 'a\\', '', n)],
  ],
  markdown: [
    ...runs([
      '[1.',
      '[1,',
      '[1]',
      '[1][2]',
      '`a` [1] ',
      '\\[1]',
      '``',
      '```\n',
      '    a\n',
      'http://a.b/',
      'https://a.b/x*',
      '![',
      '*a',
      '_a',
      '&#',
      '\uE0001\uE001',
    ]),
    ['a marker group never closed', (n) => wrap('[1', ', 1', '', n)],
    ['a code span never closed', (n) => wrap('`', 'a', '', n)],
    ['a fence never closed', (n) => wrap('```\n', 'a [1]\n', '', n)],
    ['nested brackets', (n) => fill('[', n >> 1) + fill(']', n >> 1)],
    ['a URL of dots', (n) => wrap('https://a.b/', '.', '', n)],
    ['a code block of spaces', (n) => wrap('```\n', ' ', 'x\n```\n', n)],
  ],
  bibtex: [...runs(['{\\"u}', "\\'{", 'a and ', '--', '$\\alpha$'])],
};

/** Inputs built so far, by name and size (every scanner of a family reads the same ones). */
const built = new Map<string, string>();

/** The hostile inputs of these families ('text' always included), `size` characters each. */
export function hostileInputs(families: readonly Family[] = [], size = MB): HostileInput[] {
  const all = new Set<Family>(['text', ...families]);
  const out: HostileInput[] = [];
  for (const f of all) {
    for (const [recipe, build] of RECIPES[f]) {
      const name = `${f}: ${recipe}`;
      let text = built.get(`${size} ${name}`);
      if (text === undefined) built.set(`${size} ${name}`, (text = build(size)));
      out.push({ name, text });
    }
  }
  return out;
}

/** Milliseconds one run of `scanner` over `input` takes (preparation excluded). */
export function timeScanner<T>(scanner: Scanner<T>, input: string): number {
  const prepared = scanner.prepare ? scanner.prepare(input) : (input as unknown as T);
  const t0 = performance.now();
  scanner.run(prepared);
  return performance.now() - t0;
}

/** Every input of a scanner at `size`: its families' and its own. */
export function inputsOf<T>(scanner: Scanner<T>, size = MB): HostileInput[] {
  return [...hostileInputs(scanner.families ?? [], size), ...(scanner.extra?.(size) ?? [])];
}

export interface LinearTimeOptions {
  /** Run once before the timings (loading a library the scanners need). */
  setup?: () => Promise<unknown> | void;
  /** Input size in characters (default 1 MB). */
  size?: number;
  /**
   * The bound per input (default 5,000 ms). A linear scanner reads 1 MB in milliseconds to a few hundred (up to two
   * seconds on a machine shared with other work when every character is escaped or a marker); every quadratic one
   * this suite was written against needed from 10 s to hours. A slow run is measured once more before it fails.
   */
  boundMs?: number;
}

/** Registers one Mocha test per scanner: every input at `size` finishes within `boundMs`; prints the slowest. */
export function linearTimeSuite(
  title: string,
  scanners: readonly Scanner<unknown>[],
  options: LinearTimeOptions = {},
): void {
  const size = options.size ?? MB;
  const bound = options.boundMs ?? 5000;
  const summary = { inputs: 0, worst: { ms: 0, what: '' } };
  describe(title, function () {
    this.timeout(0);
    if (options.setup) before(async () => void (await options.setup?.()));
    for (const scanner of scanners) {
      it(scanner.name, () => {
        const slow: string[] = [];
        for (const input of inputsOf(scanner, size)) {
          let ms = timeScanner(scanner, input.text);
          if (ms > bound) ms = Math.min(ms, timeScanner(scanner, input.text));
          summary.inputs++;
          if (ms > summary.worst.ms) summary.worst = { ms, what: `${scanner.name} on ${input.name}` };
          if (ms > bound) slow.push(`${input.name}: ${ms.toFixed(0)} ms`);
        }
        assert.deepEqual(slow, [], `${scanner.name} is not linear on ${size} characters`);
      });
    }
    after(() => {
      const perMb = (summary.worst.ms * MB) / size;
      console.log(
        `      linear time: ${summary.inputs} inputs of ${size} characters; slowest ${perMb.toFixed(1)} ms per MB (${summary.worst.what})`,
      );
    });
  });
}
