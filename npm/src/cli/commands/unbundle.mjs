// `executorch-pack unbundle BPTE -o DIR`: a .bpte's program (DIR/program.pte,
// byte for byte) and test cases (DIR/cases.safetensors, named as `bundle`
// reads them: ../bundled.mjs), written all or nothing under the
// file-safety rules of ../files.mjs.
import { join } from 'node:path';
import { UsageError, parseArgs } from '../args.mjs';
import { cliError, namedInputs, withOutputs } from '../files.mjs';
import { openInputs } from '../inputs.mjs';
import { fmtBytes, printable, stringify } from '../format.mjs';
import { dtypeOf, isContiguous, scalarText, tensorBytes, valueName } from '../bundled.mjs';
import { Artifact } from '../../artifact.mjs';

export const usage = `Usage: executorch-pack unbundle BPTE -o DIR

Writes a BundledProgram's program to DIR/program.pte (byte for byte) and its
test cases to DIR/cases.safetensors, named METHOD.CASE.input.I and
METHOD.CASE.output.I (see \`bundle --help\`; values that are no tensor, a
tensor's non-contiguous dim order, the version and the suites' order go in
the file's metadata). \`bundle DIR/program.pte DIR/cases.safetensors\` then
writes the same .bpte again.

Options:
  -o, --output DIR    the folder to write into (made if missing)
  --force             replace files that exist there
  --json              print what was written as JSON

What the naming cannot give back byte for byte is refused, saying why,
and nothing is written: a tensor whose scalar type has no safetensors dtype
or whose data is not exactly its sizes' bytes, a suite without a method
name, a Double NaN other than the quiet NaN 0x7ff8000000000000.

Exit status: 0 written; 1 the file cannot be read, or it holds what the
naming cannot give back (above); 2 usage or I/O problems (including files
that exist).
`;

const SPEC = { output: 'value', force: 'flag', json: 'flag', help: 'flag' };

// The test cases as a safetensors file: the head from the core
// (encode/safetensors_writer.h), then each tensor's bytes where they lie.
// What the naming cannot give back to `bundle` byte for byte is refused
// here, saying why, before anything is written: a suite without a method
// name, a tensor whose data is not exactly its scalar type x sizes (a
// safetensors tensor is), a NaN other than the quiet NaN "Double NaN" reads
// as (its sign and payload would be lost; `bits` from inspect's summary).
function casesFile(et, bundle, summary) {
  const tensors = [];
  const pieces = [];
  const metadata = [['bundle.version', String(bundle.version ?? 0)],
    ['bundle.suites', JSON.stringify(bundle.method_test_suites.map((s) => [s.method_name, s.test_cases.length]))]];
  bundle.method_test_suites.forEach((suite, s) => {
    if (typeof suite.method_name !== 'string') throw new Error(`suite ${s} has no method name: its cases cannot be named METHOD.CASE...`);
    suite.test_cases.forEach((c, i) => {
      for (const [kind, list, summaryKey] of [['input', c.inputs, 'inputs'], ['output', c.expected_outputs, 'expectedOutputs']]) {
        list.forEach((v, k) => {
          const name = valueName(suite.method_name, i, kind, k);
          if (v.val_type !== 'Tensor') {
            // A NaN other than the canonical one comes from the core as
            // { nanBits } (npm/src/marshal/nan-bits.mjs), the canonical one as NaN.
            const d = v.val_type === 'Double' ? v.val.double_val : undefined;
            if (v.val_type === 'Double' && (Number.isNaN(d) || (d !== null && typeof d === 'object' && 'nanBits' in d))) {
              const bits = summary?.methodTestSuites?.[s]?.testCases?.[i]?.[summaryKey]?.[k]?.bits ??
                (typeof d === 'object' && d !== null ? `0x${String(d.nanBits).toLowerCase()}` : undefined);
              if (bits !== QUIET_NAN) {
                throw new Error(`${name} is a NaN with bits ${bits ?? 'unknown'}: metadata "Double NaN" is the quiet NaN ${QUIET_NAN}, ` +
                  'so its sign and payload cannot be written for bundle to give back');
              }
            }
            metadata.push([name, scalarText(v)]);
            return;
          }
          const t = v.val;
          const sizes = t.sizes ?? null;
          const expected = sizes === null ? null : tensorBytes(t.scalar_type ?? 0, sizes);
          if (!(t.data instanceof Uint8Array) || expected === null || expected !== t.data.byteLength) {
            throw new Error(`${name}: its data is ${t.data?.byteLength ?? 'absent'} byte(s) but scalar type ${t.scalar_type ?? 0} ` +
              `and sizes [${sizes ?? ''}] make ${expected ?? 'no valid size'}; a safetensors tensor holds exactly that many, ` +
              'so bundle could not give this one back');
          }
          tensors.push({ name, dtype: dtypeOf(t.scalar_type ?? 0, name), shape: sizes, size: t.data.byteLength });
          pieces.push({ bytes: t.data });  // deserialize's copy out of the heap, written as it is
          if (!isContiguous(t.dim_order ?? [], sizes.length)) metadata.push([`${name}.dim_order`, JSON.stringify(t.dim_order)]);
        });
      }
    });
  });
  const head = et._internal.safetensorsHead(tensors, metadata);
  const size = head.byteLength + pieces.reduce((n, p) => n + p.bytes.byteLength, 0);
  return { artifact: new Artifact([{ bytes: head }, ...pieces], size), tensors: tensors.length, values: metadata.length - 2 };
}

const QUIET_NAN = '0x7ff8000000000000';

// Doubles that are NaN need their bits, which only inspect's summary keeps.
const hasNaN = (bundle) => bundle.method_test_suites.some((s) => s.test_cases.some((c) =>
  [...c.inputs, ...c.expected_outputs].some((v) => v.val_type === 'Double' && Number.isNaN(v.val.double_val))));

export async function run(argv, { init, help }) {
  const { options, positional } = parseArgs(argv, SPEC, 'unbundle');
  if (options.help) return help('unbundle');
  if (positional.length !== 1) throw new UsageError('unbundle takes exactly one BPTE', 'unbundle');
  if (options.output === undefined || options.output === '') throw new UsageError('unbundle needs -o DIR', 'unbundle');
  const et = await init();
  let input = null;
  try {
    return await withOutputs(async (outputs) => {
      [input] = await openInputs(et, positional, {});
      const bundle = et.deserializeBundledProgram(input);
      let cases;
      try {
        cases = casesFile(et, bundle, hasNaN(bundle) ? et.inspect(input) : null);
      } catch (e) {
        if (e.code) throw e;
        throw cliError('INVALID_INPUT', e.message, 1);
      }
      const pte = join(options.output, 'program.pte');
      const safetensors = join(options.output, 'cases.safetensors');
      await outputs.write([
        { path: pte, artifact: new Artifact([{ bytes: bundle.program }], bundle.program.byteLength) },
        { path: safetensors, artifact: cases.artifact },
      ], { inputs: namedInputs(positional), force: options.force, folder: options.output });
      const suites = bundle.method_test_suites.length;
      const testCases = bundle.method_test_suites.reduce((n, s) => n + s.test_cases.length, 0);
      if (options.json) {
        process.stdout.write(`${stringify({ schema: 1, command: 'unbundle', ok: true, program: pte, cases: safetensors,
          programBytes: bundle.program.byteLength, casesBytes: cases.artifact.size, suites, testCases, tensors: cases.tensors })}\n`);
      } else {
        process.stdout.write(`wrote ${printable(pte)} (${fmtBytes(bundle.program.byteLength)}) and ${printable(safetensors)} ` +
          `(${fmtBytes(cases.artifact.size)}): ${suites} suite(s), ${testCases} test case(s), ${cases.tensors} tensor(s)\n`);
      }
      return 0;
    });
  } finally {
    input?.close?.();
  }
}
