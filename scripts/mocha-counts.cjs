// Mocha reporter: the usual `spec` output for people, plus the counts written as JSON
// to $RESEARCH_DESK_COUNTS (used by scripts/test-all.mjs to add up every suite).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

class SpecWithCounts extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failures = [];
    runner.on('fail', (test, err) => failures.push({ title: test.fullTitle(), error: String(err && err.message) }));
    runner.once('end', () => {
      const file = process.env.RESEARCH_DESK_COUNTS;
      if (!file) return;
      const s = runner.stats || {};
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(
        file,
        JSON.stringify({ passed: s.passes || 0, failed: s.failures || 0, pending: s.pending || 0, failures }, null, 2),
      );
    });
  }
}
module.exports = SpecWithCounts;
