// `executorch-pack validate PTE [PTD...]`: validate()'s findings, one per
// line, or as JSON; exit 0 no errors, 1 errors found.
import { basename } from 'node:path';
import { printable, stringify } from '../format.mjs';
import { openInputs, reportFetched, shownName } from '../inputs.mjs';
import { UsageError, parseArgs } from '../args.mjs';
import { formatFinding } from '../report.mjs';
import { validateTargetOptions } from '../requirements.mjs';

export const usage = `Usage: executorch-pack validate PTE [PTD...] [--json] [--runtime X.Y] [--backends A,B]

Checks a .pte and the .ptd files it uses (external tensors are resolved
against them), or a .ptd on its own, as the ExecuTorch runtime would load
them; a .bpte's program likewise, then its test cases against the methods.
Prints every error and warning with its code and location.

Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage or I/O
problem.

Options:
  --json                        print the report as JSON ({ok, errors, warnings})
  --runtime X.Y                 target ExecuTorch release: every feature newer than it is an error
  --backends A,B                delegate backends the target links: every other one is an error
  --deprecated-constant-buffer  target builds with the deprecated constant_buffer path (Buck's
                                default): a missing constant segment placeholder is a warning
  --header 'Name: value'        HTTP header for URL inputs (repeatable)
  --timeout SECONDS             idle timeout of each request to a URL (default 30)
`;

export async function run(argv, { init, help }) {
  const spec = {
    json: 'flag', help: 'flag', header: 'list', timeout: 'value', runtime: 'value', backends: 'value', 'deprecated-constant-buffer': 'flag',
  };
  const { options, positional } = parseArgs(argv, spec, 'validate');
  if (options.help) return help('validate');
  if (positional.length < 1) throw new UsageError('validate needs a PTE (or PTD) file', 'validate');
  if (options.runtime !== undefined && !/^v?\d{1,6}\.\d{1,6}(\.\d{1,6})?$/.test(options.runtime)) {
    throw new UsageError(`--runtime must be a release like 1.0, got '${printable(options.runtime)}'`, 'validate');
  }
  const [main, ...rest] = positional;
  const et = await init();
  const inputs = await openInputs(et, positional, { headers: options.header, env: process.env, timeout: options.timeout });
  const pte = inputs[0];
  const ptds = {};
  rest.forEach((p, i) => {
    const base = basename(p.replace(/[?#].*$/, ''));
    let name = base;
    for (let n = 2; name in ptds; ++n) name = `${base}#${n}`;
    ptds[name] = inputs[i + 1];
  });
  const report = await et.withFetchedRanges(() => et.validate(pte, ptds, validateTargetOptions(options)));  // URL inputs: padding past the prefetch
  reportFetched(inputs);
  if (options.json) {
    process.stdout.write(`${stringify({ schema: 1, command: 'validate', ...report })}\n`);
  } else {
    for (const f of report.errors) process.stdout.write(`${formatFinding(f, 'error')}\n`);
    for (const f of report.warnings) process.stdout.write(`${formatFinding(f, 'warning')}\n`);
    const files = printable([main, ...rest].map(shownName).join(', '));
    process.stdout.write(report.ok
      ? `${files}: OK (${report.warnings.length} warning(s))\n`
      : `${files}: ${report.errors.length} error(s), ${report.warnings.length} warning(s)\n`);
  }
  return report.ok ? 0 : 1;
}
