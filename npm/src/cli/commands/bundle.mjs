// `executorch-pack bundle PTE CASES.safetensors... -o OUT.bpte`: a .pte with
// test cases read from safetensors files (naming: ../bundled.mjs), written
// as upstream's BundledProgram serializer writes it, under the file-safety
// rules of ../files.mjs.
import { UsageError, parseArgs } from '../args.mjs';
import { OutputTransaction, abortOnSignals, checkTargets, cliError, identity } from '../files.mjs';
import { openInputs } from '../inputs.mjs';
import { fmtBytes, printable, stringify } from '../format.mjs';
import { VALUE_NAME, scalarValue, tensorValue } from '../bundled.mjs';
import { readSafetensorsHeader } from '../../safetensors.mjs';
import { entryOf } from '../../sources.mjs';

export const usage = `Usage: executorch-pack bundle PTE CASES.safetensors... -o OUT.bpte [--version N]

Writes a BundledProgram (.bpte): the program PTE with test cases, byte for
byte as upstream's devtools/bundled_program serializer would. Each value of
a test case is a tensor (or a metadata entry) of the safetensors files named
  METHOD.CASE.input.I     input I of case CASE of METHOD (from 0)
  METHOD.CASE.output.I    expected output I
A tensor is contiguous unless metadata "NAME.dim_order" gives its dim order
("[0, 2, 1]"). A value that is no tensor is a metadata entry of that name:
"Int 5", "Double 1.5", "Bool true" or "None". Metadata "bundle.version" and
"bundle.suites" ([[method, case count], ...]: suite order, empty cases) are
optional (unbundle writes them). Run validate on the result to check the
cases against the program's methods.

Options:
  -o, --output FILE   the .bpte to write (never one of the inputs)
  --version N         the bundle's schema version (default: bundle.version, else 0)
  --force             replace FILE if it exists
  --json              print what was written as JSON

Exit status: 0 written; 1 a file cannot be read or its names do not make
test cases; 2 usage or I/O problems (including an output that exists).
`;

const SPEC = { output: 'value', version: 'value', force: 'flag', json: 'flag', help: 'flag' };

// Every test case value of the safetensors files, by method and case.
async function readCases(et, inputs, paths) {
  const values = new Map();  // name -> value
  const dimOrders = new Map();
  const meta = { version: undefined, suites: undefined };
  for (let f = 0; f < inputs.length; ++f) {
    const entry = entryOf(inputs[f], paths[f]);
    const header = await readSafetensorsHeader(entry, paths[f], et);
    for (const [key, text] of header.metadata) {
      if (key === 'bundle.version') meta.version = text;
      else if (key === 'bundle.suites') meta.suites = text;
      else if (key.endsWith('.dim_order')) dimOrders.set(key.slice(0, -'.dim_order'.length), text);
      else if (VALUE_NAME.test(key)) values.set(key, { scalar: text, file: paths[f] });
    }
    for (const [name, tensor] of header.tensors) {
      if (!VALUE_NAME.test(name)) continue;
      if (values.has(name)) throw cliError('INVALID_INPUT', `${printable(name)} is given twice (${printable(values.get(name).file)}, ${printable(paths[f])})`, 1);
      values.set(name, { tensor, entry, file: paths[f] });
    }
  }
  const suites = new Map();  // method -> [{inputs: [], outputs: []}]
  const caseOf = (method, index) => {
    if (!suites.has(method)) suites.set(method, []);
    const cases = suites.get(method);
    while (cases.length <= index) cases.push({ input: [], output: [] });
    return cases[index];
  };
  for (const [name, v] of values) {
    const [, method, testCase, kind, index] = VALUE_NAME.exec(name);
    let value;
    try {
      // Each tensor's bytes are read once into memory here (test cases are
      // small); the core then copies them once, into the bundle's flatbuffer.
      value = v.tensor
        ? tensorValue(v.tensor, await v.entry.read(Number(v.tensor.offset), Number(v.tensor.size)), dimOrders.get(name), name)
        : scalarValue(v.scalar, name);
    } catch (e) {
      throw cliError('INVALID_INPUT', `${printable(v.file)}: ${e.message}`, 1);
    }
    caseOf(method, Number(testCase))[kind][Number(index)] = value;
  }
  let order = [...suites.keys()].sort();
  if (meta.suites !== undefined) {
    let listed;
    try {
      listed = JSON.parse(meta.suites);
      if (!Array.isArray(listed) || !listed.every((s) => Array.isArray(s) && typeof s[0] === 'string' && Number.isSafeInteger(s[1]) && s[1] >= 0)) throw new Error();
    } catch {
      throw cliError('INVALID_INPUT', `metadata bundle.suites must be [[method, case count], ...], got ${printable(meta.suites)}`, 1);
    }
    for (const [method, count] of listed) if (count > 0) caseOf(method, count - 1);
    else if (!suites.has(method)) suites.set(method, []);
    order = [...listed.map((s) => s[0]), ...order.filter((m) => !listed.some((s) => s[0] === m))];
  }
  const methodTestSuites = order.map((method) => ({
    method_name: method,
    test_cases: suites.get(method).map((c, i) => {
      for (const kind of ['input', 'output']) {
        for (let k = 0; k < c[kind].length; ++k) {
          if (c[kind][k] === undefined) throw cliError('INVALID_INPUT', `${printable(`${method}.${i}.${kind}.${k}`)} is missing (values are numbered from 0 without gaps)`, 1);
        }
      }
      return { inputs: c.input, expected_outputs: c.output };
    }),
  }));
  return { methodTestSuites, version: meta.version };
}

export async function run(argv, { init, help }) {
  const { options, positional } = parseArgs(argv, SPEC, 'bundle');
  if (options.help) return help('bundle');
  if (positional.length < 1) throw new UsageError('bundle needs a PTE and safetensors files of test cases', 'bundle');
  if (options.output === undefined || options.output === '') throw new UsageError('bundle needs -o FILE', 'bundle');
  const versionText = options.version;
  if (versionText !== undefined && !/^\d{1,10}$/.test(versionText)) throw new UsageError(`--version must be an integer, got '${printable(versionText)}'`, 'bundle');

  const et = await init();
  const controller = new AbortController();
  const transaction = new OutputTransaction();
  const stopSignals = abortOnSignals(controller, transaction);
  let inputs = [];
  try {
    inputs = await openInputs(et, positional, {});
    const { methodTestSuites, version } = await readCases(et, inputs.slice(1), positional.slice(1));
    const v = Number(versionText ?? version ?? 0);
    if (!Number.isSafeInteger(v) || v < 0 || v > 0xFFFFFFFF) throw cliError('INVALID_INPUT', `version ${printable(String(versionText ?? version))} does not fit uint32`, 1);
    const artifact = et.serializeBundledProgram({ version: v, program: inputs[0], method_test_suites: methodTestSuites }, { output: 'artifact' });
    checkTargets([options.output], positional.map((path) => ({ path, id: identity(path) })), { force: Boolean(options.force), inPlace: false });
    await transaction.stage(options.output, artifact, { signal: controller.signal });
    await new Promise(setImmediate);
    if (controller.signal.aborted) throw controller.signal.reason;
    transaction.commit();
    const cases = methodTestSuites.reduce((n, s) => n + s.test_cases.length, 0);
    if (options.json) {
      process.stdout.write(`${stringify({ schema: 1, command: 'bundle', ok: true, path: options.output, bytes: artifact.size, version: v,
        suites: methodTestSuites.map((s) => ({ method: s.method_name, testCases: s.test_cases.length })) })}\n`);
    } else {
      process.stdout.write(`wrote ${printable(options.output)} (${fmtBytes(artifact.size)}): ${methodTestSuites.length} suite(s), ${cases} test case(s)\n`);
    }
    return 0;
  } catch (e) {
    transaction.discard();
    throw controller.signal.aborted ? controller.signal.reason : e;
  } finally {
    stopSignals();
    for (const input of inputs) input.close?.();
  }
}
