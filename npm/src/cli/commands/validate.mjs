// `executorch-pack validate FILE...`: validate()'s findings for every model
// given (a program and the .ptd files after it), one per line with a
// summary, or as JSON, SARIF, JUnit or GitHub annotations
// (../validate-formats.mjs); exit 0 no errors, 1 errors found.
import { printable } from '../format.mjs';
import { parseHeaders, timeoutMs } from '../inputs.mjs';
import { UsageError, nonNegativeInt, parseArgs } from '../args.mjs';
import { validateTargetOptions } from '../requirements.mjs';
import { VALIDATE_OPTIONS, groupModels, runStatus, validateAll } from '../validate-run.mjs';
import { FORMATS, formatResults } from '../validate-formats.mjs';
import { EtpackError } from '../../errors.mjs';
import { writeOut } from '../files.mjs';
import { VERSION } from '../../version.mjs';

export const usage = `Usage: executorch-pack validate FILE... [--format text|json|sarif|junit|github] [--jobs N]
       [--json] [--runtime X.Y] [--backends A,B]
       [--method-allocator BYTES [--arch 64-bit|arm32] [--no-temp-allocator]]

Checks each model given as the ExecuTorch runtime would load it: a .pte with
the .ptd files that follow it on the command line (external tensors are
resolved against them), a .ptd on its own (one before any program), a
.bpte's program likewise, then its test cases against the methods. Prints
every error and warning with its code, file and location, a line per model
and, for several, a summary line (validate models/*.pte: shell globs give
many files).

Exit status: 0 no errors (warnings allowed), 1 errors found in any file (or
a file that is malformed or not a .pte, .ptd or .bpte), 2 usage or I/O
problem (a file that cannot be read).

Options:
  --format FORMAT               text (default); json ({ok, errors, warnings,
                                results, summary}); sarif (SARIF 2.1.0: a rule
                                per code, the file as artifact location); junit
                                (JUnit XML, a testcase per file); github
                                (::error file=...:: workflow commands)
  --json                        the same as --format json
  --jobs N                      validate with N worker threads (default 1)
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
  const { options, positional } = parseArgs(argv, VALIDATE_OPTIONS, 'validate');
  if (options.help) return help('validate');
  if (positional.length < 1) throw new UsageError('validate needs a FILE (.pte, .ptd or .bpte)', 'validate');
  if (options.runtime !== undefined && !/^v?\d{1,6}\.\d{1,6}(\.\d{1,6})?$/.test(options.runtime)) {
    throw new UsageError(`--runtime must be a release like 1.0, got '${printable(options.runtime)}'`, 'validate');
  }
  const format = options.format ?? (options.json ? 'json' : 'text');
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got '${printable(format)}'`, 'validate');
  if (options.json && format !== 'json') throw new UsageError(`--json is --format json; it cannot go with --format ${format}`, 'validate');
  const jobs = nonNegativeInt(options, 'jobs', 'validate') ?? 1;
  if (jobs < 1 || jobs > 256) throw new UsageError(`--jobs must be from 1 to 256, got ${jobs}`, 'validate');
  const target = { ...validateTargetOptions(options), ...methodAllocatorOption(options) };
  const open = { headers: options.header, env: { HF_TOKEN: process.env.HF_TOKEN }, timeout: options.timeout };
  parseHeaders(options.header);  // a malformed --header is a usage error before any file is read
  timeoutMs(options.timeout);

  const models = groupModels(positional);
  const et = await init();
  const results = await validateAll(et, models, { open, target }, jobs);
  // One model that cannot be read, in text or JSON: the error every command
  // gives (the dispatcher prints it, naming the file; JSON {ok: false, error}).
  if (models.length === 1 && results[0].error && (format === 'text' || format === 'json')) {
    const { code, message, file, exitStatus, hint } = results[0].error;
    throw Object.assign(new EtpackError(code, message), { file, exitStatus }, hint ? { hint } : {});
  }
  writeOut(formatResults(format, results, VERSION));
  return runStatus(results);
}
