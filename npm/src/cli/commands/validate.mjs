// `executorch-pack validate PTE [PTD...]`: validate()'s findings, one per
// line, or as JSON; exit 0 no errors, 1 errors found.
import { basename } from 'node:path';
import { printable, stringify } from '../format.mjs';
import { openInputs, reportFetched, shownName } from '../inputs.mjs';
import { UsageError, parseArgs } from '../args.mjs';
import { formatFinding } from '../report.mjs';
import { validateTargetOptions } from '../requirements.mjs';

export const usage = `Usage: executorch-pack validate PTE [PTD...] [--json] [--runtime X.Y] [--backends A,B]
       [--method-allocator BYTES [--arch 64-bit|arm32] [--no-temp-allocator]]

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
  --method-allocator BYTES      the method allocator the target gives load_method: every method
                                needing more (the .ptd files given counted) is an error
                                (METHOD_ALLOCATOR_TOO_SMALL) naming the bytes missing
  --arch 64-bit|arm32           the target's architecture for --method-allocator (default 64-bit)
  --no-temp-allocator           the target gives load_method no temp allocator
  --header 'Name: value'        HTTP header for URL inputs (repeatable)
  --timeout SECONDS             idle timeout of each request to a URL (default 30)
`;

// --method-allocator BYTES [--arch] [--no-temp-allocator] as validate()'s
// methodAllocator option; --arch and --no-temp-allocator only with it.
function methodAllocatorOption(options) {
  const bytes = options['method-allocator'];
  if (bytes === undefined) {
    if (options.arch !== undefined || options['no-temp-allocator']) {
      throw new UsageError('--arch and --no-temp-allocator describe the pool of --method-allocator BYTES, which is missing', 'validate');
    }
    return {};
  }
  if (!/^\d{1,20}$/.test(bytes) || BigInt(bytes) > 0xffffffffffffffffn) {
    throw new UsageError(`--method-allocator takes a byte count (decimal digits), got '${printable(bytes)}'`, 'validate');
  }
  const arch = options.arch ?? '64-bit';
  if (arch !== '64-bit' && arch !== 'arm32') throw new UsageError(`--arch must be 64-bit or arm32, got '${printable(arch)}'`, 'validate');
  return { methodAllocator: { bytes: BigInt(bytes), arch, tempAllocator: !options['no-temp-allocator'] } };
}

export async function run(argv, { init, help }) {
  const spec = {
    json: 'flag', help: 'flag', header: 'list', timeout: 'value', runtime: 'value', backends: 'value', 'deprecated-constant-buffer': 'flag',
    'method-allocator': 'value', arch: 'value', 'no-temp-allocator': 'flag',
  };
  const { options, positional } = parseArgs(argv, spec, 'validate');
  if (options.help) return help('validate');
  if (positional.length < 1) throw new UsageError('validate needs a PTE (or PTD) file', 'validate');
  if (options.runtime !== undefined && !/^v?\d{1,6}\.\d{1,6}(\.\d{1,6})?$/.test(options.runtime)) {
    throw new UsageError(`--runtime must be a release like 1.0, got '${printable(options.runtime)}'`, 'validate');
  }
  const methodAllocator = methodAllocatorOption(options);
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
  const report = await et.withFetchedRanges(() => et.validate(pte, ptds, { ...validateTargetOptions(options), ...methodAllocator }));  // URL inputs: padding past the prefetch
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
