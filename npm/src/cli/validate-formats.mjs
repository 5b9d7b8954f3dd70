// validate's outputs for people and for CI: text, JSON, SARIF 2.1.0 (code
// scanning), JUnit XML (test reports: one testcase per file) and GitHub
// Actions workflow commands (annotations). Each takes the models' results
// (validate-run.mjs) and returns the text to print.
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { printable, printableOnce, stringify } from './format.mjs';
import { formatFinding } from './report.mjs';
import { isUrl } from './inputs.mjs';

export const FORMATS = ['text', 'json', 'sarif', 'junit', 'github'];

// Every finding of a run with its severity; a model's error is one error
// finding on its file.
function findingsOf(r) {
  const list = [...r.errors.map((f) => ({ ...f, severity: 'error' })), ...r.warnings.map((f) => ({ ...f, severity: 'warning' }))];
  if (r.error) list.unshift({ code: r.error.code, message: r.error.message, file: r.error.file, offset: null, path: null, severity: 'error', hint: r.error.hint });
  return list;
}

export function summary(results) {
  const files = results.reduce((n, r) => n + r.files.length, 0);
  const failed = results.filter((r) => !r.ok).length;
  const count = (sev) => results.reduce((n, r) => n + findingsOf(r).filter((f) => f.severity === sev).length, 0);
  return { files, models: results.length, passed: results.length - failed, failed, errors: count('error'), warnings: count('warning') };
}

export function summaryLine(s) {
  return `validated ${s.files} file(s) in ${s.models} model(s): ${s.passed} passed, ${s.failed} failed; ${s.errors} error(s), ${s.warnings} warning(s)`;
}

export function text(results) {
  const out = [];
  for (const r of results) {
    for (const f of findingsOf(r)) {
      out.push(formatFinding(f, f.severity));
      if (f.hint) out.push(`  ${printable(f.hint)}`);
    }
    const files = printable(r.files.join(', '));
    const n = findingsOf(r);
    const errors = n.filter((f) => f.severity === 'error').length;
    out.push(r.ok ? `${files}: OK (${r.warnings.length} warning(s))` : `${files}: ${errors} error(s), ${r.warnings.length} warning(s)`);
  }
  if (results.length > 1) out.push(summaryLine(summary(results)));
  return `${out.join('\n')}\n`;
}

// One document: every finding (with its file) in `errors`/`warnings`, each
// model in `results`, the counts in `summary`.
export function json(results) {
  const s = summary(results);
  const all = results.flatMap(findingsOf);
  const strip = ({ severity, hint, ...f }) => f;
  return `${stringify({
    schema: 1, command: 'validate', ok: s.failed === 0,
    errors: all.filter((f) => f.severity === 'error').map(strip),
    warnings: all.filter((f) => f.severity === 'warning').map(strip),
    results, summary: s,
  })}\n`;
}

// A file as a URI reference: a relative path segment by segment, an
// absolute one as a file: URL, a URL as given.
export function fileUri(file) {
  if (isUrl(file)) return file;
  if (isAbsolute(file)) return pathToFileURL(file).href;
  return file.split(/[\\/]/).map(encodeURIComponent).join('/');
}

const where = (f) => [f.offset !== null && f.offset !== undefined ? `offset ${f.offset}` : null, f.path].filter(Boolean).join(', ');
const messageOf = (f) => `${f.message}${where(f) ? ` (${where(f)})` : ''}${f.hint ? `; ${f.hint}` : ''}`;

// SARIF 2.1.0: one rule per finding code, the file as the artifact
// location, a byte offset as the region.
export function sarif(results, version) {
  const findings = results.flatMap(findingsOf);
  const codes = [...new Set(findings.map((f) => f.code))].sort();
  const files = [...new Set(results.flatMap((r) => r.files))];
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: {
        driver: {
          name: 'executorch-pack', version, semanticVersion: version,
          rules: codes.map((code) => ({ id: code, name: code, shortDescription: { text: `executorch-pack validate: ${code}` } })),
        },
      },
      artifacts: files.map((file) => ({ location: { uri: fileUri(file) } })),
      results: findings.map((f) => {
        const location = { artifactLocation: { uri: fileUri(f.file), index: files.indexOf(f.file) } };
        if (f.offset !== null && f.offset !== undefined) location.region = { byteOffset: Number(f.offset) };
        return {
          ruleId: f.code, ruleIndex: codes.indexOf(f.code), level: f.severity,
          message: { text: messageOf(f) },
          locations: [{ physicalLocation: location }],
          ...(f.path ? { properties: { programPath: f.path } } : {}),
        };
      }),
    }],
  };
  return `${stringify(log)}\n`;
}

// XML text: the five entities, and control characters (not allowed in XML
// 1.0) as visible escapes.
const xml = (s) => printableOnce(String(s)).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]);

// JUnit XML: one testcase per file; a file with errors fails (its errors in
// the failure's text), one that cannot be read is an <error>.
export function junit(results) {
  const cases = [];
  for (const r of results) {
    const findings = findingsOf(r);
    for (const file of r.files) {
      const mine = findings.filter((f) => f.file === file || (f.file === null && file === r.files[0]));
      const errors = mine.filter((f) => f.severity === 'error');
      const warnings = mine.filter((f) => f.severity === 'warning');
      const body = (list) => list.map((f) => `${f.severity} ${f.code}: ${messageOf(f)}`).join('\n');
      let inner = '';
      if (r.error && r.error.file === file) inner = `<error type="${xml(r.error.code)}" message="${xml(r.error.message)}">${xml(body(mine))}</error>`;
      else if (errors.length) inner = `<failure type="${xml(errors[0].code)}" message="${xml(`${errors.length} error(s): ${errors[0].message}`)}">${xml(body(mine))}</failure>`;
      if (warnings.length && !inner) inner = `<system-out>${xml(body(warnings))}</system-out>`;
      cases.push({ file, failed: !!errors.length && !(r.error && r.error.file === file), errored: !!(r.error && r.error.file === file), inner });
    }
  }
  const failures = cases.filter((c) => c.failed).length;
  const errors = cases.filter((c) => c.errored).length;
  const attrs = `tests="${cases.length}" failures="${failures}" errors="${errors}"`;
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="executorch-pack validate" ${attrs}>`,
    `  <testsuite name="executorch-pack validate" ${attrs} skipped="0">`];
  for (const c of cases) {
    const open = `    <testcase classname="executorch-pack.validate" name="${xml(c.file)}"`;
    lines.push(c.inner ? `${open}>${c.inner}</testcase>` : `${open}/>`);
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}

// GitHub Actions workflow commands: `::error file=F,title=T::message` per
// finding (warnings as ::warning), then the summary line. Escaped as the
// runner reads them: % \r \n in the message, and : , in properties too.
const data = (s) => printableOnce(String(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
const property = (s) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

export function github(results) {
  const out = [];
  for (const f of results.flatMap(findingsOf)) {
    out.push(`::${f.severity} file=${property(f.file ?? '')},title=${property(`executorch-pack ${f.code}`)}::${data(messageOf(f))}`);
  }
  out.push(summaryLine(summary(results)));
  return `${out.join('\n')}\n`;
}

// The text of the results in `format` (one of FORMATS); `version`, the
// tool's, goes into SARIF.
export function formatResults(format, results, version) {
  return { text, json, sarif: (r) => sarif(r, version), junit, github }[format](results);
}
