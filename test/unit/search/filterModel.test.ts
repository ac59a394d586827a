/** The filter model: typed input parsed and checked with the client's rules, descriptions, presets. */
import assert from 'node:assert/strict';
import { validateSearchParams } from '../../../src/api';
import {
  listItems,
  COUNTRY_CODES,
  countryName,
  describeFilters,
  DOMAIN_CODES,
  DOMAIN_NAMES,
  FILTER_FIELDS,
  FILTER_KEYS,
  fieldValueText,
  filterProblems,
  parseFieldInput,
  resolveFilterObject,
  resolvePreset,
  type FilterField,
} from '../../../src/search/filterModel';

const field = (id: string): FilterField => {
  const f = FILTER_FIELDS.find((x) => x.id === id);
  if (!f) throw new Error(id);
  return f;
};
const NOW = new Date('2026-11-21T12:00:00Z');

describe('filters/model', () => {
  it('edits every filter of the spec and both response options, each once', () => {
    const spec = [
      'year_min',
      'year_max',
      'month_min',
      'month_max',
      'study_types',
      'human',
      'controlled',
      'sample_size_min',
      'sjr_min',
      'sjr_max',
      'citation_min',
      'duration_min',
      'duration_max',
      'exclude_preprints',
      'open_access',
      'publisher_name',
      'domain',
      'country',
      'journal_name',
      'clinical_guideline',
      'medical_mode',
      'include_semantic_score',
      'include_full_text_chunks',
    ];
    assert.deepEqual([...FILTER_KEYS].sort(), [...spec].sort());
    assert.equal(new Set(FILTER_KEYS).size, FILTER_KEYS.length);
    // Every key is one the client's validation accepts (no "Unknown parameter").
    for (const k of FILTER_KEYS) assert.ok(!filterProblems({ [k]: undefined }).length, k);
  });

  it('ranges: FROM-TO, FROM-, -TO and a single value; empty clears', () => {
    const years = field('years');
    assert.deepEqual(parseFieldInput(years, '2019-2024', {}), { ok: true, values: { year_min: 2019, year_max: 2024 } });
    assert.deepEqual(parseFieldInput(years, '2019-', {}), {
      ok: true,
      values: { year_min: 2019, year_max: undefined },
    });
    assert.deepEqual(parseFieldInput(years, ' -2024', {}), {
      ok: true,
      values: { year_min: undefined, year_max: 2024 },
    });
    assert.deepEqual(parseFieldInput(years, '2020', {}), { ok: true, values: { year_min: 2020, year_max: 2020 } });
    assert.deepEqual(parseFieldInput(years, '', { year_min: 1 }), {
      ok: true,
      values: { year_min: undefined, year_max: undefined },
    });
    assert.deepEqual(parseFieldInput(field('sjr'), '1 to 2', {}), { ok: true, values: { sjr_min: 1, sjr_max: 2 } });
  });

  it('rejects bad input with the specific rule that it breaks (the client rules)', () => {
    const msg = (id: string, text: string, base = {}): string => {
      const r = parseFieldInput(field(id), text, base);
      assert.equal(r.ok, false, `${id} ${text} accepted`);
      return r.ok ? '' : r.message;
    };
    assert.match(msg('years', '2024-2019'), /The first year must not exceed the last year/);
    assert.match(msg('years', 'last year'), /FROM-TO/);
    assert.match(msg('sjr', '0-5'), /The best quartile must be at least 1/);
    assert.match(msg('sjr', '1-5'), /The worst quartile must be at most 4/);
    assert.match(msg('months', '3-9'), /The first month needs the first year/);
    assert.match(msg('months', '13-'), /must be at most 12/);
    assert.match(
      msg('months', '9-3', { year_min: 2020, year_max: 2020 }),
      /The first month must not exceed the last month/,
    );
    assert.match(msg('sample_size_min', '0'), /must be at least 1/);
    assert.match(msg('sample_size_min', '12.5'), /not a whole number/);
    assert.match(msg('duration', '30-7'), /The shortest duration must not exceed the longest duration/);
    assert.match(msg('publisher_name', 'Springer, Nature'), /cannot contain a comma/);
    // The writer's words: no field name of the service in any of them.
    for (const [id, text] of [
      ['years', '2024-2019'],
      ['sjr', '0-5'],
      ['months', '3-9'],
      ['duration', '30-7'],
    ] as const)
      assert.doesNotMatch(msg(id, text), /\b(year|month|sjr|duration)_(min|max)\b/, `${id} ${text}`);
    // Another field's existing problem does not block this one.
    assert.equal(parseFieldInput(field('citation_min'), '5', { sjr_min: 4, sjr_max: 1 }).ok, true);
  });

  it('a valid set passes the client rules exactly as sent', () => {
    const f = {
      year_min: 2020,
      month_min: 3,
      study_types: ['rct' as const],
      country: ['US', 'GB'],
      domain: ['med' as const],
      publisher_name: ['Elsevier'],
    };
    assert.deepEqual(filterProblems(f), []);
    assert.deepEqual(validateSearchParams({ query: 'q', ...f }), []);
  });

  it('shows each value and describes the set briefly', () => {
    const f = {
      year_min: 2021,
      sjr_min: 1,
      sjr_max: 1,
      study_types: ['rct' as const, 'meta-analysis' as const],
      human: true,
      open_access: false,
      domain: ['med' as const, 'psych' as const],
      citation_min: 10,
    };
    assert.equal(fieldValueText(field('years'), f), '2021+');
    assert.equal(fieldValueText(field('sjr'), f), 'Q1');
    assert.equal(fieldValueText(field('domain'), f), 'Medicine, Psychology');
    assert.equal(fieldValueText(field('open_access'), f), 'no');
    assert.equal(
      describeFilters(f),
      '2021+ · Randomized controlled trial (RCT), Meta-analysis · human · Q1 · cited ≥ 10 · not open access · Medicine, Psychology',
    );
    assert.equal(describeFilters({}), '');
    assert.equal(describeFilters({ study_types: ['rct', 'meta-analysis', 'cohort study'] }), '3 study types');
  });

  it('domains have readable names; countries are ISO alpha-2 with names', () => {
    for (const d of DOMAIN_CODES) assert.ok(DOMAIN_NAMES[d]);
    assert.equal(COUNTRY_CODES.length, 249);
    assert.ok(COUNTRY_CODES.every((c) => /^[A-Z]{2}$/.test(c)));
    assert.equal(countryName('DE'), 'Germany');
  });

  it('presets: lastYears is relative to the year when applied; malformed ones name the problem', () => {
    assert.deepEqual(resolveFilterObject({ lastYears: 5, sjr_max: 1 }, NOW, 'x'), {
      ok: true,
      filters: { year_min: 2021, sjr_max: 1 },
    });
    assert.deepEqual(resolveFilterObject({ lastYears: 5 }, new Date('2030-01-01T00:00:00Z'), 'x'), {
      ok: true,
      filters: { year_min: 2025 },
    });
    const bad = resolvePreset({ name: 'Broken', filters: { sjr_max: 9, study_type: ['rct'] } }, NOW, 0);
    assert.equal(bad.ok, false);
    assert.equal(bad.name, 'Broken');
    assert.match(bad.ok ? '' : bad.message, /Preset "Broken": .*sjr_max: Input should be less than or equal to 4/);
    assert.match(bad.ok ? '' : bad.message, /study_type: Unknown parameter/);
    const noName = resolvePreset({ filters: {} }, NOW, 2);
    assert.match(noName.ok ? '' : noName.message, /Preset 3 has no "name"/);
    const notObject = resolvePreset({ name: 'N', filters: [1] }, NOW, 0);
    assert.match(notObject.ok ? '' : notObject.message, /"filters" must be an object/);
    const both = resolveFilterObject({ lastYears: 3, year_min: 2000 }, NOW, 'P');
    assert.match(both.ok ? '' : both.message, /either lastYears or year_min/);
    assert.equal(resolveFilterObject({ lastYears: -1 }, NOW, 'P').ok, false);
  });

  it('the shipped presets in package.json are all valid', async () => {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile(new URL('../../../package.json', `file://${__filename}`), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
    };
    const presets = pkg.contributes.configuration.properties['researchDesk.search.presets']?.default as unknown[];
    assert.ok(presets.length >= 3);
    presets.forEach((p, i) => {
      const r = resolvePreset(p, NOW, i);
      assert.ok(r.ok, r.ok ? '' : r.message);
    });
  });
});

describe('filterModel: listItems', () => {
  it('reads a list filter stored as a comma-separated string or an array, and nothing else', () => {
    assert.deepEqual(listItems(' rct , meta-analysis,, '), ['rct', 'meta-analysis']);
    assert.deepEqual(listItems(['US', 'gb']), ['US', 'gb']);
    assert.deepEqual(listItems(''), []);
    for (const v of [undefined, null, 3, { a: 1 }])
      assert.deepEqual(listItems(v), [], JSON.stringify(v) ?? 'undefined');
  });
});
