// `executorch-pack bundle PTE CASES.safetensors... -o OUT.bpte`: a .pte with
// test cases read from safetensors files (naming: ../bundled.mjs), written
// as upstream's BundledProgram serializer writes it, under the file-safety
// rules of ../files.mjs.
import { UsageError, parseArgs } from '../args.mjs';
import { cliError, namedInputs, withOutputs } from '../files.mjs';
import { openInputs } from '../inputs.mjs';
import { fmtBytes, printable, stringify } from '../format.mjs';

export const usage = `Usage: executorch-pack bundle PTE CASES.safetensors... -o OUT.bpte [--version N]

Writes a BundledProgram (.bpte): the program PTE with test cases, byte for
byte as upstream's devtools/bundled_program serializer would. Each value of
a test case is a tensor (or a metadata entry) of the safetensors files named
  METHOD.CASE.input.I     input I of case CASE of METHOD (from 0)
  METHOD.CASE.output.I    expected output I
A tensor is contiguous unless metadata "NAME.dim_order" gives its dim order
("[0, 2, 1]"). A value that is no tensor is a metadata entry of that name:
"Int 5", "Double 1.5" (also NaN, Infinity, -Infinity, -0, and "NaN 0x" + 16
hex digits for a NaN with another sign or payload), "Bool true" or "None".
Metadata "bundle.version" and
"bundle.suites" ([[method, case count], ...]: suite order, empty cases) are
optional (unbundle writes them). CASE and I are canonical decimals (no
leading zeros); each name is given once across all files; other tensors are
refused. Run validate on the result to check the cases against the
program's methods.

Options:
  -o, --output FILE   the .bpte to write (never one of the inputs)
  --version N         the bundle's schema version (default: bundle.version, else 0)
  --force             replace FILE if it exists
  --json              print what was written as JSON

Exit status: 0 written; 1 a file cannot be read or its names do not make
test cases; 2 usage or I/O problems (including an output that exists).
`;

const SPEC = { output: 'value', version: 'value', force: 'flag', json: 'flag', help: 'flag' };

export async function run(argv, { init, help }) {
  const { options, positional } = parseArgs(argv, SPEC, 'bundle');
  if (options.help) return help('bundle');
  if (positional.length < 1) throw new UsageError('bundle needs a PTE and safetensors files of test cases', 'bundle');
  if (options.output === undefined || options.output === '') throw new UsageError('bundle needs -o FILE', 'bundle');
  const versionText = options.version;
  if (versionText !== undefined && !/^\d{1,10}$/.test(versionText)) throw new UsageError(`--version must be an integer, got '${printable(versionText)}'`, 'bundle');

  const et = await init();
  let inputs = [];
  try {
    return await withOutputs(async (outputs) => {
      inputs = await openInputs(et, positional, {});
      // The cases by the naming above (et.testCasesFromSafetensors, the same
      // call the packager page makes).
      const cases = await et.testCasesFromSafetensors(inputs.slice(1), { names: positional.slice(1) });
      const methodTestSuites = cases.method_test_suites;
      const v = Number(versionText ?? cases.version);
      if (!Number.isSafeInteger(v) || v < 0 || v > 0xFFFFFFFF) throw cliError('INVALID_INPUT', `version ${printable(String(versionText))} does not fit uint32`, 1);
      const artifact = et.serializeBundledProgram({ version: v, program: inputs[0], method_test_suites: methodTestSuites }, { output: 'artifact' });
      await outputs.write([{ path: options.output, artifact }], { inputs: namedInputs(positional), force: options.force });
      const caseCount = methodTestSuites.reduce((n, s) => n + s.test_cases.length, 0);
      if (options.json) {
        process.stdout.write(`${stringify({ schema: 1, command: 'bundle', ok: true, path: options.output, bytes: artifact.size, version: v,
          suites: methodTestSuites.map((s) => ({ method: s.method_name, testCases: s.test_cases.length })) })}\n`);
      } else {
        process.stdout.write(`wrote ${printable(options.output)} (${fmtBytes(artifact.size)}): ${methodTestSuites.length} suite(s), ${caseCount} test case(s)\n`);
      }
      return 0;
    });
  } finally {
    for (const input of inputs) input.close?.();
  }
}
